"""Faults of the store as the service's refusals, and whether it can take writes.

A fault is no bug and no fault of the request: the client gets a 503 with a problem type of
its own (``insufficient-storage`` for a full disk, ``store-unavailable`` for every other
kind), a ``Retry-After`` and a detail that names the kind of fault, never a path or SQL (the
log has the store's own message). ``readiness`` is what ``GET /ready`` reports.
"""

from __future__ import annotations

import msgspec

from eventstore import EventStore, StoreUnavailable
from service.core.refusal import Refusal, refuse

DETAILS = {
    "disk-full": "the event store's disk is full; nothing was written",
    "io-error": "the event store's disk failed to read or write",
    "read-only": "the event store takes no writes (its database is read-only)",
    "busy": "the event store is held by another process",
    "unreachable": "the event store's database cannot be reached",
    "file-gone": "the event store's database file was deleted or replaced; writes are refused"
    " until the operator restores it and restarts the service",
    "writer-stopped": "the event store's writer is not running",
    "corrupt": "the event store's database file is damaged",
}
RETRY_AFTER = {"disk-full": 30, "file-gone": 60, "corrupt": 60}
"""Seconds a client should wait before trying again, by kind (others: ``DEFAULT_RETRY``)."""
DEFAULT_RETRY = 1
NOTE = " (a write may have been applied: retry it with the same Idempotency-Key)"


class Readiness(msgspec.Struct, frozen=True):
    """``GET /ready``: whether this process can take writes now, and each check's finding
    (``ok`` or the kind of fault)."""

    status: str
    checks: dict[str, str]


def store_fault(error: BaseException) -> Refusal | None:
    """The refusal a fault of the store is answered with, or None for any other error."""
    if not isinstance(error, StoreUnavailable):
        return None
    slug = "insufficient-storage" if error.kind == "disk-full" else "store-unavailable"
    detail = DETAILS.get(error.kind, "the event store cannot take this now")
    if error.kind == "unreachable":
        detail += NOTE
    retry = RETRY_AFTER.get(error.kind, DEFAULT_RETRY)
    return refuse(slug, detail, fault=error.kind, retry_after=retry)


def readiness(store: EventStore) -> Readiness:
    """Whether the store can take writes (its database reachable, its writer alive, its disk
    not full), by check."""
    try:
        checks = store.readiness()
    except StoreUnavailable as fault:
        checks = {"database": fault.kind}
    ready = all(found == "ok" for found in checks.values())
    return Readiness("ready" if ready else "not-ready", checks)

"""Faults of the database under a store, told apart from bugs: their kinds, how each backend's
errors map to them, and counts of them for whoever watches the store.

A fault is the machine's or the database's, not the request's: the same request may succeed
once the fault is gone. Kinds:

- ``disk-full``: no room left for the write (SQLite's file system, PostgreSQL's disk).
- ``io-error``: the operating system failed a read or a write.
- ``read-only``: the database (or its file system) takes no writes.
- ``busy``: another process held the database longer than the busy timeout.
- ``unreachable``: the database server cannot be reached (or the file cannot be opened).
- ``file-gone``: the SQLite file was deleted or replaced under the running store.
- ``writer-stopped``: the store's writer is not running.
- ``corrupt``: the database file is damaged.
"""

from __future__ import annotations

import sqlite3
import threading
import time

from .errors import StoreUnavailable

KINDS = (
    "disk-full",
    "io-error",
    "read-only",
    "busy",
    "unreachable",
    "file-gone",
    "writer-stopped",
    "corrupt",
)
SQLITE_KINDS = {
    13: "disk-full",  # SQLITE_FULL
    10: "io-error",  # SQLITE_IOERR (and its extended codes)
    8: "read-only",  # SQLITE_READONLY
    5: "busy",  # SQLITE_BUSY
    6: "busy",  # SQLITE_LOCKED
    14: "unreachable",  # SQLITE_CANTOPEN
    11: "corrupt",  # SQLITE_CORRUPT
    26: "corrupt",  # SQLITE_NOTADB
}
REMEMBERED_SECONDS = 10.0
"""How long a write's fault keeps a store unready when no write has succeeded since."""


def sqlite_kind(error: BaseException) -> str | None:
    """The kind of fault an sqlite3 error is, or None when it is none (a bug, a constraint)."""
    code = getattr(error, "sqlite_errorcode", None)
    if not isinstance(error, sqlite3.Error) or not isinstance(code, int):
        return None
    return SQLITE_KINDS.get(code & 0xFF)


class FaultTally:
    """Operations a store refused because of a fault, by kind, and the latest write fault
    (thread-safe)."""

    def __init__(self) -> None:
        self._counts = dict.fromkeys(KINDS, 0)
        self._lock = threading.Lock()
        self._last_write: tuple[str, float] | None = None  # kind, monotonic time

    def refused(
        self, kind: str, doing: str, detail: str, *, write: bool = False
    ) -> StoreUnavailable:
        """Count a fault and return the error that says it (to raise or to hand over)."""
        with self._lock:
            self._counts[kind] = self._counts.get(kind, 0) + 1
            if write:
                self._last_write = (kind, time.monotonic())
        return StoreUnavailable(kind, f"{doing}: {kind}: {detail}")

    def wrote(self) -> None:
        """A write succeeded: the latest write fault is over."""
        if self._last_write is not None:
            with self._lock:
                self._last_write = None

    def recent_write_fault(self) -> str | None:
        """The kind of the latest write's fault if no write succeeded since and it is recent."""
        with self._lock:
            last = self._last_write
        if last is None or time.monotonic() - last[1] > REMEMBERED_SECONDS:
            return None
        return last[0]

    def counts(self) -> dict[str, int]:
        """The faults met so far, by kind (every kind, zero for those not met)."""
        with self._lock:
            return dict(self._counts)

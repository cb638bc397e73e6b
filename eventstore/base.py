"""The interface every event store backend offers, by role; the service types against it.

Each role is a small protocol: ``Log`` (the streams of events and their creation records),
``Snapshots``, ``Summaries``, ``Deadlines`` and ``IdempotencyKeys``. ``EventStore`` is all of
them over one database, with the store's own figures, schema version and ``close``. A caller
that needs one role types against that role alone.

Snapshots are derived data kept beside the log (a fold of a stream up to a version, in
whatever bytes the caller chooses): the store never reads them, they may be dropped at any
time, and the log alone stays the truth.

Idempotency keys follow the IETF Idempotency-Key draft: a key is scoped to a stream, stored
with the request's fingerprint (any text the caller derives from the request, "" for none)
and the time it was used, and kept for the store's ``idempotency_ttl`` (24 hours by default,
by the store's clock); after that it is as if unused. Of several appends racing with one key,
exactly one writes; each other replays its result or raises ``IdempotencyKeyReused``.

A deadline is a time the caller keeps with a stream (say, when a timer runs out), as an
ISO-8601 UTC timestamp (``iso_timestamp``'s form; other ISO-8601 times are stored in it).
Every append sets it, in the transaction of the events, and ``due`` finds the streams whose
deadline has come.

A summary is derived data too, of the caller's making (``Summary``: a kind, a status and tags
that listings filter on, and an opaque document): an append may carry one, written in its
transaction, and ``summaries`` lists them a page at a time in SQL, oldest stream first. The
store never makes one; the caller writes one whenever what it lists of a stream changes and
can rebuild them all from the logs (``drop_summaries``, ``save_summary``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from .commits import CommitSizes
from .derived import Derived
from .model import (
    Appending,
    AppendResult,
    StoredEvent,
    StreamInfo,
    Summarised,
    Summary,
    SummaryQuery,
)


@runtime_checkable
class Log(Protocol):
    """The log: append-only streams of events with optimistic concurrency, each with the
    meta and private record its creation stored."""

    def append(self, appending: Appending) -> AppendResult:
        """Append an ``Appending``'s events to its stream at its expected version (0 creates
        the stream), in one transaction.

        ``meta`` and ``private`` are stored when the append creates the stream (ignored
        afterwards). ``deadline`` becomes the stream's deadline, None clearing it: every append
        that writes sets it (a replay writes nothing, so it leaves it). ``summary``, when
        given, becomes the stream's summary, updated at the time of the appended events
        (None leaves the summary as it was). A deadline that is no
        ISO-8601 time, or no events, is a ValueError.

        With an ``idempotency_key`` already used on the stream (and not expired) nothing is
        written: the first append's result comes back (replayed=True) for the same request,
        or ``IdempotencyKeyReused`` for another. When both this append and the key's first use
        give a fingerprint, the fingerprints alone decide (the same one replays even if the
        events differ, say a retry built on a later state); otherwise the events decide. The
        key check comes first, so a retry replays even when expected_version is stale.
        Raises ``VersionConflict`` (``StreamExists`` when creating) if the stream is not at
        expected_version.
        """
        ...

    async def append_async(self, appending: Appending) -> AppendResult:
        """``append``, awaited: the event loop goes on while it commits (SQLite's group commit
        resolves the awaiting task when its batch is durable; PostgreSQL appends on a worker
        thread)."""
        ...

    def append_batch(self, appends: Sequence[Appending]) -> list[AppendResult]:
        """Make several appends (to distinct streams) in one transaction: all are written or
        none. Each is judged as ``append`` judges it (a replay by its key writes nothing for
        that one); the first refusal (``VersionConflict``, ``IdempotencyKeyReused``) is raised
        and nothing of the batch is written. Results come back in the order asked."""
        ...

    def read(
        self, stream_id: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Return a stream's events with after < version <= until, oldest first, at most limit."""
        ...

    def version(self, stream_id: str) -> int:
        """Return a stream's current version, 0 when it does not exist."""
        ...

    def private(self, stream_id: str) -> dict[str, Any] | None:
        """Return the private record stored at creation, or None."""
        ...

    def streams(self) -> list[StreamInfo]:
        """Return every stream, oldest first."""
        ...

    def stream(self, stream_id: str) -> StreamInfo | None:
        """Return one stream's summary, or None when it does not exist."""
        ...


@runtime_checkable
class Snapshots(Protocol):
    """Derived folds of a stream kept beside the log (never read by the store)."""

    def save_snapshot(self, stream_id: str, version: int, data: bytes) -> None:
        """Store derived data about a stream at a version (replacing any already there)."""
        ...

    def load_snapshot(self, stream_id: str, at_most: int) -> tuple[int, bytes] | None:
        """Return the latest snapshot of a stream at or before version at_most, or None."""
        ...

    def drop_snapshots(self, stream_id: str | None = None) -> None:
        """Delete the snapshots of one stream, or of every stream (they can be rebuilt)."""
        ...


@runtime_checkable
class Summaries(Protocol):
    """Derived listings of streams, written in an append's transaction or after it."""

    def summaries(self, query: SummaryQuery) -> list[Summarised]:
        """Return a page of summaries, oldest stream first (creation time, then id)."""
        ...

    def summary(self, stream_id: str) -> Summarised | None:
        """Return one stream's summary, or None (no stream, or none written)."""
        ...

    def unsummarised(self, limit: int = 1000) -> list[str]:
        """Return the ids of streams that have no summary, oldest first, at most limit."""
        ...

    def save_summary(self, stream_id: str, version: int, summary: Summary, updated_at: str) -> bool:
        """Write a stream's summary, updated at ``updated_at``, only if the stream is still at
        ``version`` (what it was made from); return whether it was written."""
        ...

    def drop_summaries(self) -> None:
        """Delete every summary (to rebuild them)."""
        ...


@runtime_checkable
class Deadlines(Protocol):
    """The time each stream's latest append set, and the streams whose time has come."""

    def deadline(self, stream_id: str) -> str | None:
        """Return the deadline the stream's latest append set, or None (none, or no stream)."""
        ...

    def due(self, until: str, limit: int = 1000) -> list[tuple[str, str]]:
        """Return (stream_id, deadline) of the streams whose deadline is at or before until
        (an ISO-8601 time), earliest first (ties by stream id), at most limit."""
        ...


@runtime_checkable
class IdempotencyKeys(Protocol):
    """The keys appends were made with, looked up before judging a retry again."""

    def lookup(
        self, stream_id: str, idempotency_key: str, fingerprint: str = ""
    ) -> AppendResult | None:
        """Return the earlier result for an idempotency key (replayed=True), or None if unused
        or expired. Raise ``IdempotencyKeyReused`` when fingerprint and the key's stored
        fingerprint are both given and differ."""
        ...


class EventStore(Log, Snapshots, Summaries, Deadlines, IdempotencyKeys, Derived, Protocol):
    """Every role at once, over one database (the data derived from its summaries too:
    ``Derived``), with what belongs to the store as a whole."""

    def faults(self) -> dict[str, int]:
        """Return how many operations a fault of the database refused since opening, by kind
        (``faults.KINDS``); the service's metrics read it."""
        ...

    def readiness(self) -> dict[str, str]:
        """Return whether writes can be taken, by check (``ok`` or the kind of fault)."""
        ...

    def commit_sizes(self) -> CommitSizes:
        """Return how many events each commit appended since opening, in buckets (a commit
        that appended none is not counted); the service's metrics read it."""
        ...

    def schema_version(self) -> int:
        """Return the version of the schema the database records."""
        ...

    def close(self) -> None:
        """Release the store's connections."""
        ...


@runtime_checkable
class Announcing(Protocol):
    """A store that can wake callers after appends to a stream (PostgreSQL: by any process;
    SQLite: by its own at once, by other processes on the file within a few hundredths of a
    second)."""

    def subscribe(self, stream_id: str, wake: Callable[[int | None], None]) -> Callable[[], None]:
        """Call wake (from another thread) after appends to the stream, with the version the
        stream reached (None when it is not known); return the unsubscribe."""
        ...

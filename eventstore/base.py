"""The interface every event store backend offers; the service types against it.

Snapshots are derived data kept beside the log (a fold of a stream up to a version, in
whatever bytes the caller chooses): the store never reads them, they may be dropped at any
time, and the log alone stays the truth.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from .model import AppendResult, NewEvent, StoredEvent, StreamInfo


class EventStore(Protocol):
    """An append-only log of streams of events with optimistic concurrency."""

    def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        idempotency_key: str | None = None,
        *,
        meta: dict[str, Any] | None = None,
        private: dict[str, Any] | None = None,
    ) -> AppendResult:
        """Append events to a stream at expected_version (0 creates it), in one transaction."""
        ...

    async def append_async(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        idempotency_key: str | None = None,
    ) -> AppendResult:
        """``append``, awaited: the event loop goes on while it commits (SQLite's group commit
        resolves the awaiting task when its batch is durable; PostgreSQL appends on a worker
        thread)."""
        ...

    def read(
        self, stream_id: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Return a stream's events with after < version <= until, oldest first, at most limit."""
        ...

    def version(self, stream_id: str) -> int:
        """Return a stream's current version, 0 when it does not exist."""
        ...

    def lookup(self, stream_id: str, idempotency_key: str) -> AppendResult | None:
        """Return the earlier result for an idempotency key (replayed=True), or None if unused."""
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

    def save_snapshot(self, stream_id: str, version: int, data: bytes) -> None:
        """Store derived data about a stream at a version (replacing any already there)."""
        ...

    def load_snapshot(self, stream_id: str, at_most: int) -> tuple[int, bytes] | None:
        """Return the latest snapshot of a stream at or before version at_most, or None."""
        ...

    def drop_snapshots(self, stream_id: str | None = None) -> None:
        """Delete the snapshots of one stream, or of every stream (they can be rebuilt)."""
        ...

    def close(self) -> None:
        """Release the store's connections."""
        ...


@runtime_checkable
class Announcing(Protocol):
    """A store that can wake callers when any process appends to a stream (PostgreSQL)."""

    def subscribe(self, stream_id: str, wake: Callable[[], None]) -> Callable[[], None]:
        """Call wake (from another thread) after appends to the stream; return the unsubscribe."""
        ...

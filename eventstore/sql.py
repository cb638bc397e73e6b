"""What the two SQL stores share: their tables' rows as events and back, and every read.

SQLite and PostgreSQL keep the same tables and differ, here, in four things a ``Dialect``
names: the driver's parameter mark (``?`` for sqlite3, ``%s`` for psycopg), how a json column
comes back (text to decode, or a value psycopg already decoded), how the ``by`` column is
written (SQLite's takes a seat number or a name as it is; PostgreSQL's is json) and which
column orders the streams by creation. ``SqlStore`` writes every read of the ``EventStore``
protocol once, and the store as a context manager; a store inherits it, names its dialect
and gives ``_reading`` (a connection for reads, its driver's errors translated into
``StoreError``) and ``close``. Connections are typed ``Any``: sqlite3's and psycopg's share
``execute(sql, params)`` and the cursor's ``fetchone``/``fetchall``, not a declared type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any, ClassVar, NamedTuple, Self

import msgspec

from .errors import IdempotencyKeyReused, StreamExists, VersionConflict
from .hashing import same_events
from .model import AppendResult, NewEvent, StoredEvent, StreamInfo

EVENT_COLUMNS = ("stream_id", "version", "type", "data", "by", "at", "prev_hash", "hash")
SELECT_EVENTS = f"SELECT {', '.join(EVENT_COLUMNS)} FROM events"
INSERT_EVENT = f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
SELECT_STREAMS = "SELECT stream_id, version, created_at, meta, last_type FROM streams"


def encode(value: Any) -> str:
    """Encode a value as JSON text."""
    return msgspec.json.encode(value).decode()


def encode_optional(value: dict[str, Any] | None) -> str | None:
    """Encode a value as JSON text, keeping None as SQL NULL."""
    return None if value is None else encode(value)


def decode(text: str) -> Any:
    """Decode JSON text."""
    return msgspec.json.decode(text)


def as_is(value: Any) -> Any:
    return value


class Dialect(NamedTuple):
    """How one driver and database differ for the shared SQL."""

    mark: str
    """The driver's parameter mark."""
    decode: Callable[[Any], Any]
    """A json column as the driver returns it, to its value."""
    encode_by: Callable[[Any], Any]
    """An event's ``by`` (a seat number or a name) to its column."""
    streams_order: str
    """The streams column that orders them oldest first."""

    def sql(self, text: str) -> str:
        """``text``, written with ``?`` marks, in this dialect."""
        return text.replace("?", self.mark)


SQLITE = Dialect("?", decode, as_is, "rowid")
POSTGRES = Dialect("%s", as_is, encode, "seq")


def check_version(stream_id: str, expected: int, actual: int) -> None:
    """Raise a conflict unless the stream is at the expected version."""
    if expected == 0 and actual > 0:
        raise StreamExists(stream_id, actual)
    if expected != actual:
        raise VersionConflict(stream_id, expected, actual)


def event_row(dialect: Dialect, event: StoredEvent) -> tuple[Any, ...]:
    """Turn a stored event into a row of the events table."""
    by, data = dialect.encode_by(event.by), encode(event.data)
    head = (event.stream_id, event.version, event.type, data, by, event.at)
    return (*head, event.prev_hash, event.hash)


def stored_event(dialect: Dialect, row: Sequence[Any]) -> StoredEvent:
    """Turn a row of the events table into a stored event."""
    stream_id, version, type_, data, by, at, prev_hash, hash_ = row
    return StoredEvent(stream_id, version, type_, dialect.decode(data), by, at, prev_hash, hash_)


def stream_info(dialect: Dialect, row: Sequence[Any]) -> StreamInfo:
    """Turn a row of the streams table into a stream summary."""
    stream_id, version, created_at, meta, last_type = row
    return StreamInfo(stream_id, version, created_at, dialect.decode(meta), last_type)


def read_events(
    conn: Any, dialect: Dialect, stream_id: str, after: int, until: int | None, limit: int | None
) -> list[StoredEvent]:
    """Select events of a stream in a version range."""
    sql = f"{SELECT_EVENTS} WHERE stream_id = ? AND version > ?"
    params: list[Any] = [stream_id, after]
    if until is not None:
        sql, params = f"{sql} AND version <= ?", [*params, until]
    sql += " ORDER BY version"
    if limit is not None:
        sql, params = f"{sql} LIMIT ?", [*params, limit]
    rows = conn.execute(dialect.sql(sql), params).fetchall()
    return [stored_event(dialect, row) for row in rows]


def stream_version(conn: Any, dialect: Dialect, stream_id: str) -> int:
    """Select a stream's current version, 0 when absent."""
    sql = dialect.sql("SELECT version FROM streams WHERE stream_id = ?")
    row = conn.execute(sql, [stream_id]).fetchone()
    return 0 if row is None else int(row[0])


def keyed_events(
    conn: Any, dialect: Dialect, stream_id: str, key: str
) -> tuple[StoredEvent, ...] | None:
    """Select the events an idempotency key appended, or None if unused."""
    sql = "SELECT first_version, last_version FROM idempotency WHERE stream_id = ? AND key = ?"
    row = conn.execute(dialect.sql(sql), [stream_id, key]).fetchone()
    if row is None:
        return None
    return tuple(read_events(conn, dialect, stream_id, int(row[0]) - 1, int(row[1]), None))


def earlier(
    conn: Any, dialect: Dialect, stream_id: str, key: str, events: Sequence[NewEvent]
) -> AppendResult | None:
    """Return the first result for a used key, or None; a key used for other events errs."""
    found = keyed_events(conn, dialect, stream_id, key)
    if found is None:
        return None
    if not same_events(events, found):
        raise IdempotencyKeyReused(stream_id, key)
    return AppendResult(events=found, replayed=True)


class SqlStore:
    """The reads of the ``EventStore`` protocol over a store's ``_reading`` connection; the
    store as a context manager that closes it."""

    dialect: ClassVar[Dialect]

    def _reading(self, doing: str) -> AbstractContextManager[Any]:
        """A connection for reads, its errors translated into ``StoreError``."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the store's connections."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _one(self, doing: str, sql: str, params: Sequence[Any]) -> Any:
        """The first row ``sql`` selects, or None."""
        with self._reading(doing) as conn:
            return conn.execute(self.dialect.sql(sql), params).fetchone()

    def read(
        self, stream_id: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Return a stream's events with after < version <= until, oldest first, at most limit."""
        with self._reading(f"cannot read stream {stream_id!r}") as conn:
            return read_events(conn, self.dialect, stream_id, after, until, limit)

    def version(self, stream_id: str) -> int:
        """Return a stream's current version, 0 when it does not exist."""
        with self._reading(f"cannot read stream {stream_id!r}") as conn:
            return stream_version(conn, self.dialect, stream_id)

    def lookup(self, stream_id: str, idempotency_key: str) -> AppendResult | None:
        """Return the earlier result for an idempotency key (replayed=True), or None if unused."""
        with self._reading(f"cannot read stream {stream_id!r}") as conn:
            found = keyed_events(conn, self.dialect, stream_id, idempotency_key)
        return None if found is None else AppendResult(events=found, replayed=True)

    def private(self, stream_id: str) -> dict[str, Any] | None:
        """Return the private record stored at creation, or None (no stream, or none given)."""
        sql = "SELECT private FROM streams WHERE stream_id = ?"
        row = self._one(f"cannot read stream {stream_id!r}", sql, [stream_id])
        return None if row is None or row[0] is None else dict(self.dialect.decode(row[0]))

    def streams(self) -> list[StreamInfo]:
        """Return every stream, oldest first."""
        sql = f"{SELECT_STREAMS} ORDER BY {self.dialect.streams_order}"
        with self._reading("cannot list streams") as conn:
            rows = conn.execute(sql).fetchall()
        return [stream_info(self.dialect, row) for row in rows]

    def stream(self, stream_id: str) -> StreamInfo | None:
        """Return one stream's summary, or None when it does not exist."""
        sql = f"{SELECT_STREAMS} WHERE stream_id = ?"
        row = self._one(f"cannot read stream {stream_id!r}", sql, [stream_id])
        return None if row is None else stream_info(self.dialect, row)

    def load_snapshot(self, stream_id: str, at_most: int) -> tuple[int, bytes] | None:
        """Return the latest snapshot of a stream at or before version at_most, or None."""
        sql = (
            "SELECT version, data FROM snapshots WHERE stream_id = ? AND version <= ?"
            " ORDER BY version DESC LIMIT 1"
        )
        row = self._one(f"cannot read snapshots of stream {stream_id!r}", sql, [stream_id, at_most])
        return None if row is None else (int(row[0]), bytes(row[1]))

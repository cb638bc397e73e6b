"""The event store on SQLite, through sqlite-utils; the only module that touches SQL.

Threading: one sqlite3 connection, opened with ``check_same_thread=False`` and guarded
by a ``threading.Lock`` that every public method holds. SQLite admits one writer at a
time anyway, so a connection per thread would only buy concurrent reads, at the cost of
many open handles and of ``":memory:"`` (a database per connection). The lock also keeps
one thread's reads out of another's open transaction. Other processes on the same file
are kept apart by ``BEGIN IMMEDIATE`` and the busy timeout, and the primary key
``(stream_id, version)`` turns any duplicate version that still slips through into a
``VersionConflict``, never an overwrite.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import msgspec
from sqlite_utils import Database

from .clock import iso_timestamp, utcnow
from .errors import IdempotencyKeyReused, StoreError, StreamExists, VersionConflict
from .hashing import GENESIS, same_events, seal
from .model import AppendResult, NewEvent, StoredEvent, StreamInfo

SYNCHRONOUS_LEVELS = ("OFF", "NORMAL", "FULL", "EXTRA")
BUSY_TIMEOUT_SECONDS = 30.0

EVENT_COLUMNS = ("stream_id", "version", "type", "data", "by", "at", "prev_hash", "hash")
SELECT_EVENTS = f"SELECT {', '.join(EVENT_COLUMNS)} FROM events"
SELECT_STREAMS = "SELECT stream_id, version, created_at, meta, last_type FROM streams"


class SqliteEventStore:
    """An append-only log of streams of events in one SQLite database."""

    def __init__(
        self,
        path: str | Path = "tabula.db",
        *,
        synchronous: str = "FULL",
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        """Open (or create) the database at path; ":memory:" gives a private in-memory one."""
        level = synchronous.upper()
        if level not in SYNCHRONOUS_LEVELS:
            raise ValueError(
                f"synchronous must be one of {SYNCHRONOUS_LEVELS}, not {synchronous!r}"
            )
        self._clock = clock
        self._lock = threading.Lock()
        with self._lock, _translated(f"cannot open the event store at {str(path)!r}"):
            conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False)
            self._db = Database(conn)
            self._configure(level, in_memory=str(path) == ":memory:")
            self._create_schema()

    def _configure(self, synchronous: str, *, in_memory: bool) -> None:
        """Set the journal (WAL for files) and the durability level."""
        if not in_memory:
            self._db.enable_wal()
        self._db.execute(f"PRAGMA synchronous={synchronous}")

    def settings(self) -> dict[str, str]:
        """Return the connection's durability settings: journal_mode and synchronous."""
        with self._lock, _translated("cannot read the store's settings"):
            journal = str(self._db.execute("PRAGMA journal_mode").fetchone()[0])
            level = int(self._db.execute("PRAGMA synchronous").fetchone()[0])
        return {"journal_mode": journal, "synchronous": SYNCHRONOUS_LEVELS[level]}

    def _create_schema(self) -> None:
        """Create the tables unless they exist."""
        self._db.table("streams").create(
            {"stream_id": str, "version": int, "created_at": str, "meta": str, "private": str}
            | {"last_type": str},
            pk="stream_id",
            not_null={"version", "created_at", "meta", "last_type"},
            if_not_exists=True,
            strict=True,
        )
        self._db.table("events").create(
            {"stream_id": str, "version": int, "type": str, "data": str, "by": "ANY"}
            | {"at": str, "prev_hash": str, "hash": str},
            pk=("stream_id", "version"),
            not_null=set(EVENT_COLUMNS),
            if_not_exists=True,
            strict=True,
        )
        self._db.table("idempotency").create(
            {"stream_id": str, "key": str, "first_version": int, "last_version": int},
            pk=("stream_id", "key"),
            not_null={"stream_id", "key", "first_version", "last_version"},
            if_not_exists=True,
            strict=True,
        )

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
        if not events:
            raise ValueError(f"append to stream {stream_id!r} needs at least one event")
        with self._lock, self._transaction(stream_id, expected_version):
            if idempotency_key is not None:
                earlier = self._earlier(stream_id, idempotency_key, events)
                if earlier is not None:
                    return earlier
            current = self._version(stream_id)
            _check_version(stream_id, expected_version, current)
            at = iso_timestamp(self._clock())
            stored = seal(stream_id, events, current, self._head_hash(stream_id, current), at)
            self._write(stored, idempotency_key, meta, private)
        return AppendResult(events=stored, replayed=False)

    @contextmanager
    def _transaction(self, stream_id: str, expected: int) -> Iterator[None]:
        """Run a block in BEGIN IMMEDIATE; commit it, or roll back and translate the error."""
        with _translated(f"cannot append to stream {stream_id!r}"):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
                self._db.commit()
            except sqlite3.IntegrityError as exc:
                self._db.rollback()
                actual = self._stored_version(stream_id)
                raise VersionConflict(stream_id, expected, actual) from exc
            except BaseException:
                self._db.rollback()
                raise

    def _earlier(self, stream_id: str, key: str, events: Sequence[NewEvent]) -> AppendResult | None:
        """Return the first result for a used key, or None; a key used for other events errs."""
        earlier = self._keyed_events(stream_id, key)
        if earlier is None:
            return None
        if not same_events(events, earlier):
            raise IdempotencyKeyReused(stream_id, key)
        return AppendResult(events=earlier, replayed=True)

    def _write(
        self,
        stored: tuple[StoredEvent, ...],
        key: str | None,
        meta: dict[str, Any] | None,
        private: dict[str, Any] | None,
    ) -> None:
        """Insert the events and move the stream (creating it) and the key to them."""
        first, last = stored[0], stored[-1]
        if first.version == 1:
            self._db.table("streams").insert(
                {"stream_id": last.stream_id, "version": last.version, "created_at": first.at}
                | {"meta": _encode(meta or {}), "private": _encode_optional(private)}
                | {"last_type": last.type}
            )
        else:
            self._db.execute(
                "UPDATE streams SET version = ?, last_type = ? WHERE stream_id = ? AND version = ?",
                (last.version, last.type, last.stream_id, first.version - 1),
            )
        self._db.table("events").insert_all(_event_row(event) for event in stored)
        if key is not None:
            self._db.table("idempotency").insert(
                {"stream_id": last.stream_id, "key": key}
                | {"first_version": first.version, "last_version": last.version}
            )

    def read(
        self, stream_id: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Return a stream's events with after < version <= until, oldest first, at most limit."""
        with self._lock, _translated(f"cannot read stream {stream_id!r}"):
            return self._read(stream_id, after, until, limit)

    def _read(
        self, stream_id: str, after: int, until: int | None, limit: int | None
    ) -> list[StoredEvent]:
        """Select events of a stream in a version range."""
        sql = f"{SELECT_EVENTS} WHERE stream_id = ? AND version > ?"
        params: list[Any] = [stream_id, after]
        if until is not None:
            sql, params = f"{sql} AND version <= ?", [*params, until]
        sql += " ORDER BY version"
        if limit is not None:
            sql, params = f"{sql} LIMIT ?", [*params, limit]
        return [_stored_event(row) for row in self._db.execute(sql, params).fetchall()]

    def version(self, stream_id: str) -> int:
        """Return a stream's current version, 0 when it does not exist."""
        with self._lock, _translated(f"cannot read stream {stream_id!r}"):
            return self._version(stream_id)

    def _version(self, stream_id: str) -> int:
        """Select a stream's current version, 0 when absent."""
        sql = "SELECT version FROM streams WHERE stream_id = ?"
        row = self._db.execute(sql, [stream_id]).fetchone()
        return 0 if row is None else int(row[0])

    def _stored_version(self, stream_id: str) -> int:
        """Select the highest version actually stored in a stream's events."""
        sql = "SELECT max(version) FROM events WHERE stream_id = ?"
        row = self._db.execute(sql, [stream_id]).fetchone()
        return int(row[0] or 0)

    def _head_hash(self, stream_id: str, version: int) -> str:
        """Select the hash of a stream's event at version (GENESIS before the first)."""
        if version == 0:
            return GENESIS
        sql = "SELECT hash FROM events WHERE stream_id = ? AND version = ?"
        return str(self._db.execute(sql, [stream_id, version]).fetchone()[0])

    def lookup(self, stream_id: str, idempotency_key: str) -> AppendResult | None:
        """Return the earlier result for an idempotency key (replayed=True), or None if unused."""
        with self._lock, _translated(f"cannot read stream {stream_id!r}"):
            earlier = self._keyed_events(stream_id, idempotency_key)
        return None if earlier is None else AppendResult(events=earlier, replayed=True)

    def _keyed_events(self, stream_id: str, key: str) -> tuple[StoredEvent, ...] | None:
        """Select the events an idempotency key appended, or None if unused."""
        sql = "SELECT first_version, last_version FROM idempotency WHERE stream_id = ? AND key = ?"
        row = self._db.execute(sql, [stream_id, key]).fetchone()
        if row is None:
            return None
        return tuple(self._read(stream_id, int(row[0]) - 1, int(row[1]), None))

    def private(self, stream_id: str) -> dict[str, Any] | None:
        """Return the private record stored at creation, or None (no stream, or none given)."""
        with self._lock, _translated(f"cannot read stream {stream_id!r}"):
            sql = "SELECT private FROM streams WHERE stream_id = ?"
            row = self._db.execute(sql, [stream_id]).fetchone()
        return None if row is None or row[0] is None else _decode(row[0])

    def streams(self) -> list[StreamInfo]:
        """Return every stream, oldest first."""
        with self._lock, _translated("cannot list streams"):
            rows = self._db.execute(f"{SELECT_STREAMS} ORDER BY rowid").fetchall()
        return [_stream_info(row) for row in rows]

    def stream(self, stream_id: str) -> StreamInfo | None:
        """Return one stream's summary, or None when it does not exist."""
        with self._lock, _translated(f"cannot read stream {stream_id!r}"):
            row = self._db.execute(f"{SELECT_STREAMS} WHERE stream_id = ?", [stream_id]).fetchone()
        return None if row is None else _stream_info(row)

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> SqliteEventStore:
        """Use the store as a context manager that closes it."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Close the store."""
        self.close()


@contextmanager
def _translated(doing: str) -> Iterator[None]:
    """Turn sqlite3 errors escaping a block into StoreError, naming what was being done."""
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreError(f"{doing}: {exc}") from exc


def _check_version(stream_id: str, expected: int, actual: int) -> None:
    """Raise a conflict unless the stream is at the expected version."""
    if expected == 0 and actual > 0:
        raise StreamExists(stream_id, actual)
    if expected != actual:
        raise VersionConflict(stream_id, expected, actual)


def _encode(value: Any) -> str:
    """Encode a value as JSON text."""
    return msgspec.json.encode(value).decode()


def _encode_optional(value: dict[str, Any] | None) -> str | None:
    """Encode a value as JSON text, keeping None as SQL NULL."""
    return None if value is None else _encode(value)


def _decode(text: str) -> dict[str, Any]:
    """Decode a JSON object."""
    return msgspec.json.decode(text, type=dict[str, Any])


def _event_row(event: StoredEvent) -> dict[str, Any]:
    """Turn a stored event into a row of the events table."""
    row = {name: getattr(event, name) for name in EVENT_COLUMNS}
    row["data"] = _encode(event.data)
    return row


def _stored_event(row: Sequence[Any]) -> StoredEvent:
    """Turn a row of the events table into a stored event."""
    stream_id, version, type_, data, by, at, prev_hash, hash_ = row
    return StoredEvent(stream_id, version, type_, _decode(data), by, at, prev_hash, hash_)


def _stream_info(row: Sequence[Any]) -> StreamInfo:
    """Turn a row of the streams table into a stream summary."""
    stream_id, version, created_at, meta, last_type = row
    return StreamInfo(stream_id, version, created_at, _decode(meta), last_type)

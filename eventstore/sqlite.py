"""The event store on SQLite, through sqlite-utils; the only module that touches SQL.

Group commit: appends do not commit one by one. Callers put their append on a queue and
wait on a future; one writer thread takes everything queued, runs each append inside one
``BEGIN IMMEDIATE ... COMMIT`` under its own ``SAVEPOINT``, and resolves every future after
the single commit (one fsync for the whole batch). Each append keeps its own version check,
idempotency lookup and error: a failing one rolls back to its savepoint, writing nothing,
and its caller gets the error while the rest of the batch commits. A lone append is written
at once (no waiting for company); batches form by themselves while a commit is in flight.

Connections: the writer thread owns a write connection; reads of a file database go through
a second connection (WAL lets them proceed during a commit). ``":memory:"`` is a database
per connection, so there reads share the write connection and its lock. Other processes on
the same file are kept apart by ``BEGIN IMMEDIATE`` and the busy timeout, and the primary
key ``(stream_id, version)`` turns any duplicate version that still slips through into a
``VersionConflict``, never an overwrite.

Errors (see errors.py): ``VersionConflict`` (``StreamExists``), ``IdempotencyKeyReused``,
and ``StoreError`` for any database failure, including a commit that fails (every append
of that batch gets it) or an append to a closed store.
"""

from __future__ import annotations

import asyncio
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import msgspec
from sqlite_utils import Database

from .clock import iso_timestamp, utcnow
from .errors import IdempotencyKeyReused, StoreError, StreamExists, VersionConflict
from .hashing import GENESIS, same_events, seal
from .model import AppendResult, NewEvent, StoredEvent, StreamInfo

SYNCHRONOUS_LEVELS = ("OFF", "NORMAL", "FULL", "EXTRA")
BUSY_TIMEOUT_SECONDS = 30.0
MAX_HEADS = 100_000  # stream heads the writer remembers
MAX_BATCH = 256
"""The most appends one commit takes; more wait for the next one."""

EVENT_COLUMNS = ("stream_id", "version", "type", "data", "by", "at", "prev_hash", "hash")
SELECT_EVENTS = f"SELECT {', '.join(EVENT_COLUMNS)} FROM events"
INSERT_EVENT = f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
SELECT_STREAMS = "SELECT stream_id, version, created_at, meta, last_type FROM streams"

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], Any]


class _Job(msgspec.Struct):
    """One unit of the writer's work (an append) and the future its caller waits on."""

    doing: str
    work: Work
    future: Future[Any]


class SqliteEventStore:
    """An append-only log of streams of events in one SQLite database, with group commit."""

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
        in_memory = str(path) == ":memory:"
        with self._lock, _translated(f"cannot open the event store at {str(path)!r}"):
            self._conn = _connect(path)
            self._configure(self._conn, level, in_memory=in_memory)
            self._create_schema()
            self._reader = self._conn if in_memory else _connect(path)
            self._configure(self._reader, level, in_memory=True)
        self._read_lock = self._lock if in_memory else threading.Lock()
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._closed = False
        self._closing = threading.Lock()
        self._counts = {"appends": 0, "commits": 0, "largest_batch": 0}
        # The writer's memory of each stream's head (version, hash) as committed, so an append
        # at the expected version skips two reads; an append by another process makes the
        # insert collide with the primary key, which forgets the entry and reports the conflict.
        self._heads: dict[str, tuple[int, str]] = {}
        self._new_heads: dict[str, tuple[int, str]] = {}  # this batch's, kept on commit
        self._writer = threading.Thread(target=self._write_batches, daemon=True, name="store")
        self._writer.start()

    @staticmethod
    def _configure(conn: sqlite3.Connection, synchronous: str, *, in_memory: bool) -> None:
        """Set the journal (WAL for files) and the durability level."""
        if not in_memory:
            Database(conn).enable_wal()
        conn.execute(f"PRAGMA synchronous={synchronous}")

    def settings(self) -> dict[str, str]:
        """Return the connection's durability settings: journal_mode and synchronous."""
        with self._lock, _translated("cannot read the store's settings"):
            journal = str(self._conn.execute("PRAGMA journal_mode").fetchone()[0])
            level = int(self._conn.execute("PRAGMA synchronous").fetchone()[0])
        return {"journal_mode": journal, "synchronous": SYNCHRONOUS_LEVELS[level]}

    def stats(self) -> dict[str, int]:
        """Return counts since opening: appends, commits, and the largest batch committed."""
        with self._lock:
            return dict(self._counts)

    def _create_schema(self) -> None:
        """Create the tables unless they exist."""
        db = Database(self._conn)
        db.table("streams").create(
            {"stream_id": str, "version": int, "created_at": str, "meta": str, "private": str}
            | {"last_type": str},
            pk="stream_id",
            not_null={"version", "created_at", "meta", "last_type"},
            if_not_exists=True,
            strict=True,
        )
        db.table("events").create(
            {"stream_id": str, "version": int, "type": str, "data": str, "by": "ANY"}
            | {"at": str, "prev_hash": str, "hash": str},
            pk=("stream_id", "version"),
            not_null=set(EVENT_COLUMNS),
            if_not_exists=True,
            strict=True,
        )
        db.table("snapshots").create(
            {"stream_id": str, "version": int, "data": bytes},
            pk=("stream_id", "version"),
            not_null={"stream_id", "version", "data"},
            if_not_exists=True,
            strict=True,
        )
        db.table("idempotency").create(
            {"stream_id": str, "key": str, "first_version": int, "last_version": int},
            pk=("stream_id", "key"),
            not_null={"stream_id", "key", "first_version", "last_version"},
            if_not_exists=True,
            strict=True,
        )

    # writing

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
        key = idempotency_key
        job = self._queue_append(stream_id, events, expected_version, key, meta, private)
        result: AppendResult = job.result()
        return result

    async def append_async(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        idempotency_key: str | None = None,
    ) -> AppendResult:
        """``append`` awaited: the writer thread resolves the task when the batch has committed."""
        job = self._queue_append(stream_id, events, expected_version, idempotency_key, None, None)
        result: AppendResult = await asyncio.wrap_future(job)
        return result

    def _queue_append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected: int,
        key: str | None,
        meta: dict[str, Any] | None,
        private: dict[str, Any] | None,
    ) -> Future[Any]:
        """Queue one append for the writer; the future resolves once its batch has committed."""
        if not events:
            raise ValueError(f"append to stream {stream_id!r} needs at least one event")

        def work(conn: sqlite3.Connection) -> AppendResult:
            return self._append(conn, stream_id, events, expected, key, meta, private)

        return self._enqueue(f"cannot append to stream {stream_id!r}", work)

    def _submit(self, doing: str, work: Work) -> Any:
        """Queue work for the writer and wait until its batch has committed."""
        return self._enqueue(doing, work).result()

    def _enqueue(self, doing: str, work: Work) -> Future[Any]:
        """Queue work for the writer; the future resolves once its batch has committed."""
        job = _Job(doing, work, Future())
        with self._closing:
            if self._closed:
                raise StoreError(f"{doing}: the store is closed")
            self._queue.put(job)
        return job.future

    def _write_batches(self) -> None:
        """The writer thread: commit whatever is queued as one batch, until closed."""
        while (first := self._queue.get()) is not None:
            batch, stop = [first], False
            while len(batch) < MAX_BATCH:
                try:
                    job = self._queue.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    stop = True
                    break
                batch.append(job)
            self._commit(batch)
            if stop:
                return

    def _commit(self, batch: list[_Job]) -> None:
        """Run every job in one transaction, each in its own savepoint; resolve the futures."""
        with self._lock:
            outcomes = self._run_batch(batch)
        for job, (ok, value) in zip(batch, outcomes, strict=True):
            if ok:
                job.future.set_result(value)
            else:
                job.future.set_exception(value)

    def _run_batch(self, batch: list[_Job]) -> list[tuple[bool, Any]]:
        """Begin, run the jobs, commit; a failed begin or commit fails every job."""
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            return [(False, StoreError(f"{job.doing}: {exc}")) for job in batch]
        outcomes = [self._run_job(job) for job in batch]
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            conn.rollback()
            self._new_heads.clear()
            return [(False, StoreError(f"{job.doing}: commit failed: {exc}")) for job in batch]
        if len(self._heads) > MAX_HEADS:  # a cache: forgetting costs two reads per stream
            self._heads.clear()
        self._heads.update(self._new_heads)
        self._new_heads.clear()
        self._count(batch, outcomes)
        return outcomes

    def _run_job(self, job: _Job) -> tuple[bool, Any]:
        """Run one job inside a savepoint; on error roll back to it, so it writes nothing."""
        conn = self._conn
        conn.execute("SAVEPOINT job")
        try:
            value = job.work(conn)
        except Exception as exc:
            conn.execute("ROLLBACK TO job")
            conn.execute("RELEASE job")
            return False, _as_store_error(job.doing, exc)
        conn.execute("RELEASE job")
        return True, value

    def _count(self, batch: list[_Job], outcomes: list[tuple[bool, Any]]) -> None:
        """Update the counters after a commit."""
        self._counts["appends"] += sum(ok for ok, _ in outcomes)
        self._counts["commits"] += 1
        self._counts["largest_batch"] = max(self._counts["largest_batch"], len(batch))

    def _append(
        self,
        conn: sqlite3.Connection,
        stream_id: str,
        events: Sequence[NewEvent],
        expected: int,
        key: str | None,
        meta: dict[str, Any] | None,
        private: dict[str, Any] | None,
    ) -> AppendResult:
        """One append inside the batch's transaction: idempotency, version check, insert."""
        if key is not None:
            earlier = _earlier(conn, stream_id, key, events)
            if earlier is not None:
                return earlier
        head = self._heads.get(stream_id)
        if head is None or head[0] != expected:
            current = _version(conn, stream_id)
            _check_version(stream_id, expected, current)
            head = (current, _head_hash(conn, stream_id, current))
        at = iso_timestamp(self._clock())
        stored = seal(stream_id, events, head[0], head[1], at)
        try:
            _write(conn, stored, key, meta, private)
        except sqlite3.IntegrityError as exc:  # another process appended: the cached head is old
            self._heads.pop(stream_id, None)
            raise VersionConflict(stream_id, expected, _stored_version(conn, stream_id)) from exc
        self._new_heads[stream_id] = (stored[-1].version, stored[-1].hash)
        return AppendResult(events=stored, replayed=False)

    def save_snapshot(self, stream_id: str, version: int, data: bytes) -> None:
        """Store derived data about a stream at a version (replacing any already there)."""

        def work(conn: sqlite3.Connection) -> None:
            sql = "INSERT OR REPLACE INTO snapshots (stream_id, version, data) VALUES (?, ?, ?)"
            conn.execute(sql, (stream_id, version, data))

        self._submit(f"cannot save a snapshot of stream {stream_id!r}", work)

    def drop_snapshots(self, stream_id: str | None = None) -> None:
        """Delete the snapshots of one stream, or of every stream (they can be rebuilt)."""

        def work(conn: sqlite3.Connection) -> None:
            if stream_id is None:
                conn.execute("DELETE FROM snapshots")
            else:
                conn.execute("DELETE FROM snapshots WHERE stream_id = ?", (stream_id,))

        self._submit("cannot drop snapshots", work)

    # reading

    def load_snapshot(self, stream_id: str, at_most: int) -> tuple[int, bytes] | None:
        """Return the latest snapshot of a stream at or before version at_most, or None."""
        sql = (
            "SELECT version, data FROM snapshots WHERE stream_id = ? AND version <= ?"
            " ORDER BY version DESC LIMIT 1"
        )
        with self._reading(f"cannot read snapshots of stream {stream_id!r}") as conn:
            row = conn.execute(sql, (stream_id, at_most)).fetchone()
        return None if row is None else (int(row[0]), bytes(row[1]))

    @contextmanager
    def _reading(self, doing: str) -> Iterator[sqlite3.Connection]:
        """The read connection, locked, with errors translated."""
        with self._read_lock, _translated(doing):
            yield self._reader

    def read(
        self, stream_id: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Return a stream's events with after < version <= until, oldest first, at most limit."""
        with self._reading(f"cannot read stream {stream_id!r}") as conn:
            return _read(conn, stream_id, after, until, limit)

    def version(self, stream_id: str) -> int:
        """Return a stream's current version, 0 when it does not exist."""
        with self._reading(f"cannot read stream {stream_id!r}") as conn:
            return _version(conn, stream_id)

    def lookup(self, stream_id: str, idempotency_key: str) -> AppendResult | None:
        """Return the earlier result for an idempotency key (replayed=True), or None if unused."""
        with self._reading(f"cannot read stream {stream_id!r}") as conn:
            earlier = _keyed_events(conn, stream_id, idempotency_key)
        return None if earlier is None else AppendResult(events=earlier, replayed=True)

    def private(self, stream_id: str) -> dict[str, Any] | None:
        """Return the private record stored at creation, or None (no stream, or none given)."""
        with self._reading(f"cannot read stream {stream_id!r}") as conn:
            sql = "SELECT private FROM streams WHERE stream_id = ?"
            row = conn.execute(sql, [stream_id]).fetchone()
        return None if row is None or row[0] is None else _decode(row[0])

    def streams(self) -> list[StreamInfo]:
        """Return every stream, oldest first."""
        with self._reading("cannot list streams") as conn:
            rows = conn.execute(f"{SELECT_STREAMS} ORDER BY rowid").fetchall()
        return [_stream_info(row) for row in rows]

    def stream(self, stream_id: str) -> StreamInfo | None:
        """Return one stream's summary, or None when it does not exist."""
        with self._reading(f"cannot read stream {stream_id!r}") as conn:
            row = conn.execute(f"{SELECT_STREAMS} WHERE stream_id = ?", [stream_id]).fetchone()
        return None if row is None else _stream_info(row)

    # closing

    def close(self) -> None:
        """Let the writer finish what is queued, then close the connections."""
        with self._closing:
            if not self._closed:
                self._closed = True
                self._queue.put(None)
        if threading.current_thread() is not self._writer:
            self._writer.join()
        with self._lock:
            self._conn.close()
        with self._read_lock:
            self._reader.close()

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


def _connect(path: str | Path) -> sqlite3.Connection:
    """Open a connection in autocommit mode (transactions are begun explicitly)."""
    return sqlite3.connect(
        str(path), timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False, isolation_level=None
    )


@contextmanager
def _translated(doing: str) -> Iterator[None]:
    """Turn sqlite3 errors escaping a block into StoreError, naming what was being done."""
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreError(f"{doing}: {exc}") from exc


def _as_store_error(doing: str, exc: Exception) -> Exception:
    """A job's error as its caller should see it: database errors become StoreError."""
    if isinstance(exc, sqlite3.Error):
        error = StoreError(f"{doing}: {exc}")
        error.__cause__ = exc
        return error
    return exc


def _check_version(stream_id: str, expected: int, actual: int) -> None:
    """Raise a conflict unless the stream is at the expected version."""
    if expected == 0 and actual > 0:
        raise StreamExists(stream_id, actual)
    if expected != actual:
        raise VersionConflict(stream_id, expected, actual)


def _earlier(
    conn: sqlite3.Connection, stream_id: str, key: str, events: Sequence[NewEvent]
) -> AppendResult | None:
    """Return the first result for a used key, or None; a key used for other events errs."""
    earlier = _keyed_events(conn, stream_id, key)
    if earlier is None:
        return None
    if not same_events(events, earlier):
        raise IdempotencyKeyReused(stream_id, key)
    return AppendResult(events=earlier, replayed=True)


def _write(
    conn: sqlite3.Connection,
    stored: tuple[StoredEvent, ...],
    key: str | None,
    meta: dict[str, Any] | None,
    private: dict[str, Any] | None,
) -> None:
    """Insert the events and move the stream (creating it) and the key to them."""
    first, last = stored[0], stored[-1]
    if first.version == 1:
        conn.execute(
            "INSERT INTO streams (stream_id, version, created_at, meta, private, last_type)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                last.stream_id,
                last.version,
                first.at,
                _encode(meta or {}),
                _encode_optional(private),
                last.type,
            ),
        )
    else:
        conn.execute(
            "UPDATE streams SET version = ?, last_type = ? WHERE stream_id = ? AND version = ?",
            (last.version, last.type, last.stream_id, first.version - 1),
        )
    conn.executemany(INSERT_EVENT, [_event_row(event) for event in stored])
    if key is not None:
        conn.execute(
            "INSERT INTO idempotency (stream_id, key, first_version, last_version)"
            " VALUES (?, ?, ?, ?)",
            (last.stream_id, key, first.version, last.version),
        )


def _read(
    conn: sqlite3.Connection, stream_id: str, after: int, until: int | None, limit: int | None
) -> list[StoredEvent]:
    """Select events of a stream in a version range."""
    sql = f"{SELECT_EVENTS} WHERE stream_id = ? AND version > ?"
    params: list[Any] = [stream_id, after]
    if until is not None:
        sql, params = f"{sql} AND version <= ?", [*params, until]
    sql += " ORDER BY version"
    if limit is not None:
        sql, params = f"{sql} LIMIT ?", [*params, limit]
    return [_stored_event(row) for row in conn.execute(sql, params).fetchall()]


def _version(conn: sqlite3.Connection, stream_id: str) -> int:
    """Select a stream's current version, 0 when absent."""
    row = conn.execute("SELECT version FROM streams WHERE stream_id = ?", [stream_id]).fetchone()
    return 0 if row is None else int(row[0])


def _stored_version(conn: sqlite3.Connection, stream_id: str) -> int:
    """Select the highest version actually stored in a stream's events."""
    sql = "SELECT max(version) FROM events WHERE stream_id = ?"
    return int(conn.execute(sql, [stream_id]).fetchone()[0] or 0)


def _head_hash(conn: sqlite3.Connection, stream_id: str, version: int) -> str:
    """Select the hash of a stream's event at version (GENESIS before the first)."""
    if version == 0:
        return GENESIS
    sql = "SELECT hash FROM events WHERE stream_id = ? AND version = ?"
    return str(conn.execute(sql, [stream_id, version]).fetchone()[0])


def _keyed_events(
    conn: sqlite3.Connection, stream_id: str, key: str
) -> tuple[StoredEvent, ...] | None:
    """Select the events an idempotency key appended, or None if unused."""
    sql = "SELECT first_version, last_version FROM idempotency WHERE stream_id = ? AND key = ?"
    row = conn.execute(sql, [stream_id, key]).fetchone()
    if row is None:
        return None
    return tuple(_read(conn, stream_id, int(row[0]) - 1, int(row[1]), None))


def _encode(value: Any) -> str:
    """Encode a value as JSON text."""
    return msgspec.json.encode(value).decode()


def _encode_optional(value: dict[str, Any] | None) -> str | None:
    """Encode a value as JSON text, keeping None as SQL NULL."""
    return None if value is None else _encode(value)


def _decode(text: str) -> dict[str, Any]:
    """Decode a JSON object."""
    return msgspec.json.decode(text, type=dict[str, Any])


def _event_row(event: StoredEvent) -> tuple[Any, ...]:
    """Turn a stored event into a row of the events table."""
    return (
        event.stream_id,
        event.version,
        event.type,
        _encode(event.data),
        event.by,
        event.at,
        event.prev_hash,
        event.hash,
    )


def _stored_event(row: Sequence[Any]) -> StoredEvent:
    """Turn a row of the events table into a stored event."""
    stream_id, version, type_, data, by, at, prev_hash, hash_ = row
    return StoredEvent(stream_id, version, type_, _decode(data), by, at, prev_hash, hash_)


def _stream_info(row: Sequence[Any]) -> StreamInfo:
    """Turn a row of the streams table into a stream summary."""
    stream_id, version, created_at, meta, last_type = row
    return StreamInfo(stream_id, version, created_at, _decode(meta), last_type)

"""The event store on SQLite, through sqlite-utils (its reads are shared with PostgreSQL: sql.py).

The store composes three parts: its writer thread (sqlite_writer.py: the queue, batches,
savepoints and faults), its announcer (sqlite_announce.py) and its files (sqlite_files.py).

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

Idempotency keys: an append with a key looks it up inside its savepoint, so of several
appends with one key, in one batch or racing from other processes, the first writes and the
others replay it or raise ``IdempotencyKeyReused``. A key older than ``idempotency_ttl`` (by
the store's clock) counts as unused; the append that uses it again replaces its row.

Deadlines: every append writes the stream's ``deadline`` in the statement that moves the
stream (``INSERT``/``UPDATE streams``), so it costs no statement of its own.

Announcing: ``subscribe(stream_id, wake)`` calls ``wake`` from the writer thread after each
committed batch that appended to the stream (never for a failed or replayed append), so a
reader woken reads what was committed. Other processes writing the same file are seen by the
writer's look between batches and at least every ``WATCH_SECONDS`` (25 ms): ``PRAGMA
data_version`` says whether another connection committed, and then the events added since
the last look (a range of ``rowid``) name the streams moved and how far, whose subscribers
alone are woken. Subscribers should still read now and then (the service's streams do,
slowly). Writers of several processes take turns through the file lock beside the database
(sqlite_interlock.py) instead of sleeping in SQLite's busy handler. ``wake`` must be quick
and must not block; an exception from it is swallowed, so a broken subscriber cannot stop
the writer or the other subscribers.

Faults (see faults.py): the writer survives any error of a job. A job that fails rolls back
to its savepoint; when SQLite has rolled the whole transaction back itself (a full disk or an
I/O error in the middle of a statement), the failed job gets its error and the others of the
batch are run again in a new transaction. A failed commit fails every job of its batch. A
database error that is a fault of the machine (full disk, I/O error, read-only, busy beyond
the busy timeout, a damaged file) reaches the caller as ``StoreUnavailable`` with its kind.

The file: at each batch, before it begins and after it commits, the writer compares the
database file and its ``-wal`` and ``-shm`` with the files it opened (device and inode of the
path). A file deleted or replaced under the store is ``file-gone``: every write is refused
from then on (reads go on from the open files) until the store is opened again. A new
database gets a marker beside it (``<file>.marker``); opening a path whose marker is there
but whose database is not refuses (``StoreError``) instead of making a new, empty one.

Errors (see errors.py): ``VersionConflict`` (``StreamExists``), ``IdempotencyKeyReused``,
``StoreUnavailable`` for a fault, and ``StoreError`` for any other database failure,
including an append to a closed store.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from . import derived, sql
from .clock import canonical_timestamp, iso_timestamp, utcnow
from .commits import CommitSizes
from .derived import DerivedRow, Drop
from .errors import StoreError, VersionConflict
from .faults import FaultTally
from .hashing import GENESIS, seal
from .model import Appending, AppendResult, StoredEvent, Summary
from .sql import SQLITE, SqlStore
from .sqlite_announce import Announcer, Wake
from .sqlite_files import Files
from .sqlite_interlock import Interlock
from .sqlite_writer import Work, Writer, translated

SYNCHRONOUS_LEVELS = ("OFF", "NORMAL", "FULL", "EXTRA")
BUSY_TIMEOUT_SECONDS = 30.0


class SqliteEventStore(SqlStore):
    """An append-only log of streams of events in one SQLite database, with group commit:
    the writer thread (sqlite_writer.py) commits, the announcer (sqlite_announce.py) wakes
    subscribers, the files (sqlite_files.py) are watched."""

    dialect = SQLITE

    def __init__(
        self,
        path: str | Path = "tabula.db",
        *,
        synchronous: str = "FULL",
        clock: Callable[[], datetime] = utcnow,
        idempotency_ttl: float = 86400.0,
    ) -> None:
        """Open (or create, or upgrade) the database at path; ":memory:" gives a private
        in-memory one. Idempotency keys older than idempotency_ttl seconds count as unused."""
        level = synchronous.upper()
        if level not in SYNCHRONOUS_LEVELS:
            raise ValueError(
                f"synchronous must be one of {SYNCHRONOUS_LEVELS}, not {synchronous!r}"
            )
        self._clock = clock
        self._idempotency_ttl = sql.check_ttl(idempotency_ttl)
        self._lock = threading.Lock()
        self._faults = FaultTally()
        in_memory = str(path) == ":memory:"
        self._files = None if in_memory else Files(Path(path))
        opening = f"cannot open the event store at {str(path)!r}"
        with self._lock, self._translated(opening):
            if self._files is not None:
                self._files.check_not_lost()
            interlock = None if in_memory else _interlock(Path(path), opening)
            try:
                with interlock or nullcontext():  # processes opening one new file: in turn
                    conn = _connect(path)
                    self._configure(conn, level, in_memory=in_memory)
                    _create_schema(conn, self._clock())
                self._reader = conn if in_memory else _connect(path)
                self._configure(self._reader, level, in_memory=True)
            except BaseException:
                if interlock is not None:
                    interlock.close()
                raise
            if self._files is not None:
                self._files.opened()
        self._read_lock = self._lock if in_memory else threading.Lock()
        self._announcer = Announcer()
        self._writer = Writer(
            conn,
            self._lock,
            files=self._files,
            faults=self._faults,
            announcer=self._announcer,
            interlock=interlock,  # None in memory, where no other process writes
        )
        self._heads = self._writer.heads

    @staticmethod
    def _configure(conn: sqlite3.Connection, synchronous: str, *, in_memory: bool) -> None:
        """Set the journal (WAL for files) and the durability level."""
        if not in_memory:
            Database(conn).enable_wal()
        conn.execute(f"PRAGMA synchronous={synchronous}")

    def settings(self) -> dict[str, str]:
        """Return the connection's durability settings: journal_mode and synchronous."""
        with self._lock, self._translated("cannot read the store's settings"):
            conn = self._writer.conn
            journal = str(conn.execute("PRAGMA journal_mode").fetchone()[0])
            level = int(conn.execute("PRAGMA synchronous").fetchone()[0])
        return {"journal_mode": journal, "synchronous": SYNCHRONOUS_LEVELS[level]}

    def stats(self) -> dict[str, int]:
        """Return counts since opening: appends, commits, and the largest batch committed."""
        return self._writer.stats()

    def commit_sizes(self) -> CommitSizes:
        """Return how many events each commit appended, in buckets (see commits.py)."""
        return self._writer.commits.sizes()

    def faults(self) -> dict[str, int]:
        """Return how many operations a fault refused since opening, by kind."""
        return self._faults.counts()

    def readiness(self) -> dict[str, str]:
        """Whether writes can be taken: ``writer``, ``file``, ``disk`` and ``database``, each
        ``ok`` or the kind of fault that stops writes."""
        recent = self._faults.recent_write_fault()
        gone = self._files is not None and self._files.gone() is not None
        return {
            "writer": "ok" if self._writer.is_alive() else "writer-stopped",
            "file": "file-gone" if gone else "ok",
            "disk": "disk-full" if self._files is not None and self._files.full(recent) else "ok",
            "database": recent if recent not in (None, "disk-full", "file-gone") else "ok",
        }

    # writing

    def append(self, appending: Appending) -> AppendResult:
        """Append events to a stream at its expected version (0 creates it), in one transaction."""
        job = self._append_job(sql.request(appending))
        result: AppendResult = self._writer.enqueue(*job).result()
        return result

    async def append_async(self, appending: Appending) -> AppendResult:
        """``append`` awaited: the writer thread resolves the task when the batch has committed."""
        job = self._append_job(sql.request(appending))
        result: AppendResult = await self._writer.enqueue_awaited(*job)
        return result

    def append_batch(self, appends: Sequence[Appending]) -> list[AppendResult]:
        """Several appends as one job of the writer: one savepoint, so all or none."""
        asked = sql.requests(appends)
        ids = [a.stream_id for a in asked]

        def work(conn: sqlite3.Connection) -> list[AppendResult]:
            with self._heads.undone_on_error(ids):  # rolled back to the savepoint: so are they
                return [self._append(conn, a) for a in asked]

        result: list[AppendResult] = self._submit(f"cannot append a batch of {len(ids)}", work)
        return result

    def _append_job(self, asked: Appending) -> tuple[str, Work]:
        """One append as the writer's job: what it is doing (for its errors) and its work."""

        def work(conn: sqlite3.Connection) -> AppendResult:
            return self._append(conn, asked)

        return f"cannot append to stream {asked.stream_id!r}", work

    def _submit(self, doing: str, work: Work) -> Any:
        """Queue work for the writer and wait until its batch has committed."""
        return self._writer.submit(doing, work)

    def _append(self, conn: sqlite3.Connection, asked: Appending) -> AppendResult:
        """One append inside the batch's transaction: idempotency, version check, insert."""
        stream_id, expected = asked.stream_id, asked.expected_version
        now = self._clock()
        replayed, replaces = sql.check_key(conn, SQLITE, asked, now, self._idempotency_ttl)
        if replayed is not None:
            return replayed
        head = self._heads.committed.get(stream_id)
        if head is None or head[0] != expected:
            current = sql.stream_version(conn, SQLITE, stream_id)
            sql.check_version(stream_id, expected, current)
            head = (current, _head_hash(conn, stream_id, current))
        stored = seal(stream_id, asked.events, head[0], head[1], iso_timestamp(now))
        try:
            _write(conn, asked, stored, replaces)
        except sqlite3.IntegrityError as exc:  # another process appended: the cached head is old
            self._heads.committed.pop(stream_id, None)
            raise VersionConflict(stream_id, expected, _stored_version(conn, stream_id)) from exc
        self._heads.pending[stream_id] = (stored[-1].version, stored[-1].hash)
        return AppendResult(events=stored, replayed=False)

    def save_snapshot(self, stream_id: str, version: int, data: bytes) -> None:
        """Store derived data about a stream at a version (replacing any already there)."""

        def work(conn: sqlite3.Connection) -> None:
            query = "INSERT OR REPLACE INTO snapshots (stream_id, version, data) VALUES (?, ?, ?)"
            conn.execute(query, (stream_id, version, data))

        self._submit(f"cannot save a snapshot of stream {stream_id!r}", work)

    def save_summary(self, stream_id: str, version: int, summary: Summary, updated_at: str) -> bool:
        """Write a stream's summary if the stream is still at ``version``; whether it was."""
        updated_at = canonical_timestamp(updated_at)

        def work(conn: sqlite3.Connection) -> bool:
            if sql.stream_version(conn, SQLITE, stream_id) != version or version == 0:
                return False
            sql.write_summary(conn, SQLITE, stream_id, summary, updated_at)
            return True

        saved: bool = self._submit(f"cannot save the summary of stream {stream_id!r}", work)
        return saved

    def derived_save(
        self,
        name: str,
        expected: int,
        position: int,
        rows: Sequence[DerivedRow] = (),
        drops: Sequence[Drop] = (),
    ) -> bool:
        """Move mark ``name`` from ``expected`` to ``position`` and write derived rows, in one
        transaction; False (nothing written) if the mark was not at ``expected``."""

        def work(conn: sqlite3.Connection) -> bool:
            return derived.save(conn, "?", "text", name, expected, position, rows, drops)

        saved: bool = self._submit("cannot save derived data", work)
        return saved

    def drop_summaries(self) -> None:
        """Delete every summary (derived data: the caller rebuilds them from the logs)."""
        self._submit("cannot drop summaries", sql.drop_summaries)

    def drop_snapshots(self, stream_id: str | None = None) -> None:
        """Delete the snapshots of one stream, or of every stream (they can be rebuilt)."""

        def work(conn: sqlite3.Connection) -> None:
            if stream_id is None:
                conn.execute("DELETE FROM snapshots")
            else:
                conn.execute("DELETE FROM snapshots WHERE stream_id = ?", (stream_id,))

        self._submit("cannot drop snapshots", work)

    # announcing

    def subscribe(self, stream_id: str, wake: Wake) -> Callable[[], None]:
        """Call ``wake`` (from the writer thread) after each committed batch that appended to
        the stream; return the function that ends the subscription.

        Appends by other processes on the same file are not announced: read now and then.
        """
        return self._announcer.subscribe(stream_id, wake)

    # reading

    @contextmanager
    def _reading(self, doing: str) -> Iterator[sqlite3.Connection]:
        """The read connection, locked, with errors translated."""
        with self._read_lock, self._translated(doing):
            yield self._reader

    def _translated(self, doing: str) -> AbstractContextManager[None]:
        """Turn sqlite3 errors escaping a block into StoreUnavailable or StoreError."""
        return translated(self._faults, self._files, doing)

    # closing

    def close(self) -> None:
        """Let the writer finish what is queued, then close the connections."""
        self._writer.close()
        with self._read_lock:
            self._reader.close()


def _interlock(path: Path, doing: str) -> Interlock:
    """The file lock beside the database (a folder that cannot hold it: ``StoreError``)."""
    try:
        return Interlock(path)
    except OSError as error:
        raise StoreError(f"{doing}: {error.strerror}") from error


def _create_schema(conn: sqlite3.Connection, now: datetime) -> None:
    """Create the tables unless they exist; upgrade those an earlier schema made."""
    db = Database(conn)
    db.table("streams").create(
        {"stream_id": str, "version": int, "created_at": str, "meta": str, "private": str}
        | {"last_type": str, "deadline": str},
        pk="stream_id",
        not_null={"version", "created_at", "meta", "last_type"},
        if_not_exists=True,
        strict=True,
    )
    db.table("events").create(
        {"stream_id": str, "version": int, "type": str, "data": str, "by": "ANY"}
        | {"at": str, "prev_hash": str, "hash": str},
        pk=("stream_id", "version"),
        not_null=set(sql.EVENT_COLUMNS),
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
        {"stream_id": str, "key": str, "first_version": int, "last_version": int}
        | {"fingerprint": str, "created_at": str},
        pk=("stream_id", "key"),
        not_null=set(sql.KEY_COLUMNS),
        defaults={"fingerprint": "", "created_at": ""},
        if_not_exists=True,
        strict=True,
    )
    conn.execute("BEGIN IMMEDIATE")  # one process upgrades, the others then see it
    try:
        sql.upgrade(conn, SQLITE)
        sql.migrate(conn, SQLITE, iso_timestamp(now))
    except BaseException:
        conn.rollback()
        raise
    conn.execute("COMMIT")


def _connect(path: str | Path) -> sqlite3.Connection:
    """Open a connection in autocommit mode (transactions are begun explicitly)."""
    return sqlite3.connect(
        str(path), timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False, isolation_level=None
    )


INSERT_STREAM = (
    "INSERT INTO streams (stream_id, version, created_at, meta, private, last_type, deadline)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
UPDATE_STREAM = (
    "UPDATE streams SET version = ?, last_type = ?, deadline = ?"
    " WHERE stream_id = ? AND version = ?"
)


def _write(
    conn: sqlite3.Connection, asked: Appending, stored: tuple[StoredEvent, ...], replaces: bool
) -> None:
    """Insert the events, move the stream (creating it) and its deadline, write its summary
    when given, store the key (replacing its expired row when ``replaces``)."""
    first, last = stored[0], stored[-1]
    if first.version == 1:
        created = (last.stream_id, last.version, first.at, sql.encode(asked.meta or {}))
        conn.execute(
            INSERT_STREAM, (*created, sql.encode_optional(asked.private), last.type, asked.deadline)
        )
    else:
        moved = (last.version, last.type, asked.deadline, last.stream_id, first.version - 1)
        conn.execute(UPDATE_STREAM, moved)
    conn.executemany(sql.INSERT_EVENT, [sql.event_row(SQLITE, event) for event in stored])
    if asked.summary is not None:
        sql.write_summary(conn, SQLITE, last.stream_id, asked.summary, last.at)
    if (key := asked.idempotency_key) is not None:
        statement = sql.REPLACE_KEY if replaces else sql.INSERT_KEY
        conn.execute(statement, sql.key_row(stored, key, asked.fingerprint))


def _stored_version(conn: sqlite3.Connection, stream_id: str) -> int:
    """Select the highest version actually stored in a stream's events."""
    query = "SELECT max(version) FROM events WHERE stream_id = ?"
    return int(conn.execute(query, [stream_id]).fetchone()[0] or 0)


def _head_hash(conn: sqlite3.Connection, stream_id: str, version: int) -> str:
    """Select the hash of a stream's event at version (GENESIS before the first)."""
    if version == 0:
        return GENESIS
    query = "SELECT hash FROM events WHERE stream_id = ? AND version = ?"
    return str(conn.execute(query, [stream_id, version]).fetchone()[0])

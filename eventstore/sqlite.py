"""The event store on SQLite, through sqlite-utils (its reads are shared with PostgreSQL: sql.py).

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
reader woken reads what was committed. Other processes writing the same file cannot tell this
one which streams they appended to: the writer looks at ``PRAGMA data_version`` about every
``WATCH_SECONDS`` (one statement, whatever the number of subscribers), and when another
connection has committed (or checkpointed) it wakes every subscriber, who then read their
streams again. So an append by another process is seen within about a second, at the cost
of spurious wake-ups while it writes; subscribers should still read now and then (the
service's streams do, slowly). ``wake`` must be quick and must not block; an exception from
it is swallowed, so a broken subscriber cannot stop the writer or the other subscribers.

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

import asyncio
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import contextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import msgspec
from sqlite_utils import Database

from . import derived, sql
from .clock import canonical_timestamp, iso_timestamp, utcnow
from .commits import CommitSizes, CommitTally
from .derived import DerivedRow, Drop
from .errors import StoreError, StoreUnavailable, VersionConflict
from .faults import FaultTally, sqlite_kind
from .hashing import GENESIS, seal
from .model import Appending, AppendResult, NewEvent, StoredEvent, Summary
from .sql import SQLITE, SqlStore

SYNCHRONOUS_LEVELS = ("OFF", "NORMAL", "FULL", "EXTRA")
BUSY_TIMEOUT_SECONDS = 30.0
MAX_HEADS = 100_000  # stream heads the writer remembers
MAX_BATCH = 256
"""The most appends one commit takes; more wait for the next one."""
WATCH_SECONDS = 1.0
"""How often the writer looks for commits of other processes (to wake subscribers)."""
MARKER_SUFFIX = ".marker"
MARKER_TEXT = """This file marks that {name} beside it holds a Tabula event store.
While this file is here, Tabula refuses to start on a missing {name} instead of
making a new, empty database: restore {name} from a backup, or delete this file to
start afresh with no games.
"""
LOW_DISK_BYTES = 64 * 1024
"""Free space below which the store is not ready for writes."""
FREED_BYTES = 1024 * 1024
"""Space that must come free after a full disk before the store says it is ready again."""


T = TypeVar("T")
Work = Callable[[sqlite3.Connection], Any]
Wake = Callable[[int | None], None]
"""Told the version a stream reached (None: unknown, another process appended)."""


class _Job(msgspec.Struct):
    """One unit of the writer's work (an append) and the future its caller waits on."""

    doing: str
    work: Work
    future: Future[Any]


class SqliteEventStore(SqlStore):
    """An append-only log of streams of events in one SQLite database, with group commit."""

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
        self._files = None if in_memory else _Files(Path(path))
        with self._lock, self._translated(f"cannot open the event store at {str(path)!r}"):
            if self._files is not None:
                self._files.check_not_lost()
            self._conn = _connect(path)
            self._configure(self._conn, level, in_memory=in_memory)
            self._create_schema()
            self._reader = self._conn if in_memory else _connect(path)
            self._configure(self._reader, level, in_memory=True)
            if self._files is not None:
                self._files.opened()
        self._read_lock = self._lock if in_memory else threading.Lock()
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._closed = False
        self._closing = threading.Lock()
        self._counts = {"appends": 0, "commits": 0, "largest_batch": 0}
        self._commits = CommitTally()  # events per commit, for the service's metrics
        # The writer's memory of each stream's head (version, hash) as committed, so an append
        # at the expected version skips two reads; an append by another process makes the
        # insert collide with the primary key, which forgets the entry and reports the conflict.
        self._heads: dict[str, tuple[int, str]] = {}
        self._new_heads: dict[str, tuple[int, str]] = {}  # this batch's, kept on commit
        self._subscribers: dict[str, dict[object, Wake]] = {}  # per stream, by subscription
        self._subscribing = threading.Lock()
        self._watch = not in_memory  # only a file can have other writers
        self._data_version: int | None = None  # the write connection's, when last looked at
        self._watched_at = 0.0
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
        with self._lock, self._translated("cannot read the store's settings"):
            journal = str(self._conn.execute("PRAGMA journal_mode").fetchone()[0])
            level = int(self._conn.execute("PRAGMA synchronous").fetchone()[0])
        return {"journal_mode": journal, "synchronous": SYNCHRONOUS_LEVELS[level]}

    def stats(self) -> dict[str, int]:
        """Return counts since opening: appends, commits, and the largest batch committed."""
        with self._lock:
            return dict(self._counts)

    def commit_sizes(self) -> CommitSizes:
        """Return how many events each commit appended, in buckets (see commits.py)."""
        return self._commits.sizes()

    def faults(self) -> dict[str, int]:
        """Return how many operations a fault refused since opening, by kind."""
        return self._faults.counts()

    def readiness(self) -> dict[str, str]:
        """Whether writes can be taken: ``writer``, ``file``, ``disk`` and ``database``, each
        ``ok`` or the kind of fault that stops writes."""
        recent = self._faults.recent_write_fault()
        gone = self._files is not None and self._files.gone() is not None
        return {
            "writer": "ok" if self._writer.is_alive() and not self._closed else "writer-stopped",
            "file": "file-gone" if gone else "ok",
            "disk": "disk-full" if self._files is not None and self._files.full(recent) else "ok",
            "database": recent if recent not in (None, "disk-full", "file-gone") else "ok",
        }

    def _create_schema(self) -> None:
        """Create the tables unless they exist; upgrade those an earlier schema made."""
        db = Database(self._conn)
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
        self._conn.execute("BEGIN IMMEDIATE")  # one process upgrades, the others then see it
        try:
            sql.upgrade(self._conn, SQLITE)
            sql.migrate(self._conn, SQLITE, iso_timestamp(self._clock()))
        except BaseException:
            self._conn.rollback()
            raise
        self._conn.execute("COMMIT")

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
        fingerprint: str = "",
        deadline: str | None = None,
        summary: Summary | None = None,
    ) -> AppendResult:
        """Append events to a stream at expected_version (0 creates it), in one transaction."""
        asked = sql.request(
            stream_id,
            events,
            expected_version,
            idempotency_key,
            fingerprint=fingerprint,
            deadline=deadline,
            meta=meta,
            private=private,
            summary=summary,
        )
        result: AppendResult = self._queue_append(asked).result()
        return result

    async def append_async(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        idempotency_key: str | None = None,
        *,
        fingerprint: str = "",
        deadline: str | None = None,
        summary: Summary | None = None,
    ) -> AppendResult:
        """``append`` awaited: the writer thread resolves the task when the batch has committed."""
        asked = sql.request(
            stream_id,
            events,
            expected_version,
            idempotency_key,
            fingerprint=fingerprint,
            deadline=deadline,
            summary=summary,
        )
        result: AppendResult = await asyncio.wrap_future(self._queue_append(asked))
        return result

    def append_batch(self, appends: Sequence[Appending]) -> list[AppendResult]:
        """Several appends as one job of the writer: one savepoint, so all or none."""
        asked = sql.requests(appends)
        ids = [a.stream_id for a in asked]

        def work(conn: sqlite3.Connection) -> list[AppendResult]:
            before = {i: self._new_heads[i] for i in ids if i in self._new_heads}
            try:
                return [self._append(conn, a) for a in asked]
            except BaseException:  # rolled back to the job's savepoint: so are its heads
                for i in ids:
                    self._new_heads.pop(i, None)
                self._new_heads.update(before)
                raise

        result: list[AppendResult] = self._submit(f"cannot append a batch of {len(ids)}", work)
        return result

    def _queue_append(self, asked: sql.Append) -> Future[Any]:
        """Queue one append for the writer; the future resolves once its batch has committed."""

        def work(conn: sqlite3.Connection) -> AppendResult:
            return self._append(conn, asked)

        return self._enqueue(f"cannot append to stream {asked.stream_id!r}", work)

    def _submit(self, doing: str, work: Work) -> Any:
        """Queue work for the writer and wait until its batch has committed."""
        return self._enqueue(doing, work).result()

    def _enqueue(self, doing: str, work: Work) -> Future[Any]:
        """Queue work for the writer; the future resolves once its batch has committed."""
        job = _Job(doing, work, Future())
        with self._closing:
            if self._closed:
                raise StoreError(f"{doing}: the store is closed")
            if not self._writer.is_alive():  # not expected: the writer survives every error
                raise self._faults.refused("writer-stopped", doing, "the writer is not running")
            self._queue.put(job)
        return job.future

    def _write_batches(self) -> None:
        """The writer thread: commit whatever is queued as one batch, until closed; between
        batches, look for other processes' commits."""
        while True:
            try:
                first = self._queue.get(timeout=WATCH_SECONDS if self._watch else None)
            except queue.Empty:
                self._look_for_others()
                continue
            if first is None:
                return
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
            try:
                self._commit(batch)
            except BaseException as error:  # whatever it was, the writer goes on
                self._abandon(batch, error)
            if stop:
                return
            if self._watch and time.monotonic() - self._watched_at >= WATCH_SECONDS:
                self._look_for_others()

    def _commit(self, batch: list[_Job]) -> None:
        """Run every job in one transaction, each in its own savepoint; resolve the futures,
        then wake the subscribers of the streams appended to."""
        with self._lock:
            outcomes, appended = self._run_batch(batch)
        for job, (ok, value) in zip(batch, outcomes, strict=True):
            if ok:
                job.future.set_result(value)
            else:
                job.future.set_exception(value)
        self._announce(appended)

    def _abandon(self, batch: list[_Job], error: BaseException) -> None:
        """A batch the writer could not finish: roll back, and answer every job of it not
        answered yet with the error (so no caller waits for ever and nothing stays held)."""
        with suppress(sqlite3.Error):
            if self._conn.in_transaction:
                self._conn.rollback()
        self._new_heads.clear()
        for job in batch:
            if not job.future.done():
                failure = error if isinstance(error, Exception) else StoreError(repr(error))
                job.future.set_exception(self._store_error(job.doing, failure, write=True))

    def _run_batch(self, batch: list[_Job]) -> tuple[list[tuple[bool, Any]], dict[str, int]]:
        """Begin, run the jobs, commit; a failed begin or commit fails every job, a job that
        lost the whole transaction fails alone and the others run again. Returns the outcomes
        and the streams the committed batch appended to."""
        conn = self._conn
        if refused := self._refuse_if_gone(batch):
            return refused, {}
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            return [(False, self._store_error(job.doing, exc, write=True)) for job in batch], {}
        outcomes: list[tuple[bool, Any]] = []
        for index, job in enumerate(batch):
            ok, value = self._run_job(job)
            if not conn.in_transaction:  # SQLite rolled the whole transaction back itself
                self._new_heads.clear()
                lost = (False, value) if not ok else self._lost(job)
                rest = batch[:index] + batch[index + 1 :]
                others, appended = self._run_batch(rest) if rest else ([], {})
                return [*others[:index], lost, *others[index:]], appended
            outcomes.append((ok, value))
        return self._finish(batch, outcomes)

    def _finish(
        self, batch: list[_Job], outcomes: list[tuple[bool, Any]]
    ) -> tuple[list[tuple[bool, Any]], dict[str, int]]:
        """Commit the batch's transaction (a failure fails every job), check the file is
        still the one opened, keep the new heads and count."""
        conn = self._conn
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with suppress(sqlite3.Error):
                if conn.in_transaction:
                    conn.rollback()
            self._new_heads.clear()
            failed = [
                (False, self._store_error(f"{job.doing}: commit failed", exc, write=True))
                for job in batch
            ]
            return failed, {}
        if refused := self._refuse_if_gone(batch, committed=True):
            self._new_heads.clear()
            return refused, {}
        self._faults.wrote()
        if len(self._heads) > MAX_HEADS:  # a cache: forgetting costs two reads per stream
            self._heads.clear()
        appended = {stream: version for stream, (version, _) in self._new_heads.items()}
        self._heads.update(self._new_heads)
        self._new_heads.clear()
        self._count(batch, outcomes)
        return outcomes, appended

    def _run_job(self, job: _Job) -> tuple[bool, Any]:
        """Run one job inside a savepoint; on error roll back to it, so it writes nothing (if
        the rollback itself fails, the whole transaction is rolled back)."""
        conn = self._conn
        try:
            conn.execute("SAVEPOINT job")
            value = job.work(conn)
            conn.execute("RELEASE job")
        except Exception as exc:
            error = self._store_error(job.doing, exc, write=True)
        else:
            return True, value
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK TO job")
                conn.execute("RELEASE job")
        except sqlite3.Error:
            with suppress(sqlite3.Error):
                conn.rollback()
        return False, error

    def _lost(self, job: _Job) -> tuple[bool, Any]:
        """The outcome of a job that ran but whose transaction is gone (not expected: a job
        that succeeds leaves the transaction open)."""
        lost = sqlite3.OperationalError("the transaction was rolled back")
        return False, self._store_error(job.doing, lost, write=True)

    def _refuse_if_gone(
        self, batch: list[_Job], committed: bool = False
    ) -> list[tuple[bool, Any]] | None:
        """Every job refused if the database file is gone or replaced, else None."""
        gone = self._files.gone() if self._files is not None else None
        if gone is None:
            return None
        why = f"{gone} was deleted or replaced" + (" as the batch committed" if committed else "")
        return [
            (False, self._faults.refused("file-gone", job.doing, why, write=True)) for job in batch
        ]

    def _store_error(self, doing: str, exc: Exception, *, write: bool = False) -> Exception:
        """A job's error as its caller should see it: a fault becomes StoreUnavailable (and is
        counted), another database error StoreError; any other error is the job's own."""
        if isinstance(exc, StoreUnavailable):
            return exc
        if isinstance(exc, sqlite3.Error):
            kind = sqlite_kind(exc)
            if kind is not None:
                if kind == "disk-full" and self._files is not None:
                    self._files.filled()
                error: Exception = self._faults.refused(kind, doing, str(exc), write=write)
            else:
                error = StoreError(f"{doing}: {exc}")
            error.__cause__ = exc
            return error
        return exc

    @contextmanager
    def _translated(self, doing: str) -> Iterator[None]:
        """Turn sqlite3 errors escaping a block into StoreUnavailable or StoreError."""
        try:
            yield
        except sqlite3.Error as exc:
            raise self._store_error(doing, exc) from exc

    def _count(self, batch: list[_Job], outcomes: list[tuple[bool, Any]]) -> None:
        """Update the counters after a commit."""
        self._counts["appends"] += sum(ok for ok, _ in outcomes)
        self._counts["commits"] += 1
        self._counts["largest_batch"] = max(self._counts["largest_batch"], len(batch))
        results = [v for ok, value in outcomes if ok for v in _results(value)]
        self._commits.record(sum(len(r.events) for r in results if not r.replayed))

    def _append(self, conn: sqlite3.Connection, asked: sql.Append) -> AppendResult:
        """One append inside the batch's transaction: idempotency, version check, insert."""
        stream_id, expected = asked.stream_id, asked.expected
        now = self._clock()
        replayed, replaces = sql.check_key(conn, SQLITE, asked, now, self._idempotency_ttl)
        if replayed is not None:
            return replayed
        head = self._heads.get(stream_id)
        if head is None or head[0] != expected:
            current = sql.stream_version(conn, SQLITE, stream_id)
            sql.check_version(stream_id, expected, current)
            head = (current, _head_hash(conn, stream_id, current))
        stored = seal(stream_id, asked.events, head[0], head[1], iso_timestamp(now))
        try:
            _write(conn, asked, stored, replaces)
        except sqlite3.IntegrityError as exc:  # another process appended: the cached head is old
            self._heads.pop(stream_id, None)
            raise VersionConflict(stream_id, expected, _stored_version(conn, stream_id)) from exc
        self._new_heads[stream_id] = (stored[-1].version, stored[-1].hash)
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
        token = object()
        with self._subscribing:
            self._subscribers.setdefault(stream_id, {})[token] = wake

        def unsubscribe() -> None:
            with self._subscribing:
                waiting = self._subscribers.get(stream_id, {})
                waiting.pop(token, None)
                if not waiting:
                    self._subscribers.pop(stream_id, None)

        return unsubscribe

    def _look_for_others(self) -> None:
        """Wake every subscriber if another connection committed since the last look (the
        write connection's ``data_version`` changes only for other connections' commits)."""
        self._watched_at = time.monotonic()
        try:
            with self._lock:
                now = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            return  # a passing failure: look again next time
        seen, self._data_version = self._data_version, now
        if seen is not None and seen != now and self._subscribers:
            with self._subscribing:
                streams: dict[str, int | None] = dict.fromkeys(self._subscribers)
            self._announce(streams)

    def _announce(self, appended: Mapping[str, int | None]) -> None:
        """Wake the subscribers of the streams a committed batch appended to, telling each the
        version its stream reached (None when another process committed)."""
        if not appended or not self._subscribers:
            return
        with self._subscribing:
            waiting = [
                (wake, version)
                for stream, version in appended.items()
                for wake in self._subscribers.get(stream, {}).values()
            ]
        for wake, version in waiting:
            with suppress(Exception):  # one broken subscriber must not stop the writer
                wake(version)

    # reading

    @contextmanager
    def _reading(self, doing: str) -> Iterator[sqlite3.Connection]:
        """The read connection, locked, with errors translated."""
        with self._read_lock, self._translated(doing):
            yield self._reader

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


class _Files:
    """The database's files as the store opened them: their identities (device, inode), to
    notice one deleted or replaced, the marker that says a database was made here, and the
    free space of their file system."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.marker = path.with_name(path.name + MARKER_SUFFIX)
        self._opened: dict[str, tuple[int, int]] = {}
        self._free_when_full: int | None = None

    def check_not_lost(self) -> None:
        """Refuse to open a path whose marker says it held a database that is not there."""
        missing = not self.path.exists() or self.path.stat().st_size == 0
        if missing and self.marker.exists():
            raise StoreError(
                f"{self.path} held a Tabula event store (see {self.marker.name}) and is gone or"
                " empty: restore it from a backup, or delete the marker to start afresh"
            )

    def opened(self) -> None:
        """Remember the files as opened, and leave the marker if there is none."""
        for name in ("", "-wal", "-shm"):
            with suppress(OSError):
                found = os.stat(f"{self.path}{name}")
                self._opened[name] = (found.st_dev, found.st_ino)
        if not self.marker.exists():
            with suppress(OSError):  # a read-only directory: no marker, the store still opens
                self.marker.write_text(MARKER_TEXT.format(name=self.path.name), encoding="utf-8")

    def gone(self) -> str | None:
        """The name of a file deleted or replaced since it was opened, or None."""
        for name, identity in self._opened.items():
            try:
                found = os.stat(f"{self.path}{name}")
            except OSError:
                return self.path.name + name
            if (found.st_dev, found.st_ino) != identity:
                return self.path.name + name
        return None

    def free(self) -> int:
        """Bytes free for the store on the file system of the database."""
        try:
            found = os.statvfs(self.path.parent)
        except OSError:
            return 0
        return found.f_bavail * found.f_frsize

    def filled(self) -> None:
        """A write found the disk full: remember how much was free then."""
        self._free_when_full = self.free()

    def full(self, recent_fault: str | None) -> bool:
        """Whether the disk is too full to write: almost no space, or a write recently found
        it full and not enough has come free since."""
        free = self.free()
        if free < LOW_DISK_BYTES:
            return True
        when_full = self._free_when_full
        return (
            recent_fault == "disk-full" and when_full is not None and free < when_full + FREED_BYTES
        )


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
    conn: sqlite3.Connection, asked: sql.Append, stored: tuple[StoredEvent, ...], replaces: bool
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
    if asked.key is not None:
        statement = sql.REPLACE_KEY if replaces else sql.INSERT_KEY
        conn.execute(statement, sql.key_row(stored, asked.key, asked.fingerprint))


def _results(value: Any) -> list[AppendResult]:
    """The append results a job's value holds (a batch's list, one append's result, none)."""
    if isinstance(value, AppendResult):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, AppendResult)]
    return []


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

"""The SQLite store's writer thread: group commit, savepoints and faults.

Callers put their work (an append, a snapshot, a summary) on a queue and wait on a future;
one thread takes everything queued, runs each job inside one ``BEGIN IMMEDIATE ... COMMIT``
under its own ``SAVEPOINT``, and resolves every future after the single commit (one fsync for
the whole batch). A failing job rolls back to its savepoint, writing nothing, and its caller
gets the error while the rest of the batch commits. A lone job is written at once; batches
form by themselves while a commit is in flight. Each transaction is taken under the file's
interlock (sqlite_interlock.py), so writers in other processes hand the file over without
sleeping in SQLite's busy handler. Between batches, and at least every ``WATCH_SECONDS`` while
idle, the writer looks for commits of other processes (sqlite_announce.py ``Others``) and
wakes the subscribers of the streams they moved.

Faults (see faults.py): the writer survives any error of a job. When SQLite has rolled the
whole transaction back itself (a full disk or an I/O error in the middle of a statement), the
failed job gets its error and the others of the batch are run again in a new transaction. A
failed commit fails every job of its batch. A database error that is a fault of the machine
reaches the caller as ``StoreUnavailable`` with its kind; any other as ``StoreError``. Before
each batch begins and after it commits, the database's files are checked (sqlite_files.py): a
file deleted or replaced refuses every job.
"""

from __future__ import annotations

import asyncio
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from typing import Any

import msgspec

from .commits import CommitTally
from .errors import StoreError, StoreUnavailable
from .faults import FaultTally, sqlite_kind
from .model import AppendResult
from .sqlite_announce import Announcer, Others
from .sqlite_files import Files
from .sqlite_interlock import Interlock

MAX_HEADS = 100_000  # stream heads the writer remembers
MAX_BATCH = 256
"""The most appends one commit takes; more wait for the next one."""
WATCH_SECONDS = 0.025
"""How often, at least, the writer looks for commits of other processes (to wake
subscribers): a push from another process comes within about this long."""

Work = Callable[[sqlite3.Connection], Any]
Outcome = tuple[bool, Any]
"""A job's outcome: (True, its value) or (False, its error)."""


class Awaited:
    """The future of a job awaited on an event loop: the writer thread resolves it on its
    loop (one callback there, where a ``concurrent.futures.Future`` wrapped by
    ``asyncio.wrap_future`` makes a chain of them and a condition variable). A job whose
    awaiting task was cancelled goes on; its outcome is dropped."""

    __slots__ = ("_done", "future", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop, self.future = loop, loop.create_future()
        self._done = False

    def done(self) -> bool:
        return self._done

    def set_result(self, value: Any) -> None:
        self._settle(True, value)

    def set_exception(self, error: BaseException) -> None:
        self._settle(False, error)

    def _settle(self, ok: bool, value: Any) -> None:
        self._done = True
        with suppress(RuntimeError):  # the loop is closed: nobody awaits it any more
            self.loop.call_soon_threadsafe(_resolve, self.future, ok, value)


def _resolve(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    """On the loop: an ``Awaited`` job's outcome into its future, unless it was cancelled."""
    if future.cancelled():
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


class _Job(msgspec.Struct):
    """One unit of the writer's work (an append) and the future its caller waits on."""

    doing: str
    work: Work
    future: Future[Any] | Awaited


class Heads:
    """The writer's memory of each stream's head (version, hash) as committed, so an append at
    the expected version skips two reads; an append by another process makes the insert
    collide with the primary key, which forgets the entry and reports the conflict. The heads
    a batch moves are kept only when it commits."""

    def __init__(self) -> None:
        self.committed: dict[str, tuple[int, str]] = {}
        self.pending: dict[str, tuple[int, str]] = {}  # this batch's, kept on commit

    @contextmanager
    def undone_on_error(self, ids: list[str]) -> Iterator[None]:
        """A job over streams ``ids`` that fails rolls back to its savepoint: so do its heads."""
        before = {i: self.pending[i] for i in ids if i in self.pending}
        try:
            yield
        except BaseException:
            for i in ids:
                self.pending.pop(i, None)
            self.pending.update(before)
            raise

    def kept(self) -> dict[str, int]:
        """The batch committed: keep its heads; the streams it appended to, with versions."""
        if len(self.committed) > MAX_HEADS:  # a cache: forgetting costs two reads per stream
            self.committed.clear()
        appended = {stream: version for stream, (version, _) in self.pending.items()}
        self.committed.update(self.pending)
        self.pending.clear()
        return appended


class Writer:
    """The thread that owns the write connection ``conn`` (used under ``lock``) and commits
    what is queued, batch by batch, until closed."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        lock: threading.Lock,
        *,
        files: Files | None,
        faults: FaultTally,
        announcer: Announcer,
        interlock: Interlock | None,
    ) -> None:
        self.conn, self.lock = conn, lock
        self.heads = Heads()
        self.commits = CommitTally()  # events per commit, for the service's metrics
        self.queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._files, self._faults, self._announcer = files, faults, announcer
        self._closed = False
        self._closing = threading.Lock()
        self._counts = {"appends": 0, "commits": 0, "largest_batch": 0}
        self._interlock = interlock  # None: in memory, where no other process writes
        self._turn: AbstractContextManager[None] = interlock or nullcontext()
        with translated(faults, files, "cannot open the event store"):
            self._others = Others(conn) if interlock is not None else None
        self._watched_at = 0.0
        self._running = True  # until the thread ends: a flag, read on every append
        self._thread = threading.Thread(target=self._run, daemon=True, name="store")
        self._thread.start()

    def is_alive(self) -> bool:
        """Whether the thread runs and takes work (not closed)."""
        return self._running and not self._closed

    def stats(self) -> dict[str, int]:
        """Counts since opening: appends, commits, and the largest batch committed."""
        with self.lock:
            return dict(self._counts)

    def submit(self, doing: str, work: Work) -> Any:
        """Queue work for the writer and wait until its batch has committed."""
        return self.enqueue(doing, work).result()

    def enqueue(self, doing: str, work: Work) -> Future[Any]:
        """Queue work for the writer; the future resolves once its batch has committed."""
        future: Future[Any] = Future()
        self._put(_Job(doing, work, future))
        return future

    def enqueue_awaited(self, doing: str, work: Work) -> asyncio.Future[Any]:
        """``enqueue`` from the running event loop: an asyncio future, resolved on it."""
        awaited = Awaited(asyncio.get_running_loop())
        self._put(_Job(doing, work, awaited))
        return awaited.future

    def _put(self, job: _Job) -> None:
        with self._closing:
            if self._closed:
                raise StoreError(f"{job.doing}: the store is closed")
            if not self._running:  # not expected: the writer survives every error
                raise self._faults.refused("writer-stopped", job.doing, "the writer is not running")
            self.queue.put(job)

    def close(self) -> None:
        """Let the writer finish what is queued, then close the write connection."""
        with self._closing:
            if not self._closed:
                self._closed = True
                self.queue.put(None)
        if threading.current_thread() is not self._thread:
            self._thread.join()
        with self.lock:
            self.conn.close()
        if self._interlock is not None:
            self._interlock.close()

    def _run(self) -> None:
        """The writer thread's life."""
        try:
            self._write_batches()
        finally:
            self._running = False

    def _write_batches(self) -> None:
        """The writer thread: commit whatever is queued as one batch, until closed; between
        batches, look for other processes' commits."""
        while True:
            try:
                first = self.queue.get(timeout=WATCH_SECONDS if self._others else None)
            except queue.Empty:
                self._look_for_others()
                continue
            if first is None:
                return
            batch, stop = [first], False
            while len(batch) < MAX_BATCH:
                try:
                    job = self.queue.get_nowait()
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
            if self._others and time.monotonic() - self._watched_at >= WATCH_SECONDS:
                self._look_for_others()

    def _look_for_others(self) -> None:
        """Wake the subscribers of the streams other processes moved since the last look; the
        heads this writer remembers of them are out of date."""
        assert self._others is not None
        self._watched_at = time.monotonic()
        try:
            with self.lock:
                news = self._others.news(self.conn)
        except sqlite3.Error:
            return  # a passing failure: look again next time
        for stream, version in news.items():
            if self.heads.committed.get(stream, (version,))[0] < version:
                del self.heads.committed[stream]
        self._announcer.announce(news, others=True)

    def _commit(self, batch: list[_Job]) -> None:
        """Run every job in one transaction, each in its own savepoint; resolve the futures,
        then wake the subscribers of the streams appended to."""
        with self._turn, self.lock:  # the file's turn first: self.lock stays free meanwhile
            outcomes, appended = self._run_batch(batch)
        for job, (ok, value) in zip(batch, outcomes, strict=True):
            if ok:
                job.future.set_result(value)
            else:
                job.future.set_exception(value)
        self._announcer.announce(appended)

    def _abandon(self, batch: list[_Job], error: BaseException) -> None:
        """A batch the writer could not finish: roll back, and answer every job of it not
        answered yet with the error (so no caller waits for ever and nothing stays held)."""
        with suppress(sqlite3.Error):
            if self.conn.in_transaction:
                self.conn.rollback()
        self.heads.pending.clear()
        for job in batch:
            if not job.future.done():
                failure = error if isinstance(error, Exception) else StoreError(repr(error))
                job.future.set_exception(self._error(job.doing, failure))

    def _run_batch(self, batch: list[_Job]) -> tuple[list[Outcome], dict[str, int]]:
        """Begin, run the jobs, commit; a failed begin or commit fails every job, a job that
        lost the whole transaction fails alone and the others run again. Returns the outcomes
        and the streams the committed batch appended to."""
        conn = self.conn
        if refused := self._refuse_if_gone(batch):
            return refused, {}
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            return [(False, self._error(job.doing, exc)) for job in batch], {}
        outcomes: list[Outcome] = []
        for index, job in enumerate(batch):
            ok, value = self._run_job(job)
            if not conn.in_transaction:  # SQLite rolled the whole transaction back itself
                self.heads.pending.clear()
                lost = (False, value) if not ok else self._lost(job)
                rest = batch[:index] + batch[index + 1 :]
                others, appended = self._run_batch(rest) if rest else ([], {})
                return [*others[:index], lost, *others[index:]], appended
            outcomes.append((ok, value))
        return self._finish(batch, outcomes)

    def _finish(
        self, batch: list[_Job], outcomes: list[Outcome]
    ) -> tuple[list[Outcome], dict[str, int]]:
        """Commit the batch's transaction (a failure fails every job), check the file is
        still the one opened, keep the new heads and count."""
        conn = self.conn
        own = self._own_rows()
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with suppress(sqlite3.Error):
                if conn.in_transaction:
                    conn.rollback()
            self.heads.pending.clear()
            failed = [(False, self._error(f"{job.doing}: commit failed", exc)) for job in batch]
            return failed, {}
        if refused := self._refuse_if_gone(batch, committed=True):
            self.heads.pending.clear()
            return refused, {}
        self._faults.wrote()
        if self._others is not None:
            self._others.committed(own)
        appended = self.heads.kept()
        self._count(batch, outcomes)
        return outcomes, appended

    def _own_rows(self) -> int | None:
        """Before a commit that a look will follow: the last rowid, when every row past the
        last look is this writer's (see ``Others.own``; None if unknown). Other commits leave
        it to the look, which then reads at most ``WATCH_SECONDS`` of this writer's rows."""
        if self._others is None or time.monotonic() - self._watched_at < WATCH_SECONDS:
            return None
        try:
            return self._others.own(self.conn)
        except sqlite3.Error:
            return None

    def _run_job(self, job: _Job) -> Outcome:
        """Run one job inside a savepoint; on error roll back to it, so it writes nothing (if
        the rollback itself fails, the whole transaction is rolled back)."""
        conn = self.conn
        try:
            conn.execute("SAVEPOINT job")
            value = job.work(conn)
            conn.execute("RELEASE job")
        except Exception as exc:
            error = self._error(job.doing, exc)
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

    def _lost(self, job: _Job) -> Outcome:
        """The outcome of a job that ran but whose transaction is gone (not expected: a job
        that succeeds leaves the transaction open)."""
        lost = sqlite3.OperationalError("the transaction was rolled back")
        return False, self._error(job.doing, lost)

    def _refuse_if_gone(self, batch: list[_Job], committed: bool = False) -> list[Outcome] | None:
        """Every job refused if the database file is gone or replaced, else None."""
        gone = self._files.gone() if self._files is not None else None
        if gone is None:
            return None
        why = f"{gone} was deleted or replaced" + (" as the batch committed" if committed else "")
        return [
            (False, self._faults.refused("file-gone", job.doing, why, write=True)) for job in batch
        ]

    def _error(self, doing: str, exc: Exception) -> Exception:
        """A job's error as its caller should see it (a write's: see ``store_error``)."""
        return store_error(self._faults, self._files, doing, exc, write=True)

    def _count(self, batch: list[_Job], outcomes: list[Outcome]) -> None:
        """Update the counters after a commit."""
        self._counts["appends"] += sum(ok for ok, _ in outcomes)
        self._counts["commits"] += 1
        self._counts["largest_batch"] = max(self._counts["largest_batch"], len(batch))
        results = [v for ok, value in outcomes if ok for v in _results(value)]
        self.commits.record(sum(len(r.events) for r in results if not r.replayed))


def store_error(
    faults: FaultTally, files: Files | None, doing: str, exc: Exception, *, write: bool = False
) -> Exception:
    """An error as the store's caller should see it: a fault becomes StoreUnavailable (and is
    counted), another database error StoreError; any other error is the job's own."""
    if isinstance(exc, StoreUnavailable):
        return exc
    if isinstance(exc, sqlite3.Error):
        kind = sqlite_kind(exc)
        if kind is not None:
            if kind == "disk-full" and files is not None:
                files.filled()
            error: Exception = faults.refused(kind, doing, str(exc), write=write)
        else:
            error = StoreError(f"{doing}: {exc}")
        error.__cause__ = exc
        return error
    return exc


@contextmanager
def translated(faults: FaultTally, files: Files | None, doing: str) -> Iterator[None]:
    """Turn sqlite3 errors escaping a block into StoreUnavailable or StoreError."""
    try:
        yield
    except sqlite3.Error as exc:
        raise store_error(faults, files, doing, exc) from exc


def _results(value: Any) -> list[AppendResult]:
    """The append results a job's value holds (a batch's list, one append's result, none)."""
    if isinstance(value, AppendResult):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, AppendResult)]
    return []

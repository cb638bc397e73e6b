"""SQLite's writer survives every way a job can fail (issue 27.1): a full disk in the middle of
a statement (SQLite rolling the whole transaction back itself, or only the statement) and at
COMMIT, an I/O error, a read-only database, an error of the writer's own. Each time the job
that failed gets a ``StoreUnavailable`` of its kind, the other appends of its batch are
stored, nothing of the failed one is, nobody waits for ever, and the next append is taken.

The faults are made to order (``faulty.Faulty``: SQLite's own errors on chosen statements)
and, for a full disk, by SQLite itself: ``PRAGMA max_page_count`` caps the file so that a
large append fails with ``database or disk is full`` partway through its inserts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from eventstore import (
    Appending,
    NewEvent,
    SqliteEventStore,
    StoreError,
    StoreUnavailable,
    verify_chain,
)
from tests.faults.faulty import Faulty, faulty
from tests.waiting import wait_until

ANSWER_SECONDS = 10.0
"""Longest a caller may wait for its answer: the bug this guards against was waiting for ever."""


def events(count: int, size: int = 10) -> list[NewEvent]:
    return [NewEvent("MovePlayed", {"n": n, "pad": "x" * size}, 0) for n in range(count)]


class Gate:
    """A clock that holds the writer inside an append until opened, so that the appends
    queued meanwhile commit together as the next batch."""

    def __init__(self) -> None:
        self.closed = threading.Event()
        self.held = threading.Event()
        self.opened = threading.Event()

    def __call__(self) -> datetime:
        if self.closed.is_set():
            self.closed.clear()
            self.held.set()
            self.opened.wait(timeout=ANSWER_SECONDS)
        return datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
def store(tmp_path: Path, gate: Gate) -> Iterator[SqliteEventStore]:
    with SqliteEventStore(tmp_path / "events.db", clock=gate) as opened:
        yield opened


Append = Callable[[], Any]


def one_batch(store: SqliteEventStore, gate: Gate, calls: list[Append]) -> list[Any]:
    """Run ``calls`` so that they commit in one batch; each one's result or error, answered
    within ``ANSWER_SECONDS`` (else the test fails)."""
    store.append(Appending("blocker", events(1), 0))
    gate.closed.set()
    with ThreadPoolExecutor(len(calls) + 1) as pool:
        holder = pool.submit(store.append, Appending("blocker", events(1), 1))
        assert gate.held.wait(ANSWER_SECONDS)
        futures = [pool.submit(call) for call in calls]
        wait_until(
            lambda: store._writer.queue.qsize() >= len(calls), message="appends never queued"
        )
        gate.opened.set()
        holder.result(timeout=ANSWER_SECONDS)
        return [outcome(future) for future in futures]


def outcome(future: Future[Any]) -> Any:
    try:
        return future.result(timeout=ANSWER_SECONDS)
    except (StoreError, RuntimeError) as error:
        return error


def three(store: SqliteEventStore, big: int = 50) -> list[Append]:
    """A small append, a big one (the one the tests make fail), another small one."""
    return [
        lambda: store.append(Appending("before", events(2), 0)),
        lambda: store.append(Appending("big", events(big), 0)),
        lambda: store.append(Appending("after", events(2), 0)),
    ]


def fails_the_big_insert(kind: str) -> Callable[[str, Any], str | None]:
    """Fail the insert of the big append's events (a list of many rows) with ``kind``."""

    def fails(statement: str, rows: Any) -> str | None:
        many = isinstance(rows, list) and len(rows) > 10
        return kind if statement.startswith("INSERT INTO events") and many else None

    return fails


def assert_survived(store: SqliteEventStore, stored: list[str]) -> None:
    """The writer runs, the streams ``stored`` verify, the big one is absent, and a new
    append is taken."""
    assert store._writer.is_alive()
    for stream in stored:
        verify_chain(store.read(stream))
        assert store.version(stream) == 2
    assert store.version("big") == 0 and store.read("big") == []
    assert store.append(Appending("later", events(1), 0)).events[0].version == 1


@pytest.mark.parametrize("kind", ["disk-full", "io-error"])
def test_a_fault_that_rolls_the_whole_transaction_back_fails_its_job_alone(
    store: SqliteEventStore, gate: Gate, kind: str
) -> None:
    conn = faulty(store)
    conn.fails, conn.rolls_back = fails_the_big_insert(kind), True
    before, big, after = one_batch(store, gate, three(store))
    assert isinstance(big, StoreUnavailable) and big.kind == kind
    assert before.events[-1].version == 2 and after.events[-1].version == 2
    assert_survived(store, ["before", "after"])
    assert store.faults()[kind] == 1


@pytest.mark.parametrize("kind", ["disk-full", "io-error", "read-only"])
def test_a_fault_of_one_statement_fails_its_job_alone(
    store: SqliteEventStore, gate: Gate, kind: str
) -> None:
    conn = faulty(store)
    conn.fails = fails_the_big_insert(kind)
    before, big, after = one_batch(store, gate, three(store))
    assert isinstance(big, StoreUnavailable) and big.kind == kind
    assert not isinstance(before, Exception) and not isinstance(after, Exception)
    assert_survived(store, ["before", "after"])


def test_a_full_disk_at_commit_fails_the_batch_and_the_next_one_commits(
    store: SqliteEventStore, gate: Gate
) -> None:
    conn = faulty(store)
    commits = iter([None, None, "disk-full"])  # the blocker's two batches commit, the next not
    conn.fails = lambda statement, _: next(commits, None) if statement == "COMMIT" else None
    results = one_batch(store, gate, three(store, big=5))
    assert all(isinstance(r, StoreUnavailable) and r.kind == "disk-full" for r in results)
    assert [store.version(s) for s in ("before", "big", "after")] == [0, 0, 0]
    assert store.readiness()["disk"] == "disk-full"  # no write has succeeded since
    assert store.append(Appending("before", events(2), 0)).events[-1].version == 2
    assert store.readiness()["disk"] == "ok"


def test_a_read_only_database_refuses_until_it_is_writable_again(
    store: SqliteEventStore,
) -> None:
    conn = faulty(store)
    conn.fails = lambda statement, _: "read-only" if statement.startswith("BEGIN") else None
    for attempt in range(3):
        with pytest.raises(StoreUnavailable) as refused:
            store.append(Appending("game", events(1), 0, f"key-{attempt}"))
        assert refused.value.kind == "read-only"
    assert store.readiness()["database"] == "read-only"
    conn.fails = lambda statement, _: None
    assert store.append(Appending("game", events(1), 0)).events[0].version == 1
    assert store.readiness() == dict.fromkeys(("writer", "file", "disk", "database"), "ok")
    assert store.faults()["read-only"] == 3


def test_an_error_of_the_writer_itself_answers_every_caller(
    store: SqliteEventStore, gate: Gate
) -> None:
    conn: Faulty = faulty(store)
    begins = iter([False, False, True])  # the blocker's batches begin, the next breaks it

    def broken(statement: str, _: Any) -> str | None:
        if statement.startswith("BEGIN") and next(begins, False):
            raise RuntimeError("a bug in the writer")
        return None

    conn.fails = broken
    results = one_batch(store, gate, three(store, big=5))
    assert all(isinstance(r, RuntimeError | StoreError) for r in results), results
    assert_survived_empty(store)


def assert_survived_empty(store: SqliteEventStore) -> None:
    assert store._writer.is_alive()
    assert [store.version(s) for s in ("before", "big", "after")] == [0, 0, 0]
    assert store.append(Appending("later", events(1), 0)).events[0].version == 1


def test_sqlite_full_in_the_middle_of_a_large_append(store: SqliteEventStore, gate: Gate) -> None:
    """A real SQLITE_FULL: the file may grow by a few pages only, so the big append fails
    partway through its inserts; the small ones in its batch are stored."""
    store.append(Appending("blocker", events(1), 0))
    pages = int(store._writer.conn.execute("PRAGMA page_count").fetchone()[0])
    store._writer.conn.execute(f"PRAGMA max_page_count = {pages + 8}")
    calls = [
        lambda: store.append(Appending("before", events(2), 1)),
        lambda: store.append(Appending("big", events(2000, size=400), 0)),
        lambda: store.append(Appending("after", events(2), 1)),
    ]
    store.append(Appending("before", events(1), 0))
    store.append(Appending("after", events(1), 0))
    _, big, _ = one_batch_from(store, gate, calls, blocker_version=1)
    assert isinstance(big, StoreUnavailable) and big.kind == "disk-full"
    assert store._writer.is_alive() and store.version("big") == 0
    assert store.version("before") == 3 and store.version("after") == 3
    store._writer.conn.execute("PRAGMA max_page_count = 1073741823")
    assert store.append(Appending("big", events(2000, size=400), 0)).events[-1].version == 2000


def one_batch_from(
    store: SqliteEventStore, gate: Gate, calls: list[Append], blocker_version: int
) -> list[Any]:
    """``one_batch`` on a store whose blocker stream already exists."""
    gate.closed.set()
    with ThreadPoolExecutor(len(calls) + 1) as pool:
        holder = pool.submit(store.append, Appending("blocker", events(1), blocker_version))
        assert gate.held.wait(ANSWER_SECONDS)
        futures = [pool.submit(call) for call in calls]
        wait_until(
            lambda: store._writer.queue.qsize() >= len(calls), message="appends never queued"
        )
        gate.opened.set()
        holder.result(timeout=ANSWER_SECONDS)
        return [outcome(future) for future in futures]


def test_a_writer_that_is_not_running_refuses_at_once(store: SqliteEventStore) -> None:
    store._writer.queue.put(None)  # the writer ends, as only closing should make it
    wait_until(lambda: not store._writer.is_alive(), message="the writer did not end")
    with pytest.raises(StoreUnavailable) as refused:
        store.append(Appending("game", events(1), 0))
    assert refused.value.kind == "writer-stopped"
    assert store.readiness()["writer"] == "writer-stopped"

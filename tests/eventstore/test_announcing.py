"""The SQLite store announces appends: ``subscribe(stream_id, wake)`` calls ``wake`` after each
committed batch that appended to the stream, and after another process's commit to the file."""

from __future__ import annotations

import fcntl
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from eventstore import Announcing, Appending, NewEvent, SqliteEventStore, VersionConflict
from eventstore.sqlite_announce import Others
from tests.waiting import wait_until


def event(n: int) -> NewEvent:
    """One small event."""
    return NewEvent("MovePlayed", {"n": n}, 0)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteEventStore]:
    with SqliteEventStore(tmp_path / "events.db") as opened:
        yield opened


class Counter:
    """A wake callback that counts its calls and remembers the version the store had then, and
    the version it was told (None: unknown)."""

    def __init__(self, store: SqliteEventStore, stream_id: str) -> None:
        self.store, self.stream_id = store, stream_id
        self.versions: list[int] = []
        self.told: list[int | None] = []
        self.woken = threading.Event()

    def __call__(self, version: int | None) -> None:
        self.versions.append(self.store.version(self.stream_id))
        self.told.append(version)
        self.woken.set()


def test_the_sqlite_store_announces(store: SqliteEventStore) -> None:
    assert isinstance(store, Announcing)


def test_a_subscriber_is_woken_after_the_commit_of_its_stream(store: SqliteEventStore) -> None:
    mine, other = Counter(store, "g1"), Counter(store, "g2")
    store.subscribe("g1", mine)
    store.subscribe("g2", other)
    store.append(Appending("g1", [event(1), event(2)], 0))
    assert mine.woken.wait(5)
    assert mine.versions == [2]  # woken after the commit: the append is there to read
    store.append(Appending("g1", [event(3)], 2))
    wait_until(lambda: len(mine.versions) == 2, message="the second append woke nobody")
    assert mine.versions == [2, 3]
    assert mine.told == [2, 3]  # each wake says the version the stream reached
    assert other.versions == []


def test_failed_and_replayed_appends_wake_nobody(store: SqliteEventStore) -> None:
    store.append(Appending("g1", [event(1)], 0, idempotency_key="k"))
    woken = Counter(store, "g1")
    store.subscribe("g1", woken)
    with pytest.raises(VersionConflict):
        store.append(Appending("g1", [event(2)], 0))
    assert store.append(Appending("g1", [event(1)], 0, idempotency_key="k")).replayed
    store.append(Appending("g2", [event(1)], 0))  # the writer has moved on past both
    store.append(Appending("g1", [event(2)], 1))
    wait_until(lambda: woken.versions, message="the good append woke nobody")
    assert woken.versions == [2]


def test_unsubscribing_stops_the_wake_ups(store: SqliteEventStore) -> None:
    kept, dropped = Counter(store, "g1"), Counter(store, "g1")
    store.subscribe("g1", kept)
    unsubscribe = store.subscribe("g1", dropped)
    unsubscribe()
    unsubscribe()  # twice is harmless
    store.append(Appending("g1", [event(1)], 0))
    assert kept.woken.wait(5)
    store.append(Appending("g1", [event(2)], 1))
    wait_until(lambda: len(kept.versions) == 2, message="the kept subscriber was not woken")
    assert dropped.versions == []


def test_one_callable_subscribed_twice_is_two_subscriptions(store: SqliteEventStore) -> None:
    woken = Counter(store, "g1")
    first = store.subscribe("g1", woken)
    store.subscribe("g1", woken)
    first()
    store.append(Appending("g1", [event(1)], 0))
    assert woken.woken.wait(5)  # the second subscription still stands


def test_a_failing_wake_breaks_neither_the_writer_nor_the_others(
    store: SqliteEventStore,
) -> None:
    calls: list[str] = []

    def broken(_: int | None) -> None:
        calls.append("broken")
        raise RuntimeError("a broken subscriber")

    good = Counter(store, "g1")
    store.subscribe("g1", broken)
    store.subscribe("g1", good)
    store.append(Appending("g1", [event(1)], 0))
    store.append(Appending("g1", [event(2)], 1))
    wait_until(lambda: len(good.versions) == 2, message="the good subscriber missed wake-ups")
    assert calls == ["broken", "broken"]
    assert (
        store.append(Appending("g1", [event(3)], 2)).events[-1].version == 3
    )  # the writer goes on


ANOTHER_PROCESS = """
import sys
from eventstore import Appending, NewEvent, SqliteEventStore
with SqliteEventStore(sys.argv[1]) as store:
    store.append(Appending("g1", [NewEvent("MovePlayed", {"n": 1}, 0)], 0))
"""

INSERT = (
    "INSERT INTO events (stream_id, version, type, data, by, at, prev_hash, hash)"
    " VALUES (?, ?, 'MovePlayed', '{}', 0, '2026-01-01T00:00:00Z', '', '')"
)
MANY_APPENDS = """
import sys
from eventstore import Appending, NewEvent, SqliteEventStore
with SqliteEventStore(sys.argv[1]) as store:
    for version in range(50):
        for n in range(4):
            moved = [NewEvent("MovePlayed", {"n": version}, 0)]
            store.append(Appending(f"{sys.argv[2]}{n}", moved, version))
"""


def looked(store: SqliteEventStore, looks: int) -> None:
    """Wait until the writer has ended ``looks`` looks for other processes' commits begun
    from now on (each look it begins after another means that one has ended)."""
    writer = store._writer
    for _ in range(looks + 1):
        since = time.monotonic()
        wait_until(lambda: writer._watched_at > since, message="the writer stopped looking")  # noqa: B023


def test_an_append_by_another_process_wakes_its_streams_subscribers_with_the_version(
    store: SqliteEventStore, tmp_path: Path
) -> None:
    woken, elsewhere = Counter(store, "g1"), Counter(store, "g9")
    store.subscribe("g1", woken)
    store.subscribe("g9", elsewhere)
    store.append(Appending("g0", [event(1)], 0))  # the writer has looked at the file at least once
    database = str(tmp_path / "events.db")
    command = [sys.executable, "-c", ANOTHER_PROCESS, database]
    subprocess.run(command, check=True, timeout=60, cwd=Path(__file__).parents[2])
    assert woken.woken.wait(5), "another process's append was never announced"
    assert woken.versions == [1]
    assert woken.told == [1]  # the version the other process's append reached
    store.append(Appending("g0", [event(2)], 1))  # a batch of this process's own, looked at after
    looked(store, 2)
    assert woken.told == [1]  # told once
    assert not elsewhere.woken.is_set()  # a stream nobody moved is not woken


def test_writers_in_two_processes_take_turns_without_losing_an_append(tmp_path: Path) -> None:
    database = tmp_path / "events.db"
    command = [sys.executable, "-c", MANY_APPENDS, str(database)]
    root = Path(__file__).parents[2]
    others = [subprocess.Popen([*command, name], cwd=root) for name in ("a", "b")]
    assert [process.wait(timeout=120) for process in others] == [0, 0]
    with SqliteEventStore(database) as store:
        assert [store.version(f"{name}{n}") for name in "ab" for n in range(4)] == [50] * 8


def test_a_writer_waits_for_the_file_lock_another_process_holds(
    store: SqliteEventStore, tmp_path: Path
) -> None:
    with (tmp_path / "events.db-writer").open("rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        appending = threading.Thread(target=store.append, args=(Appending("g1", [event(1)], 0),))
        appending.start()
        appending.join(0.5)
        assert appending.is_alive(), "the append did not wait for the interlock"
        assert store.version("g1") == 0
        fcntl.flock(lock, fcntl.LOCK_UN)
    appending.join(10)
    assert store.version("g1") == 1


def test_a_look_for_others_reads_past_what_this_writer_committed_alone(tmp_path: Path) -> None:
    database = tmp_path / "events.db"
    with SqliteEventStore(database) as store:
        store.append(Appending("mine", [event(1)], 0))
    mine, theirs = (sqlite3.connect(database, isolation_level=None) for _ in range(2))
    others = Others(mine)
    for version in (2, 3):  # this writer alone: the next look need not read these rows again
        mine.execute("BEGIN IMMEDIATE")
        mine.execute(INSERT, ("mine", version))
        own = others.own(mine)
        mine.execute("COMMIT")
        others.committed(own)
    assert others.news(mine) == {}  # nobody else committed
    theirs.execute(INSERT, ("theirs", 1))
    assert others.news(mine) == {"theirs": 1}
    assert others.news(mine) == {}  # told once
    theirs.execute(INSERT, ("theirs", 2))
    mine.execute(INSERT, ("mine", 4))  # committed after another's, before the look: both told
    assert others.news(mine) == {"theirs": 2, "mine": 4}

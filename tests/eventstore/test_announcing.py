"""The SQLite store announces appends: ``subscribe(stream_id, wake)`` calls ``wake`` after each
committed batch that appended to the stream, and after another process's commit to the file."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from eventstore import Announcing, NewEvent, SqliteEventStore, VersionConflict
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
    store.append("g1", [event(1), event(2)], 0)
    assert mine.woken.wait(5)
    assert mine.versions == [2]  # woken after the commit: the append is there to read
    store.append("g1", [event(3)], 2)
    wait_until(lambda: len(mine.versions) == 2, message="the second append woke nobody")
    assert mine.versions == [2, 3]
    assert mine.told == [2, 3]  # each wake says the version the stream reached
    assert other.versions == []


def test_failed_and_replayed_appends_wake_nobody(store: SqliteEventStore) -> None:
    store.append("g1", [event(1)], 0, idempotency_key="k")
    woken = Counter(store, "g1")
    store.subscribe("g1", woken)
    with pytest.raises(VersionConflict):
        store.append("g1", [event(2)], 0)
    assert store.append("g1", [event(1)], 0, idempotency_key="k").replayed
    store.append("g2", [event(1)], 0)  # the writer has moved on past both
    store.append("g1", [event(2)], 1)
    wait_until(lambda: woken.versions, message="the good append woke nobody")
    assert woken.versions == [2]


def test_unsubscribing_stops_the_wake_ups(store: SqliteEventStore) -> None:
    kept, dropped = Counter(store, "g1"), Counter(store, "g1")
    store.subscribe("g1", kept)
    unsubscribe = store.subscribe("g1", dropped)
    unsubscribe()
    unsubscribe()  # twice is harmless
    store.append("g1", [event(1)], 0)
    assert kept.woken.wait(5)
    store.append("g1", [event(2)], 1)
    wait_until(lambda: len(kept.versions) == 2, message="the kept subscriber was not woken")
    assert dropped.versions == []


def test_one_callable_subscribed_twice_is_two_subscriptions(store: SqliteEventStore) -> None:
    woken = Counter(store, "g1")
    first = store.subscribe("g1", woken)
    store.subscribe("g1", woken)
    first()
    store.append("g1", [event(1)], 0)
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
    store.append("g1", [event(1)], 0)
    store.append("g1", [event(2)], 1)
    wait_until(lambda: len(good.versions) == 2, message="the good subscriber missed wake-ups")
    assert calls == ["broken", "broken"]
    assert store.append("g1", [event(3)], 2).events[-1].version == 3  # the writer goes on


ANOTHER_PROCESS = """
import sys
from eventstore import NewEvent, SqliteEventStore
with SqliteEventStore(sys.argv[1]) as store:
    store.append("g1", [NewEvent("MovePlayed", {"n": 1}, 0)], 0)
"""


def test_an_append_by_another_process_wakes_every_subscriber(
    store: SqliteEventStore, tmp_path: Path
) -> None:
    woken, elsewhere = Counter(store, "g1"), Counter(store, "g9")
    store.subscribe("g1", woken)
    store.subscribe("g9", elsewhere)
    store.append("g0", [event(1)], 0)  # the writer has looked at the file at least once
    database = str(tmp_path / "events.db")
    command = [sys.executable, "-c", ANOTHER_PROCESS, database]
    subprocess.run(command, check=True, timeout=60, cwd=Path(__file__).parents[2])
    assert woken.woken.wait(5), "another process's append was never announced"
    assert woken.versions[-1] == 1
    assert woken.told[-1] is None  # another process's version is not known
    assert elsewhere.woken.wait(5)  # which stream changed is not known: everyone is woken

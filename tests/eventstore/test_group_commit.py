"""Group commit in the SQLite store: concurrent appends share one transaction and one fsync,
yet each keeps its own version check, idempotency and error."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from eventstore import (
    Appending,
    AppendResult,
    IdempotencyKeyReused,
    NewEvent,
    SqliteEventStore,
    StoreError,
    VersionConflict,
    verify_chain,
)
from tests.waiting import wait_until, wait_until_async

THREADS = 16


def event(n: int, by: int = 0) -> NewEvent:
    """One small event."""
    return NewEvent("MovePlayed", {"n": n}, by)


class Gate:
    """A clock that holds the writer inside the first append of a batch until opened."""

    def __init__(self) -> None:
        self.closed = threading.Event()
        self.opened = threading.Event()
        self.now = datetime(2025, 1, 31, 12, tzinfo=UTC)

    def __call__(self) -> datetime:
        """Block while the gate is closed, then tell the time."""
        if self.closed.is_set():
            self.closed.clear()
            self.opened.wait(timeout=10)
        return self.now


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
def store(tmp_path: Path, gate: Gate) -> Iterator[SqliteEventStore]:
    with SqliteEventStore(tmp_path / "events.db", clock=gate) as opened:
        yield opened


def in_one_batch(
    store: SqliteEventStore, gate: Gate, calls: Sequence[Callable[[], AppendResult]]
) -> list[AppendResult | Exception]:
    """Run calls concurrently while the writer is held, so they all commit in one batch."""
    store.append(Appending("blocker", [event(0)], 0))  # the stream the gate holds the writer on
    gate.closed.set()
    holder = threading.Thread(target=store.append, args=(Appending("blocker", [event(1)], 1),))
    holder.start()
    wait_until(  # the writer is now inside the held append
        lambda: not gate.closed.is_set(),
        interval=0.001,
        message="the writer never reached the held append",
    )

    def attempt(call: Callable[[], AppendResult]) -> AppendResult | Exception:
        try:
            return call()
        except Exception as exc:
            return exc

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        futures = [pool.submit(attempt, call) for call in calls]
        try:
            wait_until(
                lambda: store._writer.queue.qsize() >= len(calls),
                interval=0.001,
                message=f"the {len(calls)} appends were never all queued behind the writer",
            )
        finally:
            gate.opened.set()
        outcomes = [future.result() for future in futures]
    holder.join()
    return outcomes


def test_queued_appends_commit_together(store: SqliteEventStore, gate: Gate) -> None:
    calls = [lambda n=n: store.append(Appending(f"g{n}", [event(n)], 0)) for n in range(THREADS)]
    before = store.stats()
    outcomes = in_one_batch(store, gate, calls)
    assert all(isinstance(o, AppendResult) and not o.replayed for o in outcomes)
    after = store.stats()
    assert after["commits"] - before["commits"] == 3  # blocker, held append, the batch
    assert after["largest_batch"] == THREADS
    assert after["appends"] - before["appends"] == THREADS + 2


def test_a_batch_counts_as_one_commit_of_all_its_events(
    store: SqliteEventStore, gate: Gate
) -> None:
    calls = [
        lambda n=n: store.append(Appending(f"g{n}", [event(n), event(n + 1)], 0)) for n in range(5)
    ]
    in_one_batch(store, gate, calls)
    sizes = store.commit_sizes()
    assert sizes.events == 2 + 5 * 2  # blocker, held append, then the batch of 5 x 2 events
    counted = {
        bound: count for bound, count in zip(sizes.bounds, sizes.counts, strict=False) if count
    }
    assert counted == {1: 2, 16: 1}


def test_conflicting_append_in_a_batch_fails_alone(store: SqliteEventStore, gate: Gate) -> None:
    store.append(Appending("shared", [event(0)], 0))
    calls: list[Callable[[], AppendResult]] = [
        lambda: store.append(Appending("shared", [event(1)], 1)),
        lambda: store.append(Appending("other", [event(2)], 0)),
        lambda: store.append(
            Appending("shared", [event(3), event(4)], 1)
        ),  # one of these two loses
        lambda: store.append(Appending("absent", [event(5)], 7)),
    ]
    outcomes = in_one_batch(store, gate, calls)
    won = [o for o in (outcomes[0], outcomes[2]) if isinstance(o, AppendResult)]
    lost = [o for o in (outcomes[0], outcomes[2]) if isinstance(o, VersionConflict)]
    assert len(won) == 1 and len(lost) == 1 and lost[0].expected == 1
    assert isinstance(outcomes[1], AppendResult)
    assert isinstance(outcomes[3], VersionConflict) and outcomes[3].actual == 0
    assert store.read("shared")[1:] == list(won[0].events)
    assert store.stream("absent") is None and store.version("other") == 1
    assert verify_chain(store.read("shared")) is None


def test_idempotent_retries_in_one_batch_append_once(store: SqliteEventStore, gate: Gate) -> None:
    store.append(Appending("g1", [event(0)], 0))
    calls = [lambda: store.append(Appending("g1", [event(1)], 1, "key")) for _ in range(6)]
    outcomes = in_one_batch(store, gate, calls)
    assert all(isinstance(o, AppendResult) for o in outcomes)
    assert (
        sorted(o.replayed for o in outcomes if isinstance(o, AppendResult)) == [False] + [True] * 5
    )
    stored = tuple(store.read("g1", after=1))
    assert all(isinstance(o, AppendResult) and o.events == stored for o in outcomes)
    assert store.version("g1") == 2


def test_reused_key_in_one_batch_fails_alone(store: SqliteEventStore, gate: Gate) -> None:
    store.append(Appending("g1", [event(0)], 0, "key"))
    calls: list[Callable[[], AppendResult]] = [
        lambda: store.append(Appending("g1", [event(5)], 1, "key")),
        lambda: store.append(Appending("g1", [event(1)], 1)),
    ]
    outcomes = in_one_batch(store, gate, calls)
    assert isinstance(outcomes[0], IdempotencyKeyReused)
    assert isinstance(outcomes[1], AppendResult) and store.version("g1") == 2


def test_failing_append_writes_nothing_of_its_own(store: SqliteEventStore, gate: Gate) -> None:
    unencodable = NewEvent("Bad", {"x": object()}, 0)
    calls: list[Callable[[], AppendResult]] = [
        lambda: store.append(Appending("good", [event(1)], 0, "k1")),
        lambda: store.append(Appending("bad", [event(2), unencodable], 0, "k2", meta={"m": 1})),
    ]
    outcomes = in_one_batch(store, gate, calls)
    assert isinstance(outcomes[0], AppendResult)
    assert isinstance(outcomes[1], Exception) and not isinstance(outcomes[1], AppendResult)
    assert store.stream("bad") is None and store.lookup("bad", "k2") is None
    assert store.version("good") == 1


def test_many_threads_on_many_streams_commit_in_fewer_transactions(tmp_path: Path) -> None:
    with SqliteEventStore(tmp_path / "t.db") as store:

        def play(n: int) -> None:
            for version in range(20):
                store.append(Appending(f"g{n}", [event(version, n)], version))

        with ThreadPoolExecutor(max_workers=THREADS) as pool:
            list(pool.map(play, range(THREADS)))
        stats = store.stats()
        assert all(store.version(f"g{n}") == 20 for n in range(THREADS))
        assert all(verify_chain(store.read(f"g{n}")) is None for n in range(THREADS))
    assert stats["appends"] == THREADS * 20
    assert stats["commits"] < stats["appends"]


def test_many_threads_on_one_stream_get_one_winner_per_version(tmp_path: Path) -> None:
    outcomes: list[str] = []
    with SqliteEventStore(tmp_path / "t.db") as store:
        store.append(Appending("race", [event(0)], 0))

        def contend(seat: int) -> None:
            for _ in range(20):
                seen = store.version("race")
                try:
                    store.append(Appending("race", [event(seen, seat)], seen))
                    outcomes.append("won")
                except VersionConflict:
                    outcomes.append("conflict")

        with ThreadPoolExecutor(max_workers=THREADS) as pool:
            list(pool.map(contend, range(THREADS)))
        log = store.read("race")
    assert len(log) == 1 + outcomes.count("won")
    assert [e.version for e in log] == list(range(1, len(log) + 1))
    assert verify_chain(log) is None


def test_append_after_close_is_a_store_error(tmp_path: Path) -> None:
    store = SqliteEventStore(tmp_path / "t.db")
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.append(Appending("g1", [event(0)], 0))


def test_a_lone_append_commits_at_once(tmp_path: Path) -> None:
    with SqliteEventStore(tmp_path / "t.db") as store:
        for version in range(5):
            store.append(Appending("g1", [event(version)], version))
        stats: dict[str, Any] = store.stats()
    assert stats == {"appends": 5, "commits": 5, "largest_batch": 1}


def test_an_awaited_append_whose_caller_was_cancelled_still_commits_and_the_writer_goes_on(
    store: SqliteEventStore, gate: Gate
) -> None:
    async def cancelled_then_more() -> AppendResult:
        store.append(Appending("blocker", [event(0)], 0))
        gate.closed.set()  # the writer is held in the next append, so the awaited one waits
        holder = asyncio.get_running_loop().run_in_executor(
            None, store.append, Appending("blocker", [event(1)], 1)
        )
        await wait_until_async(  # the writer is now inside the held append
            lambda: not gate.closed.is_set(),
            interval=0.001,
            message="the writer never reached the held append",
        )
        waiting = asyncio.ensure_future(store.append_async(Appending("g1", [event(0)], 0)))
        await wait_until_async(
            lambda: store._writer.queue.qsize() >= 1,
            interval=0.001,
            message="the awaited append was never queued behind the writer",
        )
        waiting.cancel()  # its socket closed, say: the append is queued already
        gate.opened.set()
        await holder
        return await store.append_async(Appending("g1", [event(1)], 1))  # after the cancelled one

    result = asyncio.run(cancelled_then_more())
    assert [e.version for e in result.events] == [2]
    assert [e.data["n"] for e in store.read("g1")] == [0, 1]


def test_awaited_appends_share_commits_and_keep_their_own_checks(tmp_path: Path) -> None:
    async def play(store: SqliteEventStore, n: int) -> list[str]:
        outcomes = []
        for version in range(10):
            await store.append_async(
                Appending(f"g{n}", [event(version, n)], version, f"k{version}")
            )
            again = await store.append_async(
                Appending(f"g{n}", [event(version, n)], version, f"k{version}")
            )
            outcomes.append("replayed" if again.replayed else "twice")
        try:
            await store.append_async(Appending(f"g{n}", [event(0, n)], 3))
        except VersionConflict:
            outcomes.append("conflict")
        return outcomes

    async def main(store: SqliteEventStore) -> list[list[str]]:
        return await asyncio.gather(*(play(store, n) for n in range(THREADS)))

    with SqliteEventStore(tmp_path / "t.db") as store:
        outcomes = asyncio.run(main(store))
        stats = store.stats()
        assert all(store.version(f"g{n}") == 10 for n in range(THREADS))
        assert all(verify_chain(store.read(f"g{n}")) is None for n in range(THREADS))
    assert outcomes == [["replayed"] * 10 + ["conflict"]] * THREADS
    assert stats["commits"] < stats["appends"]


def keyed_async_calls(
    store: SqliteEventStore, fingerprints: Sequence[str]
) -> list[Callable[[], AppendResult]]:
    """Awaited appends to g1 at version 1 with one key, each its own events and fingerprint."""

    def call(n: int, fingerprint: str) -> Callable[[], AppendResult]:
        new = [event(100 + n)]
        return lambda: asyncio.run(
            store.append_async(Appending("g1", new, 1, "key", fingerprint=fingerprint))
        )

    return [call(n, fingerprint) for n, fingerprint in enumerate(fingerprints)]


def test_awaited_appends_with_one_key_in_one_batch_write_once(
    store: SqliteEventStore, gate: Gate
) -> None:
    store.append(Appending("g1", [event(0)], 0))
    fingerprints = ["a", "b", "a", "b", "a", "a", "b", "a"]
    before = store.stats()
    outcomes = in_one_batch(store, gate, keyed_async_calls(store, fingerprints))
    assert store.stats()["largest_batch"] == len(fingerprints)
    assert store.stats()["commits"] - before["commits"] == 3  # blocker, held append, the batch
    written = [n for n, o in enumerate(outcomes) if isinstance(o, AppendResult) and not o.replayed]
    assert len(written) == 1
    winner = outcomes[written[0]]
    stored = tuple(store.read("g1", after=1))
    assert isinstance(winner, AppendResult) and stored == winner.events
    assert store.version("g1") == 2
    for fingerprint, outcome in zip(fingerprints, outcomes, strict=True):
        if fingerprint == fingerprints[written[0]]:  # whichever the writer queued first
            assert isinstance(outcome, AppendResult) and outcome.events == stored
        else:
            assert isinstance(outcome, IdempotencyKeyReused)


def test_an_expired_key_is_taken_over_once_in_one_batch(tmp_path: Path, gate: Gate) -> None:
    with SqliteEventStore(tmp_path / "t.db", clock=gate, idempotency_ttl=60) as store:
        store.append(Appending("g1", [event(0)], 0, "key", fingerprint="old"))
        gate.now += timedelta(seconds=61)
        outcomes = in_one_batch(store, gate, keyed_async_calls(store, ["new"] * 4))
        results = [o for o in outcomes if isinstance(o, AppendResult)]
        assert len(results) == 4 and sorted(o.replayed for o in results) == [False] + [True] * 3
        stored = tuple(store.read("g1", after=1))
        assert all(o.events == stored for o in results) and store.version("g1") == 2
        found = store.lookup("g1", "key", "new")
        assert found == AppendResult(stored, replayed=True)

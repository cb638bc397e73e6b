"""The store contract: every event store backend must pass these tests."""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import threading
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore import (
    GENESIS,
    Appending,
    AppendResult,
    EventStore,
    IdempotencyKeyReused,
    NewEvent,
    StoredEvent,
    StreamExists,
    VersionConflict,
    iso_timestamp,
    verify_chain,
)
from eventstore.hashing import seal
from tests.previous_schema import FIRST, OldStream

from .conftest import Backend, ManualClock, ticking_clock


def events(*types: str, by: int | str = 0) -> list[NewEvent]:
    """Make one simple event per type."""
    return [NewEvent(type=t, data={"n": i}, by=by) for i, t in enumerate(types)]


def filled(store: EventStore, stream_id: str = "g1", count: int = 5) -> list[StoredEvent]:
    """Append count events one by one and return them as read back."""
    for version in range(count):
        store.append(Appending(stream_id, events(f"E{version + 1}"), version))
    return store.read(stream_id)


# versions


def test_first_append_creates_stream_at_version_one(store: EventStore) -> None:
    result = store.append(Appending("g1", events("GameCreated"), 0))
    assert not result.replayed
    assert [(e.stream_id, e.version, e.type) for e in result.events] == [("g1", 1, "GameCreated")]
    assert store.version("g1") == 1


def test_versions_continue_without_gaps_across_batches(store: EventStore) -> None:
    store.append(Appending("g1", events("A", "B", "C"), 0))
    store.append(Appending("g1", events("D"), 3))
    store.append(Appending("g1", events("E", "F"), 4))
    assert [e.version for e in store.read("g1")] == [1, 2, 3, 4, 5, 6]
    assert [e.type for e in store.read("g1")] == list("ABCDEF")
    assert store.version("g1") == 6


def test_absent_stream_is_at_version_zero_and_empty(store: EventStore) -> None:
    assert store.version("nope") == 0
    assert store.read("nope") == []
    assert store.stream("nope") is None
    assert store.private("nope") is None


def test_streams_are_versioned_independently(store: EventStore) -> None:
    store.append(Appending("g1", events("A", "B"), 0))
    store.append(Appending("g2", events("A"), 0))
    assert (store.version("g1"), store.version("g2")) == (2, 1)
    assert [e.prev_hash for e in store.read("g2")] == [GENESIS]


def test_empty_append_is_refused(store: EventStore) -> None:
    with pytest.raises(ValueError, match="at least one event"):
        store.append(Appending("g1", [], 0))
    assert store.version("g1") == 0


# optimistic concurrency


def test_stale_expected_version_conflicts_and_writes_nothing(store: EventStore) -> None:
    before = filled(store, count=3)
    with pytest.raises(VersionConflict) as caught:
        store.append(Appending("g1", events("Late", "Later"), 2))
    conflict = caught.value
    assert (conflict.stream_id, conflict.expected, conflict.actual) == ("g1", 2, 3)
    assert "2" in str(conflict) and "3" in str(conflict) and "'g1'" in str(conflict)
    assert store.read("g1") == before
    assert store.version("g1") == 3


def test_expected_version_ahead_of_stream_conflicts(store: EventStore) -> None:
    filled(store, count=2)
    with pytest.raises(VersionConflict) as caught:
        store.append(Appending("g1", events("X"), 7))
    assert (caught.value.expected, caught.value.actual) == (7, 2)
    assert store.version("g1") == 2


def test_append_to_absent_stream_must_expect_zero(store: EventStore) -> None:
    with pytest.raises(VersionConflict) as caught:
        store.append(Appending("g1", events("X"), 1))
    assert (caught.value.expected, caught.value.actual) == (1, 0)
    assert store.stream("g1") is None


def test_creating_an_existing_stream_raises_stream_exists(store: EventStore) -> None:
    store.append(Appending("g1", events("GameCreated"), 0, meta={"ruleset": "sorry"}))
    with pytest.raises(StreamExists) as caught:
        store.append(Appending("g1", events("GameCreated"), 0, meta={"ruleset": "ludo"}))
    assert isinstance(caught.value, VersionConflict)
    assert caught.value.actual == 1
    assert store.version("g1") == 1
    info = store.stream("g1")
    assert info is not None and info.meta == {"ruleset": "sorry"}


# reading


@pytest.mark.parametrize(
    ("after", "until", "limit", "versions"),
    [
        (0, None, None, [1, 2, 3, 4, 5, 6]),
        (2, None, None, [3, 4, 5, 6]),
        (0, 3, None, [1, 2, 3]),
        (2, 4, None, [3, 4]),
        (1, None, 2, [2, 3]),
        (1, 5, 10, [2, 3, 4, 5]),
        (0, None, 0, []),
        (6, None, None, []),
        (4, 4, None, []),
        (0, 99, None, [1, 2, 3, 4, 5, 6]),
    ],
)
def test_read_after_until_limit(
    store: EventStore, after: int, until: int | None, limit: int | None, versions: list[int]
) -> None:
    filled(store, count=6)
    got = store.read("g1", after=after, until=until, limit=limit)
    assert [e.version for e in got] == versions


def test_read_returns_what_append_returned(store: EventStore) -> None:
    first = store.append(Appending("g1", events("A", "B"), 0)).events
    second = store.append(
        Appending("g1", [NewEvent("C", {"deep": {"list": [1, "x", None]}}, "referee")], 2)
    )
    assert tuple(store.read("g1")) == first + second.events


def test_data_is_stored_in_its_json_form(store: EventStore) -> None:
    result = store.append(
        Appending("g1", [NewEvent("A", {"pair": (1, 2), "nested": {"t": ()}}, 0)], 0)
    )
    expected = {"pair": [1, 2], "nested": {"t": []}}
    assert result.events[0].data == expected
    assert store.read("g1")[0].data == expected
    assert verify_chain(store.read("g1")) is None


def test_by_keeps_seat_numbers_and_names_apart(store: EventStore) -> None:
    store.append(Appending("g1", [NewEvent("A", {}, 0), NewEvent("B", {}, "referee")], 0))
    store.append(Appending("g1", [NewEvent("C", {}, "server"), NewEvent("D", {}, 3)], 2))
    assert [e.by for e in store.read("g1")] == [0, "referee", "server", 3]


def test_at_is_utc_iso_with_microseconds_and_z(backend: Backend) -> None:
    plus_two = datetime.fromisoformat("2025-03-01T14:30:05.123456+02:00")
    store = backend.open(lambda: plus_two)
    stored = store.append(Appending("g1", events("A", "B"), 0)).events
    assert [e.at for e in stored] == ["2025-03-01T12:30:05.123456Z"] * 2
    assert store.read("g1")[0].at == "2025-03-01T12:30:05.123456Z"


# hash chain


def test_chain_starts_from_genesis_and_links_each_event(store: EventStore) -> None:
    log = filled(store, count=4)
    assert log[0].prev_hash == "00" * 32 == GENESIS
    assert [e.prev_hash for e in log[1:]] == [e.hash for e in log[:-1]]
    assert verify_chain(log) is None


def test_hash_follows_the_published_recipe(store: EventStore) -> None:
    store.append(Appending("g1", [NewEvent("MovePlayed", {"move": "m1", "ü": [1, 2.5]}, 2)], 0))
    event = store.read("g1")[0]
    fields = {k: getattr(event, k) for k in ("stream_id", "version", "type", "data", "by", "at")}
    plain = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert plain.encode() == msgspec.json.encode(fields, order="sorted")
    digest = hashlib.sha256(bytes.fromhex(event.prev_hash) + plain.encode()).hexdigest()
    assert event.hash == digest


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("data", '{"n":99}'),
        ("type", "Forged"),
        ("by", 3),
        ("at", "2000-01-01T00:00:00.000000Z"),
        ("hash", "ab" * 32),
        ("prev_hash", "cd" * 32),
    ],
)
def test_verify_chain_pinpoints_a_tampered_event(
    store: EventStore, backend: Backend, column: str, value: Any
) -> None:
    filled(store, count=6)
    backend.tamper("g1", 4, column, value)
    assert verify_chain(store.read("g1")) == 4


def test_rehashed_tampering_breaks_the_next_link(store: EventStore, backend: Backend) -> None:
    log = filled(store, count=6)
    forged = msgspec.structs.replace(log[2], data={"n": 42})
    fields = {k: getattr(forged, k) for k in ("stream_id", "version", "type", "data", "by", "at")}
    canonical = msgspec.json.encode(fields, order="sorted")
    rehash = hashlib.sha256(bytes.fromhex(forged.prev_hash) + canonical).hexdigest()
    backend.tamper("g1", 3, "data", '{"n":42}')
    backend.tamper("g1", 3, "hash", rehash)
    assert verify_chain(store.read("g1")) == 4


def test_verify_chain_reports_a_gap_and_a_bad_start(store: EventStore) -> None:
    log = filled(store, count=5)
    assert verify_chain(log[:2] + log[3:]) == 4
    assert verify_chain([msgspec.structs.replace(log[0], prev_hash="11" * 32)]) == 1
    assert verify_chain([]) is None


def test_verify_chain_of_a_tail_checks_the_anchor_when_given(store: EventStore) -> None:
    log = filled(store, count=5)
    tail = store.read("g1", after=2)
    assert verify_chain(tail) is None
    assert verify_chain(tail, anchor=log[1].hash) is None
    assert verify_chain(tail, anchor=log[0].hash) == 3


# idempotency


def test_idempotent_retry_returns_first_result_and_appends_nothing(store: EventStore) -> None:
    store.append(Appending("g1", events("GameCreated"), 0))
    first = store.append(Appending("g1", events("MovePlayed", "TurnPassed"), 1, "key-1"))
    retry = store.append(Appending("g1", events("MovePlayed", "TurnPassed"), 1, "key-1"))
    assert not first.replayed and retry.replayed
    assert retry.events == first.events
    assert store.version("g1") == 3


def test_idempotent_retry_wins_over_a_stale_expected_version(store: EventStore) -> None:
    store.append(Appending("g1", events("GameCreated"), 0))
    first = store.append(Appending("g1", events("MovePlayed"), 1, "key-1"))
    store.append(Appending("g1", events("Other"), 2))
    retry = store.append(Appending("g1", events("MovePlayed"), 1, "key-1"))
    assert retry.replayed and retry.events == first.events
    assert store.version("g1") == 3


def test_idempotent_retry_of_a_creation(store: EventStore) -> None:
    first = store.append(
        Appending("g1", events("GameCreated"), 0, "create", meta={"a": 1}, private={"s": 1})
    )
    retry = store.append(
        Appending("g1", events("GameCreated"), 0, "create", meta={"a": 1}, private={"s": 1})
    )
    assert retry.replayed and retry.events == first.events
    assert store.version("g1") == 1


@pytest.mark.parametrize(
    "other",
    [
        [NewEvent("Different", {"n": 0}, 0)],
        [NewEvent("MovePlayed", {"n": 1}, 0)],
        [NewEvent("MovePlayed", {"n": 0}, 1)],
        [NewEvent("MovePlayed", {"n": 0}, "0")],
        [NewEvent("MovePlayed", {"n": 0}, 0), NewEvent("MovePlayed", {"n": 0}, 0)],
    ],
)
def test_reused_key_with_different_events_errors(store: EventStore, other: list[NewEvent]) -> None:
    store.append(Appending("g1", [NewEvent("MovePlayed", {"n": 0}, 0)], 0, "key-1"))
    with pytest.raises(IdempotencyKeyReused, match="'key-1'"):
        store.append(Appending("g1", other, 1, "key-1"))
    assert store.version("g1") == 1


def test_idempotency_keys_are_scoped_per_stream(store: EventStore) -> None:
    store.append(Appending("g1", events("A"), 0, "same-key"))
    other = store.append(Appending("g2", events("B"), 0, "same-key"))
    assert not other.replayed
    assert (store.version("g1"), store.version("g2")) == (1, 1)


def test_lookup_returns_the_earlier_result(store: EventStore) -> None:
    store.append(Appending("g1", events("A"), 0))
    first = store.append(Appending("g1", events("B", "C"), 1, "key-1"))
    store.append(Appending("g1", events("D"), 3))
    found = store.lookup("g1", "key-1")
    assert found is not None and found.replayed and found.events == first.events
    assert store.lookup("g1", "unused") is None
    assert store.lookup("g2", "key-1") is None


def test_conflicting_append_does_not_use_up_its_key(store: EventStore) -> None:
    store.append(Appending("g1", events("A"), 0))
    with pytest.raises(VersionConflict):
        store.append(Appending("g1", events("B"), 0 + 5, "key-1"))
    assert store.lookup("g1", "key-1") is None
    assert not store.append(Appending("g1", events("B"), 1, "key-1")).replayed


# metadata, private record, listing


def test_meta_and_private_are_stored_at_creation(store: EventStore) -> None:
    meta = {"ruleset": "sorry", "tags": ["club", "final"]}
    private = {"seed": "s3cr3t", "tokens": {"referee": "sha256:..."}}
    created = store.append(Appending("g1", events("GameCreated"), 0, meta=meta, private=private))
    info = store.stream("g1")
    assert info is not None
    assert (info.stream_id, info.version, info.meta, info.last_type) == (
        "g1",
        1,
        meta,
        "GameCreated",
    )
    assert info.created_at == created.events[0].at
    assert store.private("g1") == private
    assert all("s3cr3t" not in msgspec.json.encode(e).decode() for e in store.read("g1"))


def test_meta_and_private_are_ignored_after_creation(store: EventStore) -> None:
    store.append(Appending("g1", events("GameCreated"), 0, meta={"v": 1}, private={"p": 1}))
    store.append(Appending("g1", events("MovePlayed"), 1, meta={"v": 2}, private={"p": 2}))
    info = store.stream("g1")
    assert info is not None and info.meta == {"v": 1}
    assert store.private("g1") == {"p": 1}


def test_stream_without_meta_or_private(store: EventStore) -> None:
    store.append(Appending("g1", events("A"), 0))
    info = store.stream("g1")
    assert info is not None and info.meta == {}
    assert store.private("g1") is None


def test_streams_lists_every_stream_oldest_first(store: EventStore) -> None:
    for name in ("zeta", "alpha", "mid"):
        store.append(Appending(name, events("GameCreated"), 0, meta={"name": name}))
    store.append(Appending("alpha", events("MovePlayed", "GameFinished"), 1))
    listed = store.streams()
    assert [s.stream_id for s in listed] == ["zeta", "alpha", "mid"]
    assert [(s.version, s.last_type) for s in listed] == [
        (1, "GameCreated"),
        (3, "GameFinished"),
        (1, "GameCreated"),
    ]
    assert listed[1] == store.stream("alpha")
    assert [s.meta["name"] for s in listed] == ["zeta", "alpha", "mid"]


def test_another_store_on_the_same_database_sees_everything(
    store: EventStore, backend: Backend
) -> None:
    log = filled(store, count=3)
    store.append(Appending("g2", events("A"), 0, "k", meta={"m": 1}, private={"p": 1}))
    other = backend.open(ticking_clock())  # keys expire by the store's clock: keep the time
    assert other.read("g1") == log
    assert other.version("g1") == 3
    assert other.streams() == store.streams()
    assert other.private("g2") == {"p": 1}
    assert other.lookup("g2", "k") == store.lookup("g2", "k")


# concurrency


def race(stores: list[EventStore], threads: int, attempts: int) -> Counter[str]:
    """Let threads append to one stream at the version each read; count wins and conflicts."""
    outcomes: Counter[str] = Counter()
    start = threading.Barrier(threads)
    lock = threading.Lock()

    def contend(seat: int) -> None:
        store = stores[seat % len(stores)]
        start.wait()
        for attempt in range(attempts):
            seen = store.version("race")
            event = NewEvent("Attempted", {"seat": seat, "attempt": attempt}, seat)
            try:
                store.append(Appending("race", [event], seen))
                outcome = "won"
            except VersionConflict:
                outcome = "conflict"
            with lock:
                outcomes[outcome] += 1

    workers = [threading.Thread(target=contend, args=(seat,)) for seat in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return outcomes


def assert_race_log_is_sound(store: EventStore, outcomes: Counter[str], total: int) -> None:
    """Exactly one append per version, no gaps, no duplicates, and the chain verifies."""
    log = store.read("race")
    assert outcomes["won"] + outcomes["conflict"] == total
    assert [e.version for e in log] == list(range(1, outcomes["won"] + 1))
    attempts = [(e.data["seat"], e.data["attempt"]) for e in log]
    assert len(set(attempts)) == len(attempts)
    assert verify_chain(log) is None
    assert store.version("race") == len(log)


def test_concurrent_appends_one_winner_per_version(store: EventStore) -> None:
    outcomes = race([store], threads=16, attempts=50)
    assert outcomes["conflict"] > 0
    assert_race_log_is_sound(store, outcomes, total=16 * 50)


def test_concurrent_appends_through_several_stores(store: EventStore, backend: Backend) -> None:
    stores = [store, backend.open(), backend.open(), backend.open()]
    outcomes = race(stores, threads=16, attempts=25)
    assert_race_log_is_sound(store, outcomes, total=16 * 25)


def test_racing_identical_keyed_requests_append_once(store: EventStore, backend: Backend) -> None:
    stores = [store, backend.open(ticking_clock())]
    store.append(Appending("g1", events("GameCreated"), 0))
    results: list[bool] = []
    start = threading.Barrier(12)

    def request(n: int) -> None:
        start.wait()
        result = stores[n % 2].append(Appending("g1", events("MovePlayed"), 1, "retry-me"))
        results.append(result.replayed)

    workers = [threading.Thread(target=request, args=(n,)) for n in range(12)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(results) == [False] + [True] * 11
    assert store.version("g1") == 2


# property


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
event_types = st.text(
    st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=12
)
"""Any text but NUL, which PostgreSQL's text columns cannot hold (see eventstore/README.md)."""
new_events = st.builds(
    NewEvent,
    type=event_types,
    data=st.dictionaries(st.text(max_size=6), json_values, max_size=4),
    by=st.integers(min_value=0, max_value=5) | st.sampled_from(["referee", "server"]),
)
stream_ids = iter(range(10**9))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batches=st.lists(st.lists(new_events, min_size=1, max_size=4), min_size=1, max_size=5))
def test_appended_batches_read_back_equal(store: EventStore, batches: list[list[NewEvent]]) -> None:
    stream_id = f"prop-{next(stream_ids)}"  # the store outlives examples: one stream each
    appended: list[StoredEvent] = []
    for batch in batches:
        appended.extend(store.append(Appending(stream_id, batch, len(appended))).events)
    log = store.read(stream_id)
    assert log == appended
    assert [(e.type, e.data, e.by) for e in log] == [
        (n.type, n.data, n.by) for batch in batches for n in batch
    ]
    assert [e.version for e in log] == list(range(1, len(log) + 1))
    assert verify_chain(log) is None


# snapshots (derived data beside the log)


def test_no_snapshot_before_one_is_saved(store: EventStore) -> None:
    filled(store, count=3)
    assert store.load_snapshot("g1", 3) is None


def test_load_snapshot_takes_the_latest_at_or_before(store: EventStore) -> None:
    filled(store, count=6)
    store.save_snapshot("g1", 2, b"two")
    store.save_snapshot("g1", 4, b"\x00four\xff")
    assert store.load_snapshot("g1", 1) is None
    assert store.load_snapshot("g1", 2) == (2, b"two")
    assert store.load_snapshot("g1", 3) == (2, b"two")
    assert store.load_snapshot("g1", 99) == (4, b"\x00four\xff")


def test_saving_a_snapshot_again_replaces_it(store: EventStore) -> None:
    filled(store, count=2)
    store.save_snapshot("g1", 2, b"old")
    store.save_snapshot("g1", 2, b"new")
    assert store.load_snapshot("g1", 2) == (2, b"new")


def test_snapshots_are_per_stream_and_leave_the_log_alone(store: EventStore) -> None:
    log = filled(store, count=2)
    store.save_snapshot("g1", 2, b"g1")
    store.save_snapshot("g2", 2, b"g2")
    assert store.load_snapshot("g2", 5) == (2, b"g2")
    assert store.read("g1") == log and store.version("g1") == 2


def test_drop_snapshots_of_one_stream_or_all(store: EventStore) -> None:
    for stream in ("g1", "g2", "g3"):
        store.save_snapshot(stream, 1, stream.encode())
    store.drop_snapshots("g1")
    assert store.load_snapshot("g1", 9) is None
    assert store.load_snapshot("g2", 9) == (1, b"g2")
    store.drop_snapshots()
    assert [store.load_snapshot(s, 9) for s in ("g2", "g3")] == [None, None]


def test_another_store_sees_saved_snapshots(store: EventStore, backend: Backend) -> None:
    store.save_snapshot("g1", 64, b"frame")
    assert backend.open().load_snapshot("g1", 100) == (64, b"frame")


# racing creations


def create_concurrently(stores: list[EventStore], count: int, key: str | None) -> list[Any]:
    """Let count threads create stream g1 at once; each one's result or error."""
    outcomes: list[Any] = []
    start = threading.Barrier(count)

    def create(n: int) -> None:
        start.wait()
        try:
            outcomes.append(
                stores[n % len(stores)].append(Appending("g1", events("GameCreated"), 0, key))
            )
        except VersionConflict as conflict:
            outcomes.append(conflict)

    workers = [threading.Thread(target=create, args=(n,)) for n in range(count)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return outcomes


def test_racing_creations_of_one_stream_one_wins(store: EventStore, backend: Backend) -> None:
    outcomes = create_concurrently([store, backend.open()], 8, key=None)
    assert sum(not isinstance(o, VersionConflict) for o in outcomes) == 1
    assert all(isinstance(o, StreamExists) for o in outcomes if isinstance(o, VersionConflict))
    assert store.version("g1") == 1


def test_racing_keyed_creations_create_once(store: EventStore, backend: Backend) -> None:
    outcomes = create_concurrently([store, backend.open(ticking_clock())], 8, key="create")
    assert sorted(o.replayed for o in outcomes) == [False] + [True] * 7
    assert all(o.events == outcomes[0].events for o in outcomes)
    assert store.version("g1") == 1


def test_an_awaited_append_keeps_the_checks_of_an_append(store: EventStore) -> None:
    assert inspect.iscoroutinefunction(store.append_async)

    async def run() -> tuple[AppendResult, AppendResult]:
        first = await store.append_async(Appending("g1", events("A", "B"), 0, "k1"))
        again = await store.append_async(Appending("g1", events("A", "B"), 0, "k1"))
        with pytest.raises(VersionConflict):
            await store.append_async(Appending("g1", events("C"), 1))
        return first, again

    first, again = asyncio.run(run())
    assert not first.replayed and again.replayed and again.events == first.events
    assert tuple(store.read("g1")) == first.events


# idempotency keys with a request fingerprint (IETF Idempotency-Key draft)


def test_same_fingerprint_replays_even_with_other_events_and_a_stale_version(
    store: EventStore,
) -> None:
    store.append(Appending("g1", events("Created"), 0))
    first = store.append(Appending("g1", events("Moved"), 1, "k", fingerprint="fp-1"))
    store.append(Appending("g1", events("Other"), 2))
    retry = store.append(Appending("g1", events("Moved", "Passed"), 3, "k", fingerprint="fp-1"))
    assert retry.replayed and retry.events == first.events
    assert store.version("g1") == 3


def test_another_fingerprint_is_a_reused_key_even_with_the_same_events(store: EventStore) -> None:
    store.append(Appending("g1", events("Created"), 0))
    store.append(Appending("g1", events("Moved"), 1, "k", fingerprint="fp-1"))
    before = store.read("g1")
    with pytest.raises(IdempotencyKeyReused, match="'k'") as caught:
        store.append(Appending("g1", events("Moved"), 2, "k", fingerprint="fp-2"))
    assert (caught.value.stream_id, caught.value.key) == ("g1", "k")
    assert store.read("g1") == before


def test_lookup_judges_the_fingerprint(store: EventStore) -> None:
    store.append(Appending("g1", events("Created"), 0))
    first = store.append(Appending("g1", events("Moved"), 1, "k", fingerprint="fp-1"))
    assert store.lookup("g1", "k", "fp-1") == AppendResult(first.events, replayed=True)
    assert store.lookup("g1", "k") == AppendResult(first.events, replayed=True)
    with pytest.raises(IdempotencyKeyReused):
        store.lookup("g1", "k", "fp-2")
    assert store.lookup("g1", "unused", "fp-1") is None


def test_without_a_fingerprint_on_either_side_the_events_judge(store: EventStore) -> None:
    store.append(Appending("g1", events("Created"), 0))
    with_print = store.append(Appending("g1", events("Moved"), 1, "printed", fingerprint="fp-1"))
    without = store.append(Appending("g1", events("Moved"), 2, "plain"))
    assert store.append(Appending("g1", events("Moved"), 1, "printed")).events == with_print.events
    with pytest.raises(IdempotencyKeyReused):
        store.append(Appending("g1", events("Other"), 3, "printed"))
    assert store.append(
        Appending("g1", events("Moved"), 2, "plain", fingerprint="fp-9")
    ) == AppendResult(without.events, replayed=True)
    with pytest.raises(IdempotencyKeyReused):
        store.append(Appending("g1", events("Other"), 3, "plain", fingerprint="fp-9"))
    assert store.lookup("g1", "plain", "fp-9") == AppendResult(without.events, replayed=True)
    assert store.version("g1") == 3


def test_an_awaited_append_takes_a_fingerprint(store: EventStore) -> None:
    async def run() -> tuple[AppendResult, AppendResult]:
        first = await store.append_async(Appending("g1", events("A"), 0, "k", fingerprint="fp-1"))
        again = await store.append_async(Appending("g1", events("B"), 1, "k", fingerprint="fp-1"))
        with pytest.raises(IdempotencyKeyReused):
            await store.append_async(Appending("g1", events("A"), 0, "k", fingerprint="fp-2"))
        return first, again

    first, again = asyncio.run(run())
    assert again == AppendResult(first.events, replayed=True)
    assert store.version("g1") == 1


def keyed_race(
    stores: list[EventStore], count: int, expected: int, fingerprint: Callable[[int], str]
) -> list[AppendResult | Exception]:
    """Let count threads append with one key at once, each its own events; outcomes in order."""
    outcomes: list[AppendResult | Exception] = [ValueError("no outcome")] * count
    start = threading.Barrier(count)

    def request(n: int) -> None:
        new = [NewEvent("Moved", {"thread": n}, n % 4)]
        start.wait()
        try:
            outcomes[n] = stores[n % len(stores)].append(
                Appending("g1", new, expected, "shared", fingerprint=fingerprint(n))
            )
        except Exception as error:
            outcomes[n] = error

    workers = [threading.Thread(target=request, args=(n,)) for n in range(count)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return outcomes


def assert_one_wrote(
    store: EventStore, outcomes: list[AppendResult | Exception], fingerprint: Callable[[int], str]
) -> None:
    """Exactly one outcome wrote; each other replayed it (same fingerprint) or raised
    IdempotencyKeyReused (another), nothing else; the log holds the winner's events once."""
    written = [n for n, o in enumerate(outcomes) if isinstance(o, AppendResult) and not o.replayed]
    assert len(written) == 1, outcomes
    winner = outcomes[written[0]]
    assert isinstance(winner, AppendResult)
    for n, outcome in enumerate(outcomes):
        if fingerprint(n) == fingerprint(written[0]):
            assert outcome == winner or outcome == AppendResult(winner.events, replayed=True)
        else:
            assert isinstance(outcome, IdempotencyKeyReused), outcome
    log = store.read("g1")
    assert tuple(log[-len(winner.events) :]) == winner.events
    assert store.version("g1") == winner.events[-1].version
    assert verify_chain(log) is None


@pytest.mark.parametrize(
    "fingerprint",
    [lambda n: "same", lambda n: f"own-{n}", lambda n: f"half-{n % 2}"],
    ids=["same-fingerprint", "own-fingerprints", "two-fingerprints"],
)
def test_racing_appends_with_one_key_write_once(
    store: EventStore, backend: Backend, fingerprint: Callable[[int], str]
) -> None:
    stores = [store, backend.open(ticking_clock()), backend.open(ticking_clock())]
    store.append(Appending("g1", events("Created"), 0))
    outcomes = keyed_race(stores, 12, 1, fingerprint)
    assert_one_wrote(store, outcomes, fingerprint)


@pytest.mark.parametrize(
    "fingerprint", [lambda n: "same", lambda n: f"half-{n % 2}"], ids=["same", "two"]
)
def test_racing_keyed_creations_with_fingerprints_create_once(
    store: EventStore, backend: Backend, fingerprint: Callable[[int], str]
) -> None:
    stores = [store, backend.open(ticking_clock())]
    outcomes = keyed_race(stores, 8, 0, fingerprint)
    assert_one_wrote(store, outcomes, fingerprint)
    assert store.version("g1") == 1


def test_racing_awaited_appends_with_one_key_write_once(store: EventStore) -> None:
    store.append(Appending("g1", events("Created"), 0))

    def fingerprint(n: int) -> str:
        return f"half-{n % 2}"

    async def attempt(n: int) -> AppendResult | Exception:
        new = [NewEvent("Moved", {"task": n}, 0)]
        try:
            return await store.append_async(
                Appending("g1", new, 1, "shared", fingerprint=fingerprint(n))
            )
        except Exception as error:
            return error

    async def run() -> list[AppendResult | Exception]:
        return list(await asyncio.gather(*(attempt(n) for n in range(16))))

    assert_one_wrote(store, asyncio.run(run()), fingerprint)


# idempotency key expiry


def test_an_expired_key_is_as_if_unused_and_a_new_append_takes_it_over(
    backend: Backend,
) -> None:
    clock = ManualClock()
    store = backend.open(clock, idempotency_ttl=60)
    first = store.append(Appending("g1", events("A"), 0, "k", fingerprint="fp-1"))
    clock.advance(60)  # exactly the lifetime: not older than it yet
    assert store.lookup("g1", "k", "fp-1") == AppendResult(first.events, replayed=True)
    clock.advance(0.001)
    assert store.lookup("g1", "k", "fp-1") is None
    assert store.lookup("g1", "k", "fp-2") is None
    taken = store.append(Appending("g1", events("B"), 1, "k", fingerprint="fp-2"))
    assert not taken.replayed and store.version("g1") == 2
    assert store.lookup("g1", "k", "fp-2") == AppendResult(taken.events, replayed=True)
    with pytest.raises(IdempotencyKeyReused):
        store.append(Appending("g1", events("B"), 2, "k", fingerprint="fp-1"))
    clock.advance(59)
    assert (
        store.append(Appending("g1", events("C"), 2, "k", fingerprint="fp-2")).events
        == taken.events
    )
    assert store.version("g1") == 2


def test_an_expired_key_without_fingerprints_is_unused_too(backend: Backend) -> None:
    clock = ManualClock()
    store = backend.open(clock, idempotency_ttl=1)
    store.append(Appending("g1", events("A"), 0, "k"))
    clock.advance(2)
    again = store.append(Appending("g1", events("A"), 1, "k"))
    assert not again.replayed and [e.version for e in again.events] == [2]


def test_each_store_judges_expiry_by_its_own_lifetime(backend: Backend) -> None:
    clock = ManualClock()
    short, long = backend.open(clock, idempotency_ttl=10), backend.open(clock)
    first = short.append(Appending("g1", events("A"), 0, "k", fingerprint="fp"))
    clock.advance(11)
    assert short.lookup("g1", "k") is None
    assert long.lookup("g1", "k") == AppendResult(first.events, replayed=True)
    clock.advance(86400)
    assert long.lookup("g1", "k") is None


def test_a_failed_takeover_of_an_expired_key_keeps_the_old_row(backend: Backend) -> None:
    clock = ManualClock()
    short, long = backend.open(clock, idempotency_ttl=10), backend.open(clock)
    first = short.append(Appending("g1", events("A"), 0, "k", fingerprint="fp-1"))
    clock.advance(11)
    with pytest.raises(VersionConflict):
        short.append(Appending("g1", events("B"), 5, "k", fingerprint="fp-2"))
    assert long.lookup("g1", "k", "fp-1") == AppendResult(first.events, replayed=True)
    assert short.version("g1") == 1


def test_racing_appends_with_an_expired_key_take_it_over_once(backend: Backend) -> None:
    clock = ManualClock()
    stores = [backend.open(clock, idempotency_ttl=10) for _ in range(3)]
    stores[0].append(Appending("g1", events("A"), 0, "shared", fingerprint="old"))
    clock.advance(11)

    def fingerprint(n: int) -> str:
        return "new"

    outcomes = keyed_race(stores, 9, 1, fingerprint)
    assert_one_wrote(stores[0], outcomes, fingerprint)
    assert stores[0].version("g1") == 2


@pytest.mark.parametrize("ttl", [-1.0, float("nan")])
def test_a_lifetime_that_is_no_duration_is_refused(backend: Backend, ttl: float) -> None:
    with pytest.raises(ValueError, match="idempotency_ttl"):
        backend.open(idempotency_ttl=ttl)


# deadlines


T1, T2, T3 = (
    "2025-02-01T10:00:00.000000Z",
    "2025-02-01T11:00:00.000000Z",
    "2025-02-02T00:00:00.000000Z",
)


def test_every_append_sets_replaces_or_clears_the_deadline(store: EventStore) -> None:
    assert store.deadline("g1") is None
    store.append(Appending("g1", events("A"), 0, deadline=T1))
    assert store.deadline("g1") == T1
    store.append(Appending("g1", events("B"), 1, deadline=T2))
    assert store.deadline("g1") == T2
    store.append(Appending("g1", events("C"), 2))
    assert store.deadline("g1") is None
    store.append(Appending("g1", events("D"), 3, deadline=T1))
    assert store.deadline("g1") == T1


def test_an_awaited_append_sets_the_deadline(store: EventStore) -> None:
    async def run() -> None:
        await store.append_async(Appending("g1", events("A"), 0, deadline=T2))
        await store.append_async(Appending("g2", events("A"), 0, deadline=T1))
        await store.append_async(Appending("g1", events("B"), 1, "k", deadline=T3))

    asyncio.run(run())
    assert (store.deadline("g1"), store.deadline("g2")) == (T3, T1)


def test_an_append_that_writes_nothing_leaves_the_deadline(store: EventStore) -> None:
    store.append(Appending("g1", events("A"), 0, "k", deadline=T1))
    store.append(Appending("g1", events("B"), 1, deadline=T2))
    assert store.append(Appending("g1", events("A"), 0, "k", deadline=T3)).replayed
    with pytest.raises(VersionConflict):
        store.append(Appending("g1", events("C"), 1, deadline=T3))
    with pytest.raises(IdempotencyKeyReused):
        store.append(Appending("g1", events("Z"), 2, "k", deadline=None))
    assert store.deadline("g1") == T2


def test_a_deadline_is_stored_in_iso_timestamps_form(store: EventStore) -> None:
    store.append(Appending("g1", events("A"), 0, deadline="2025-03-01T14:30:05+02:00"))
    assert store.deadline("g1") == "2025-03-01T12:30:05.000000Z"
    store.append(Appending("g1", events("B"), 1, deadline="2025-03-01T12:30:05Z"))
    assert store.deadline("g1") == "2025-03-01T12:30:05.000000Z"
    assert store.due("2025-03-01T13:30:05+01:00") == [("g1", "2025-03-01T12:30:05.000000Z")]


@pytest.mark.parametrize("bad", ["tomorrow", "", "2025-13-01T00:00:00Z"])
def test_a_deadline_that_is_no_time_is_refused_and_writes_nothing(
    store: EventStore, bad: str
) -> None:
    with pytest.raises(ValueError, match="ISO-8601"):
        store.append(Appending("g1", events("A"), 0, deadline=bad))
    with pytest.raises(ValueError, match="ISO-8601"):
        asyncio.run(store.append_async(Appending("g1", events("A"), 0, deadline=bad)))
    with pytest.raises(ValueError, match="ISO-8601"):
        store.due(bad)
    assert store.version("g1") == 0


def test_due_lists_the_streams_whose_deadline_has_come_earliest_first(store: EventStore) -> None:
    store.append(Appending("late", events("A"), 0, deadline=T3))
    store.append(Appending("b-tie", events("A"), 0, deadline=T2))
    store.append(Appending("a-tie", events("A"), 0, deadline=T2))
    store.append(Appending("early", events("A"), 0, deadline=T1))
    store.append(Appending("none", events("A"), 0))
    store.append(Appending("cleared", events("A"), 0, deadline=T1))
    store.append(Appending("cleared", events("B"), 1))
    assert store.due("2025-01-01T00:00:00.000000Z") == []
    assert store.due(T1) == [("early", T1)]
    assert store.due(T2) == [("early", T1), ("a-tie", T2), ("b-tie", T2)]
    assert store.due("2030-01-01T00:00:00Z") == [
        ("early", T1),
        ("a-tie", T2),
        ("b-tie", T2),
        ("late", T3),
    ]
    assert store.due(T3, limit=2) == [("early", T1), ("a-tie", T2)]
    assert store.due(T3, limit=0) == []
    with pytest.raises(ValueError, match="limit"):
        store.due(T3, limit=-1)


offsets = st.integers(min_value=-14 * 60, max_value=14 * 60).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
moments = st.datetimes(
    min_value=datetime(1970, 1, 2), max_value=datetime(9999, 12, 30), timezones=offsets
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(deadlines=st.lists(moments, min_size=1, max_size=6))
def test_due_orders_deadlines_as_times_whatever_their_offsets(
    store: EventStore, deadlines: list[datetime]
) -> None:
    run = next(stream_ids)  # the store outlives examples: streams of their own
    names = [f"due-{run}-{n}" for n in range(len(deadlines))]
    for name, moment in zip(names, deadlines, strict=True):
        store.append(Appending(name, events("A"), 0, deadline=moment.isoformat()))
    until = max(deadlines)
    mine = [(name, at) for name, at in store.due(iso_timestamp(until), 10**6) if name in names]
    by_time = sorted(zip(deadlines, names, strict=True), key=lambda pair: (pair[0], pair[1]))
    assert mine == [(name, iso_timestamp(moment)) for moment, name in by_time]
    for name in names:  # clear them, so later examples see only their own
        store.append(Appending(name, events("B"), 1))


def test_deadlines_survive_reopening(backend: Backend) -> None:
    store = backend.open()
    store.append(Appending("g1", events("A"), 0, deadline=T2))
    store.append(Appending("g2", events("A"), 0, deadline=T1))
    store.append(Appending("g3", events("A"), 0))
    store.close()
    again = backend.open()
    assert (again.deadline("g1"), again.deadline("g2"), again.deadline("g3")) == (T2, T1, None)
    assert again.due(T3) == [("g2", T1), ("g1", T2)]
    again.append(Appending("g2", events("B"), 1))
    assert backend.open().due(T3) == [("g1", T2)]


# a database made by the first schema


def test_a_database_of_the_first_schema_opens_and_gains_the_new_columns(
    backend: Backend,
) -> None:
    made = seal("old", events("Created", "Moved"), 0, GENESIS, "2025-01-31T12:00:00.000000Z")
    backend.make_old(FIRST, [OldStream({}, None, made, "old-key")])
    assert "deadline" not in backend.columns("streams")
    clock = ManualClock()
    store = backend.open(clock)
    assert {"deadline"} <= backend.columns("streams")
    assert {"fingerprint", "created_at"} <= backend.columns("idempotency")
    assert "streams_deadline" in backend.indexes("streams")
    assert tuple(store.read("old")) == made and verify_chain(store.read("old")) is None
    assert store.deadline("old") is None and store.due(T3) == []
    # the old key keeps working, timed by its events (no fingerprint: the events judge)
    assert store.lookup("old", "old-key", "any") == AppendResult(made, replayed=True)
    assert store.append(Appending("old", events("Created", "Moved"), 0, "old-key")).events == made
    with pytest.raises(IdempotencyKeyReused):
        store.append(Appending("old", events("Other"), 2, "old-key", fingerprint="fp"))
    clock.advance(86400.001)
    assert store.lookup("old", "old-key") is None
    taken = store.append(
        Appending("old", events("Later"), 2, "old-key", fingerprint="fp", deadline=T1)
    )
    assert [e.version for e in taken.events] == [3] and store.due(T1) == [("old", T1)]
    store.append(Appending("new", events("Created"), 0, "k", fingerprint="fp", deadline=T2))
    reopened = backend.open(clock)  # a second open finds nothing left to upgrade
    assert reopened.due(T3) == [("old", T1), ("new", T2)]
    assert reopened.lookup("old", "old-key", "fp") == AppendResult(taken.events, replayed=True)


# counts for the service's metrics


def test_commit_sizes_count_the_events_each_commit_appended(store: EventStore) -> None:
    store.append(Appending("g1", events("GameCreated"), 0))
    store.append(Appending("g1", events("A", "B", "C"), 1, "key"))
    store.append(Appending("g1", events("A", "B", "C"), 1, "key"))  # a replay appends nothing
    with pytest.raises(VersionConflict):
        store.append(Appending("g1", events("A"), 1))
    store.save_snapshot("g1", 4, b"derived")  # no events
    sizes = store.commit_sizes()
    assert sizes.events == 4
    counted = {
        bound: count for bound, count in zip(sizes.bounds, sizes.counts, strict=False) if count
    }
    assert counted == {1: 1, 4: 1}  # one commit of 1 event, one of 3 (bucket "at most 4")
    assert len(sizes.counts) == len(sizes.bounds) + 1 and sizes.counts[-1] == 0

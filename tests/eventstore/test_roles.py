"""The store's roles (``eventstore.base``): every backend plays each, and a batch of appends
to several streams is one transaction (all written, or none)."""

from __future__ import annotations

import pytest

from eventstore import (
    Appending,
    EventStore,
    IdempotencyKeyReused,
    NewEvent,
    Summary,
    VersionConflict,
)
from eventstore.base import Deadlines, IdempotencyKeys, Log, Snapshots, Summaries

from .conftest import Backend


def events(*types: str) -> list[NewEvent]:
    return [NewEvent(type=t, data={"n": i}, by=0) for i, t in enumerate(types)]


def test_every_store_plays_every_role(store: EventStore) -> None:
    for role in (Log, Snapshots, Summaries, Deadlines, IdempotencyKeys):
        assert isinstance(store, role), role.__name__


def test_a_batch_creates_and_extends_streams_in_one_go(store: EventStore) -> None:
    store.append(Appending("old", events("A"), 0))
    summary = Summary("game", "active", {"t": "1"}, {})
    results = store.append_batch(
        [
            Appending("new1", events("A", "B"), 0, meta={"m": 1}, private={"p": 1}),
            Appending("new2", events("A"), 0, deadline="2030-01-01T00:00:00Z", summary=summary),
            Appending("old", events("B"), 1, idempotency_key="k", fingerprint="f"),
        ]
    )
    assert [r.events[-1].version for r in results] == [2, 1, 2]
    assert [e.type for e in store.read("new1")] == ["A", "B"]
    assert store.private("new1") == {"p": 1}
    assert store.deadline("new2") == "2030-01-01T00:00:00.000000Z"
    found = store.summary("new2")
    assert found is not None and found.summary == summary
    replay = store.lookup("old", "k", "f")
    assert replay is not None and replay.events == results[2].events


def test_a_batch_with_one_conflict_writes_nothing(store: EventStore) -> None:
    store.append(Appending("old", events("A"), 0))
    with pytest.raises(VersionConflict):
        store.append_batch(
            [
                Appending("fresh", events("A"), 0, summary=Summary("game", "active", {}, {})),
                Appending("old", events("B"), 0),
            ]
        )
    assert store.version("fresh") == 0
    assert store.summary("fresh") is None
    assert store.version("old") == 1
    store.append(Appending("fresh", events("A"), 0))  # nothing of the batch is left behind
    assert store.version("fresh") == 1


def test_a_batch_with_a_reused_key_writes_nothing(store: EventStore) -> None:
    store.append(Appending("old", events("A"), 0, "k", fingerprint="one"))
    with pytest.raises(IdempotencyKeyReused):
        store.append_batch(
            [Appending("fresh", events("A"), 0), Appending("old", events("B"), 1, "k", "other")]
        )
    assert store.version("fresh") == 0


def test_a_batch_retried_with_its_keys_replays(store: EventStore) -> None:
    batch = [Appending(f"s{n}", events("A"), 0, idempotency_key="k") for n in range(3)]
    first = store.append_batch(batch)
    again = store.append_batch(batch)
    assert all(r.replayed for r in again)
    assert [r.events for r in again] == [r.events for r in first]


def test_a_batch_names_each_stream_once(store: EventStore) -> None:
    with pytest.raises(ValueError, match="at most once"):
        store.append_batch([Appending("s", events("A"), 0), Appending("s", events("B"), 1)])
    assert store.version("s") == 0


def test_after_a_failed_batch_the_next_appends_see_the_true_heads(
    store: EventStore, backend: Backend
) -> None:
    store.append(Appending("a", events("A"), 0))
    with pytest.raises(VersionConflict):
        store.append_batch([Appending("a", events("B"), 1), Appending("b", events("A"), 5)])
    store.append(Appending("a", events("B"), 1))
    other = backend.open()
    assert [e.version for e in other.read("a")] == [1, 2]

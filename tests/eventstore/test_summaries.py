"""Summaries kept beside the log, listed a page at a time, and the schema's version: every
backend passes these."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from eventstore import (
    Appending,
    EventStore,
    NewEvent,
    StoreError,
    Summarised,
    Summary,
    SummaryQuery,
    VersionConflict,
)
from eventstore.sql import SCHEMA_VERSION
from tests.previous_schema import PREVIOUS, OldStream

from .conftest import Backend, SqliteBackend


def one(type_: str = "E") -> list[NewEvent]:
    return [NewEvent(type_, {}, 0)]


def summary(status: str = "active", kind: str = "k", **tags: str) -> Summary:
    return Summary(kind, status, tags, {"note": status, "n": [1, 2]})


def ids(rows: list[Summarised]) -> list[str]:
    return [row.stream_id for row in rows]


def pages(store: EventStore, query: SummaryQuery) -> list[list[str]]:
    """Every page of ``query``, following each page's last row."""
    found, after = [], None
    while True:
        rows = store.summaries(
            SummaryQuery(query.kind, query.status, query.tag, query.word, after, query.limit)
        )
        if not rows:
            return found
        found.append(ids(rows))
        after = (rows[-1].created_at, rows[-1].stream_id)


def test_an_append_writes_the_summary_in_its_transaction(store: EventStore) -> None:
    created = store.append(Appending("g1", one(), 0, summary=summary(round="1"))).events
    store.append(Appending("g2", one(), 0))  # no summary: none is kept
    [row] = store.summaries(SummaryQuery())
    assert row == Summarised("g1", 1, created[0].at, created[0].at, summary(round="1"))
    assert store.summary("g2") is None and store.unsummarised() == ["g2"]
    moved = store.append(
        Appending("g1", one(), 1)
    ).events  # none given: it stays, at the stream's version
    assert store.summary("g1") == Summarised("g1", 2, created[0].at, created[0].at, row.summary)
    assert moved[0].version == 2


def test_a_later_summary_replaces_the_first_and_its_tags(store: EventStore) -> None:
    created = store.append(Appending("g1", one(), 0, summary=summary(round="1", table="4"))).events
    ended = store.append(
        Appending("g1", one("End"), 1, summary=summary("finished", round="2"))
    ).events
    row = store.summary("g1")
    assert row == Summarised("g1", 2, created[0].at, ended[0].at, summary("finished", round="2"))
    assert store.summaries(SummaryQuery(tag=("round", "1"))) == []
    assert store.summaries(SummaryQuery(tag=("table", "4"))) == []
    assert ids(store.summaries(SummaryQuery(tag=("round", "2")))) == ["g1"]


def test_an_append_that_fails_or_replays_writes_no_summary(store: EventStore) -> None:
    store.append(Appending("g1", one(), 0, "key", summary=summary()))
    with pytest.raises(VersionConflict):
        store.append(Appending("g1", one(), 0, summary=summary("finished")))
    store.append(Appending("g1", one(), 0, "key", summary=summary("finished")))  # a replay
    assert store.summaries(SummaryQuery(status="finished")) == []
    assert store.version("g1") == 1


def test_an_awaited_append_writes_the_summary(store: EventStore) -> None:
    asyncio.run(store.append_async(Appending("g1", one(), 0, summary=summary("finished"))))
    assert ids(store.summaries(SummaryQuery(status="finished"))) == ["g1"]


def fill(store: EventStore, count: int) -> list[str]:
    """Streams s00.. with alternating statuses, kinds by three, a league tag by four."""
    made = []
    for n in range(count):
        status = "finished" if n % 2 else "active"
        tags = {"league": f"L{n % 4}", "n": str(n)}
        stream_id = f"s{n:02}"
        store.append(Appending(stream_id, one(), 0, summary=summary(status, f"k{n % 3}", **tags)))
        made.append(stream_id)
    return made


def test_filters_select_in_creation_order(store: EventStore) -> None:
    made = fill(store, 24)
    assert ids(store.summaries(SummaryQuery(limit=100))) == made
    assert ids(store.summaries(SummaryQuery(status="finished"))) == made[1::2]
    assert ids(store.summaries(SummaryQuery(kind="k1"))) == made[1::3]
    assert ids(store.summaries(SummaryQuery(tag=("league", "L2")))) == made[2::4]
    both = SummaryQuery(kind="k0", status="active", tag=("league", "L2"))
    assert ids(store.summaries(both)) == [s for s in made[2::4] if int(s[1:]) % 3 == 0]
    assert ids(store.summaries(SummaryQuery(word="L3"))) == made[3::4]  # a value
    assert ids(store.summaries(SummaryQuery(word="league"))) == made  # a key
    assert store.summaries(SummaryQuery(tag=("league", "L9"))) == []
    assert ids(store.summaries(SummaryQuery(limit=5))) == made[:5]
    assert ids(store.summaries(SummaryQuery(other_than="k2"))) == [
        s for s in made if int(s[1:]) % 3 != 2
    ]
    but = SummaryQuery(status="finished", tag=("league", "L1"), other_than="k1")
    assert ids(store.summaries(but)) == [s for s in made[1::4] if int(s[1:]) % 3 != 1]


@pytest.mark.parametrize(
    "query",
    [
        SummaryQuery(limit=5),
        SummaryQuery(status="finished", limit=4),
        SummaryQuery(tag=("league", "L1"), limit=2),
        SummaryQuery(kind="k2", word="L2", limit=1),
    ],
    ids=["all", "status", "tag", "kind-and-word"],
)
def test_keyset_pages_list_each_stream_once_in_order(
    store: EventStore, query: SummaryQuery
) -> None:
    fill(store, 24)
    whole = ids(store.summaries(SummaryQuery(query.kind, query.status, query.tag, query.word)))
    found = pages(store, query)
    assert [s for page in found for s in page] == whole and whole
    assert all(0 < len(page) <= query.limit for page in found)


def test_streams_added_between_pages_are_never_listed_twice(store: EventStore) -> None:
    made = fill(store, 6)
    first = store.summaries(SummaryQuery(limit=3))
    store.append(Appending("late", one(), 0, summary=summary()))
    rest = store.summaries(SummaryQuery(after=(first[-1].created_at, first[-1].stream_id)))
    assert ids(first) + ids(rest) == [*made, "late"]


def test_save_summary_writes_only_at_the_version_it_was_made_from(store: EventStore) -> None:
    store.append(Appending("g1", one(), 0))
    store.append(Appending("g1", one(), 1))
    assert not store.save_summary("g1", 1, summary("finished"), "2025-02-01T10:00:00+01:00")
    assert not store.save_summary("nobody", 0, summary(), "2025-02-01T10:00:00Z")
    assert store.summary("g1") is None
    assert store.save_summary("g1", 2, summary("finished", a="b"), "2025-02-01T10:00:00+01:00")
    row = store.summary("g1")
    assert row is not None and row.updated_at == "2025-02-01T09:00:00.000000Z"
    assert ids(store.summaries(SummaryQuery(tag=("a", "b")))) == ["g1"]


def test_dropped_summaries_leave_the_log_and_list_the_streams_to_summarise(
    store: EventStore,
) -> None:
    made = fill(store, 5)
    store.drop_summaries()
    assert store.summaries(SummaryQuery()) == []
    assert store.summaries(SummaryQuery(tag=("league", "L1"))) == []
    assert store.unsummarised() == made and store.unsummarised(2) == made[:2]
    assert [len(store.read(s)) for s in made] == [1] * 5


def test_another_store_sees_the_summaries(store: EventStore, backend: Backend) -> None:
    made = fill(store, 3)
    assert ids(backend.open().summaries(SummaryQuery())) == made


def test_a_query_with_a_negative_limit_is_refused(store: EventStore) -> None:
    with pytest.raises(ValueError):
        store.summaries(SummaryQuery(limit=-1))


# the schema's version


def test_a_new_database_is_at_the_schema_version(store: EventStore) -> None:
    assert store.schema_version() == SCHEMA_VERSION >= 1


def old_streams(store: EventStore, count: int) -> list[OldStream]:
    """Streams appended to a store and read back, for a database of the previous schema."""
    for n in range(count):
        store.append(Appending(f"old{n}", [NewEvent("Created", {"n": n}, "referee"), *one()], 0))
    return [OldStream({"n": n}, {"secret": n}, store.read(f"old{n}")) for n in range(count)]


def test_a_database_of_the_previous_schema_migrates_once_on_opening(
    backend: Backend, tmp_path: Any
) -> None:
    from eventstore import SqliteEventStore

    scratch = SqliteEventStore(tmp_path / "scratch.db")
    streams = old_streams(scratch, 3)
    scratch.close()
    backend.make_old(PREVIOUS, streams)
    store = backend.open()
    assert store.schema_version() == SCHEMA_VERSION
    each = isinstance(backend, SqliteBackend)  # SQLite keeps the last; PostgreSQL a row each
    applied = [SCHEMA_VERSION] if each else list(range(1, SCHEMA_VERSION + 1))
    assert backend.recorded_versions() == applied
    assert {"kind", "status", "created_at", "updated_at", "tags", "document"} <= backend.columns(
        "summaries"
    )
    assert "summary_tags_pair" in backend.indexes("summary_tags")
    assert store.unsummarised() == ["old0", "old1", "old2"]
    assert store.read("old1") == list(streams[1].events) and store.private("old1") == {"secret": 1}
    assert store.save_summary("old1", 2, summary("finished"), streams[1].events[-1].at)
    again = backend.open()  # nothing left to migrate: the summary written stays
    assert again.schema_version() == SCHEMA_VERSION
    assert ids(again.summaries(SummaryQuery())) == ["old1"]
    assert backend.recorded_versions() == applied


def test_a_database_of_a_later_schema_is_refused(backend: Backend) -> None:
    backend.open().close()
    backend.record_version(SCHEMA_VERSION + 1)
    with pytest.raises(StoreError, match="newer Tabula"):
        backend.open()

"""Derived data over the summaries: the order summaries were written in, and the rows and
marks a follower keeps; every backend passes these."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from eventstore import Appending, DerivedRow, Drop, EventStore, NewEvent, SqliteEventStore, Summary
from eventstore.sql import SCHEMA_VERSION


def one() -> list[NewEvent]:
    return [NewEvent("E", {}, 0)]


def summary(status: str = "active", kind: str = "k") -> Summary:
    return Summary(kind, status, {}, {"status": status})


def test_changes_come_in_the_order_summaries_were_written_each_at_its_latest(
    store: EventStore,
) -> None:
    store.append(Appending("a", one(), 0, summary=summary()))
    store.append(Appending("b", one(), 0, summary=summary(kind="other")))
    store.append(Appending("c", one(), 0))  # no summary: no change
    store.append(Appending("a", one(), 1, summary=summary("finished")))
    changes = store.changes(0)
    assert [(c.row.stream_id, c.row.summary.status) for c in changes] == [
        ("b", "active"),
        ("a", "finished"),
    ]
    positions = [c.position for c in changes]
    assert positions == sorted(positions) and len(set(positions)) == 2
    assert [c.row.stream_id for c in store.changes(0, kind="k")] == ["a"]
    assert [c.row.stream_id for c in store.changes(0, other_than="k")] == ["b"]
    assert store.changes(positions[-1]) == []
    assert store.save_summary("b", 1, summary("finished", "other"), changes[0].row.updated_at)
    assert [c.row.stream_id for c in store.changes(positions[-1])] == ["b"]
    assert [c.row.stream_id for c in store.changes(0, limit=1)] == ["a"]


def test_a_mark_moves_only_from_where_it_was_read(store: EventStore) -> None:
    row = DerivedRow("s", "k1", 1.0, {"n": 1})
    assert store.derived_mark("m") == 0
    assert store.derived_save("m", 0, 5, [row])
    assert store.derived_mark("m") == 5
    assert not store.derived_save("m", 0, 7, [DerivedRow("s", "k2", 0.0, {"n": 2})])
    assert store.derived_mark("m") == 5 and store.derived_rows("s") == [row]
    assert store.derived_save("m", 5, 7, [DerivedRow("s", "k2", 0.0, {"n": 2})])
    assert [r.key for r in store.derived_rows("s")] == ["k1", "k2"]


def test_derived_rows_read_in_key_and_in_score_order_and_drop_from_a_key(
    store: EventStore,
) -> None:
    rows = [
        DerivedRow("s", key, score, {"key": key})
        for key, score in [("a", 3.0), ("b", -1.0), ("c", 3.0), ("d", 0.5)]
    ]
    assert store.derived_save("m", 0, 1, [*rows, DerivedRow("t", "a", 0.0, {})])
    assert [r.key for r in store.derived_rows("s")] == ["a", "b", "c", "d"]
    assert [r.key for r in store.derived_rows("s", "a", before="d")] == ["b", "c"]
    assert [r.key for r in store.derived_rows("s", since="b", limit=2)] == ["b", "c"]
    assert [r.key for r in store.derived_rows("s", before="c", reverse=True)] == ["b", "a"]
    assert [r.key for r in store.derived_ranked("s")] == ["b", "d", "a", "c"]
    assert [r.key for r in store.derived_ranked("s", (0.5, "d"), limit=1)] == ["a"]
    assert store.derived_rank("s", 3.0, "c") == 3 and store.derived_rank("s", -1.0, "b") == 0
    assert store.derived_rows("s")[0] == rows[0]
    assert store.derived_save("m", 1, 2, [DerivedRow("s", "a")], [Drop("s", "c")])
    assert [r.key for r in store.derived_rows("s")] == ["b"]
    assert store.derived_save("m", 2, 2, [], [Drop("s")])
    assert store.derived_rows("s") == [] and [r.key for r in store.derived_rows("t")] == ["a"]


def test_dropping_the_summaries_drops_what_was_derived_from_them(store: EventStore) -> None:
    store.append(Appending("a", one(), 0, summary=summary()))
    assert store.derived_save("m", 0, 1, [DerivedRow("s", "k", 0.0, {})])
    store.drop_summaries()
    assert store.derived_mark("m") == 0 and store.derived_rows("s") == []
    assert store.changes(0) == []
    store.append(Appending("b", one(), 0, summary=summary()))
    assert [c.row.stream_id for c in store.changes(0)] == ["b"]


def test_a_database_of_schema_1_gains_the_order_of_its_summaries(tmp_path: Path) -> None:
    path = tmp_path / "one.db"
    store = SqliteEventStore(path)
    for name in ("x", "y", "z"):
        store.append(Appending(name, one(), 0, summary=summary()))
    store.close()
    conn = sqlite3.connect(path)  # back to schema 1: no derived tables, no positions
    for statement in (
        "DROP TABLE derived",
        "DROP TABLE derived_marks",
        "DROP INDEX summaries_changed",
        "DROP INDEX summaries_kind_changed",
        "ALTER TABLE summaries DROP COLUMN changed",
        "PRAGMA user_version = 1",
    ):
        conn.execute(statement)
    conn.commit()
    conn.close()
    store = SqliteEventStore(path)
    assert store.schema_version() == SCHEMA_VERSION >= 2
    assert [c.row.stream_id for c in store.changes(0)] == ["x", "y", "z"]
    store.append(Appending("w", one(), 0, summary=summary()))
    assert store.changes(0)[-1].row.stream_id == "w"
    store.close()

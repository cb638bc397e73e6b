"""What only the SQLite backend promises: durability settings, SQL errors as store errors."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from eventstore import (
    Appending,
    NewEvent,
    SqliteEventStore,
    StoreError,
    VersionConflict,
    verify_chain,
)
from eventstore.sql import SELECT_DUE
from tests.previous_schema import SQLITE_FIRST_SCHEMA

EVENT = NewEvent("GameCreated", {"ruleset": "sorry"}, "server")


def raw_pragma(path: Path, name: str) -> object:
    """Read a pragma on a fresh connection to the database file."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]
    finally:
        conn.close()


def test_file_store_is_wal_and_fully_synchronous_by_default(tmp_path: Path) -> None:
    with SqliteEventStore(tmp_path / "t.db") as store:
        assert store.settings() == {"journal_mode": "wal", "synchronous": "FULL"}
    assert raw_pragma(tmp_path / "t.db", "journal_mode") == "wal"


def test_synchronous_setting_is_applied(tmp_path: Path) -> None:
    with SqliteEventStore(tmp_path / "t.db", synchronous="normal") as store:
        assert store.settings()["synchronous"] == "NORMAL"


def test_unknown_synchronous_setting_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="'sometimes'"):
        SqliteEventStore(tmp_path / "t.db", synchronous="sometimes")


def test_memory_store_works(tmp_path: Path) -> None:
    with SqliteEventStore(":memory:") as store:
        assert store.settings() == {"journal_mode": "memory", "synchronous": "FULL"}
        store.append(Appending("g1", [EVENT], 0))
        assert verify_chain(store.read("g1")) is None


def test_events_survive_reopening(tmp_path: Path) -> None:
    with SqliteEventStore(tmp_path / "t.db") as store:
        written = store.append(
            Appending("g1", [EVENT, EVENT], 0, "k", meta={"m": 1}, private={"p": 2})
        )
    with SqliteEventStore(tmp_path / "t.db") as reopened:
        assert tuple(reopened.read("g1")) == written.events
        assert reopened.private("g1") == {"p": 2}
        assert reopened.append(Appending("g1", [EVENT, EVENT], 0, "k")).replayed


def test_duplicate_version_slipping_past_the_check_is_a_conflict(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with SqliteEventStore(path) as store:
        store.append(Appending("g1", [EVENT], 0))
        sneak = sqlite3.connect(path)
        with sneak:  # a writer that bypasses the store, so only the primary key stands guard
            sneak.execute(
                "INSERT INTO events SELECT stream_id, 2, 'Sneaked', data, by, at, prev_hash, hash"
                " FROM events WHERE stream_id = 'g1' AND version = 1"
            )
        sneak.close()
        with pytest.raises(VersionConflict) as caught:
            store.append(Appending("g1", [NewEvent("MovePlayed", {}, 0)], 1, "k"))
        assert (caught.value.expected, caught.value.actual) == (1, 2)
        assert [e.type for e in store.read("g1")] == ["GameCreated", "Sneaked"]
        assert store.version("g1") == 1
        assert store.lookup("g1", "k") is None


def test_unopenable_database_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot open the event store"):
        SqliteEventStore(tmp_path / "missing" / "t.db")


def test_closed_store_raises_store_error(tmp_path: Path) -> None:
    store = SqliteEventStore(tmp_path / "t.db")
    store.close()
    with pytest.raises(StoreError, match="'g1'"):
        store.read("g1")


def test_an_append_by_another_process_is_seen_despite_the_writers_cached_head(
    tmp_path: Path,
) -> None:
    with SqliteEventStore(tmp_path / "t.db") as ours, SqliteEventStore(tmp_path / "t.db") as theirs:
        ours.append(Appending("g", [NewEvent("MovePlayed", {"n": 1}, 0)], 0))
        ours.append(Appending("g", [NewEvent("MovePlayed", {"n": 2}, 0)], 1))
        theirs.append(Appending("g", [NewEvent("MovePlayed", {"n": 3}, 1)], 2))
        with pytest.raises(VersionConflict) as conflict:
            ours.append(Appending("g", [NewEvent("MovePlayed", {"n": 3}, 0)], 2))
        assert conflict.value.actual == 3
        ours.append(Appending("g", [NewEvent("MovePlayed", {"n": 4}, 0)], 3))
        log = ours.read("g")
    assert [e.data["n"] for e in log] == [1, 2, 3, 4]
    assert verify_chain(log) is None


def test_due_reads_the_deadline_index_in_order(tmp_path: Path) -> None:
    with SqliteEventStore(tmp_path / "t.db"):
        pass
    conn = sqlite3.connect(tmp_path / "t.db")
    try:
        plan = " ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {SELECT_DUE}", ["", 9]))
    finally:
        conn.close()
    assert "COVERING INDEX streams_deadline" in plan and "TEMP B-TREE" not in plan


def test_stores_opening_a_file_of_the_first_schema_at_once_upgrade_it_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.db"
    conn = sqlite3.connect(path)
    with conn:
        for statement in SQLITE_FIRST_SCHEMA:
            conn.execute(statement)
    conn.close()
    opened: list[SqliteEventStore | Exception] = []
    start = threading.Barrier(6)

    def open_store() -> None:
        start.wait()
        try:
            opened.append(SqliteEventStore(path))
        except Exception as error:
            opened.append(error)

    workers = [threading.Thread(target=open_store) for _ in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    stores = [store for store in opened if isinstance(store, SqliteEventStore)]
    try:
        assert len(stores) == 6, opened
        stores[0].append(
            Appending("g1", [EVENT], 0, "k", fingerprint="fp", deadline="2025-01-01T00:00:00Z")
        )
        assert stores[-1].deadline("g1") == "2025-01-01T00:00:00.000000Z"
    finally:
        for store in stores:
            store.close()

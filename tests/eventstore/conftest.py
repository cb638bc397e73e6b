"""Backends for the store contract suite: every backend runs every contract test."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import pytest

from eventstore import EventStore, SqliteEventStore, StoredEvent
from eventstore.sql import POSTGRES, SQLITE, Dialect, event_row
from tests.postgres import postgres_schema

Clock = Callable[[], datetime]

SQLITE_FIRST_SCHEMA = (
    """CREATE TABLE "streams" (
       "stream_id" TEXT PRIMARY KEY,
       "version" INTEGER NOT NULL,
       "created_at" TEXT NOT NULL,
       "meta" TEXT NOT NULL,
       "private" TEXT,
       "last_type" TEXT NOT NULL
    ) STRICT""",
    """CREATE TABLE "events" (
       "stream_id" TEXT NOT NULL,
       "version" INTEGER NOT NULL,
       "type" TEXT NOT NULL,
       "data" TEXT NOT NULL,
       "by" ANY NOT NULL,
       "at" TEXT NOT NULL,
       "prev_hash" TEXT NOT NULL,
       "hash" TEXT NOT NULL,
       PRIMARY KEY ("stream_id", "version")
    ) STRICT""",
    """CREATE TABLE "snapshots" (
       "stream_id" TEXT NOT NULL,
       "version" INTEGER NOT NULL,
       "data" BLOB NOT NULL,
       PRIMARY KEY ("stream_id", "version")
    ) STRICT""",
    """CREATE TABLE "idempotency" (
       "stream_id" TEXT NOT NULL,
       "key" TEXT NOT NULL,
       "first_version" INTEGER NOT NULL,
       "last_version" INTEGER NOT NULL,
       PRIMARY KEY ("stream_id", "key")
    ) STRICT""",
)
"""The tables as the SQLite store created them before keys had fingerprints and times and
streams had deadlines (what sqlite_master held)."""

POSTGRES_FIRST_SCHEMA = (
    """CREATE TABLE streams (
        seq bigint GENERATED ALWAYS AS IDENTITY,
        stream_id text PRIMARY KEY,
        version integer NOT NULL,
        created_at text NOT NULL,
        meta json NOT NULL,
        private json,
        last_type text NOT NULL,
        head_hash text NOT NULL
    )""",
    """CREATE TABLE events (
        stream_id text NOT NULL,
        version integer NOT NULL,
        type text NOT NULL,
        data json NOT NULL,
        by json NOT NULL,
        at text NOT NULL,
        prev_hash text NOT NULL,
        hash text NOT NULL,
        PRIMARY KEY (stream_id, version)
    )""",
    """CREATE TABLE snapshots (
        stream_id text NOT NULL,
        version integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (stream_id, version)
    )""",
    """CREATE TABLE idempotency (
        stream_id text NOT NULL,
        key text NOT NULL,
        first_version integer NOT NULL,
        last_version integer NOT NULL,
        PRIMARY KEY (stream_id, key)
    )""",
)
"""The PostgreSQL store's tables before the same change."""


class Backend(Protocol):
    """Opens stores on one database and reaches behind them to tamper with it."""

    def open(self, clock: Clock | None = None, idempotency_ttl: float | None = None) -> EventStore:
        """Open another store on the backend's database."""
        ...

    def tamper(self, stream_id: str, version: int, column: str, value: Any) -> None:
        """Overwrite one column of one stored event behind the store's back."""
        ...

    def make_first_schema(self, stored: Sequence[StoredEvent], key: str) -> None:
        """Create the tables of the first schema, holding one stream of stored events, the
        whole of it appended with key (before any store opens the database)."""
        ...

    def columns(self, table: str) -> set[str]:
        """The names of a table's columns."""
        ...

    def indexes(self, table: str) -> set[str]:
        """The names of a table's indexes."""
        ...


def store_options(clock: Clock | None, idempotency_ttl: float | None) -> dict[str, Any]:
    """A store's keyword arguments: those given, the defaults for the others."""
    given = {"clock": clock, "idempotency_ttl": idempotency_ttl}
    return {name: value for name, value in given.items() if value is not None}


def first_schema_rows(
    dialect: Dialect, stored: Sequence[StoredEvent], key: str
) -> tuple[tuple[Any, ...], list[tuple[Any, ...]], tuple[Any, ...]]:
    """The rows the first schema held for a stream: streams (without head_hash), events, key."""
    first, last = stored[0], stored[-1]
    stream = (last.stream_id, last.version, first.at, "{}", None, last.type)
    key_row = (last.stream_id, key, first.version, last.version)
    return stream, [event_row(dialect, event) for event in stored], key_row


@dataclass
class SqliteBackend:
    """A SQLite file database in a temporary folder."""

    path: Path
    opened: list[EventStore] = field(default_factory=list)

    def open(self, clock: Clock | None = None, idempotency_ttl: float | None = None) -> EventStore:
        """Open another store on the database file."""
        store = SqliteEventStore(self.path, **store_options(clock, idempotency_ttl))
        self.opened.append(store)
        return store

    def make_first_schema(self, stored: Sequence[StoredEvent], key: str) -> None:
        """Run the first schema's CREATE statements and insert its rows on a raw connection."""
        stream, events, key_row = first_schema_rows(SQLITE, stored, key)
        conn = sqlite3.connect(self.path)
        with conn:
            for statement in SQLITE_FIRST_SCHEMA:
                conn.execute(statement)
            conn.execute("INSERT INTO streams VALUES (?, ?, ?, ?, ?, ?)", stream)
            conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", events)
            conn.execute("INSERT INTO idempotency VALUES (?, ?, ?, ?)", key_row)
        conn.close()

    def columns(self, table: str) -> set[str]:
        return self._names(SQLITE.columns, table)

    def indexes(self, table: str) -> set[str]:
        return self._names(SQLITE.indexes, table)

    def _names(self, query: str, table: str) -> set[str]:
        conn = sqlite3.connect(self.path)
        try:
            return {row[0] for row in conn.execute(query, [table])}
        finally:
            conn.close()

    def tamper(self, stream_id: str, version: int, column: str, value: Any) -> None:
        """Run a raw UPDATE on a separate connection."""
        conn = sqlite3.connect(self.path)
        with conn:
            conn.execute(
                f"UPDATE events SET {column} = ? WHERE stream_id = ? AND version = ?",
                (value, stream_id, version),
            )
        conn.close()


@dataclass
class PostgresBackend:
    """A schema of its own in the test database, dropped afterwards."""

    url: str
    opened: list[EventStore] = field(default_factory=list)

    def open(self, clock: Clock | None = None, idempotency_ttl: float | None = None) -> EventStore:
        """Open another store on the schema."""
        from eventstore.postgres import PostgresEventStore

        store = PostgresEventStore(self.url, **store_options(clock, idempotency_ttl))
        self.opened.append(store)
        return store

    def make_first_schema(self, stored: Sequence[StoredEvent], key: str) -> None:
        """Run the first schema's CREATE statements and insert its rows on a raw connection."""
        import psycopg

        stream, events, key_row = first_schema_rows(POSTGRES, stored, key)
        with psycopg.connect(self.url) as conn:
            for statement in POSTGRES_FIRST_SCHEMA:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO streams (stream_id, version, created_at, meta, private, last_type,"
                " head_hash) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (*stream, stored[-1].hash),
            )
            conn.cursor().executemany(
                "INSERT INTO events VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", events
            )
            conn.execute("INSERT INTO idempotency VALUES (%s, %s, %s, %s)", key_row)

    def columns(self, table: str) -> set[str]:
        return self._names(POSTGRES.columns, table)

    def indexes(self, table: str) -> set[str]:
        return self._names(POSTGRES.indexes, table)

    def _names(self, query: str, table: str) -> set[str]:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            return {str(row[0]) for row in conn.execute(query, [table]).fetchall()}

    def tamper(self, stream_id: str, version: int, column: str, value: Any) -> None:
        """Run a raw UPDATE on a separate connection (``by`` is stored as JSON)."""
        import psycopg

        if column == "by":
            value = json.dumps(value)
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(
                f"UPDATE events SET {column} = %s WHERE stream_id = %s AND version = %s",
                (value, stream_id, version),
            )


START = datetime(2025, 1, 31, 12, tzinfo=UTC)


def ticking_clock(start: datetime = START) -> Clock:
    """Return a clock that advances one millisecond per reading."""
    moments = iter(start + timedelta(milliseconds=n) for n in range(10**9))
    return lambda: next(moments)


@dataclass
class ManualClock:
    """A clock that stands still until the test moves it (several stores may share it)."""

    now: datetime = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        self.now += timedelta(seconds=seconds)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Each backend in turn, on a fresh database; stores it opened are closed afterwards.

    PostgreSQL runs when TABULA_TEST_POSTGRES_URL names a database (each test gets a schema).
    """
    if request.param == "sqlite":
        sqlite = SqliteBackend(tmp_path / "events.db")
        yield sqlite
        _close(sqlite.opened)
        return
    with postgres_schema() as url:
        postgres = PostgresBackend(url)
        yield postgres
        _close(postgres.opened)


def _close(stores: list[EventStore]) -> None:
    """Close every store a backend opened."""
    for store in stores:
        store.close()


@pytest.fixture
def store(backend: Backend) -> EventStore:
    """A store on a fresh database, with a clock that ticks one millisecond per reading."""
    return backend.open(ticking_clock())

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

from eventstore import EventStore, SqliteEventStore
from eventstore.sql import POSTGRES, SQLITE
from tests.postgres import postgres_schema
from tests.previous_schema import OldSchema, OldStream, write_postgres, write_sqlite

Clock = Callable[[], datetime]


class Backend(Protocol):
    """Opens stores on one database and reaches behind them to tamper with it."""

    def open(self, clock: Clock | None = None, idempotency_ttl: float | None = None) -> EventStore:
        """Open another store on the backend's database."""
        ...

    def tamper(self, stream_id: str, version: int, column: str, value: Any) -> None:
        """Overwrite one column of one stored event behind the store's back."""
        ...

    def make_old(self, schema: OldSchema, streams: Sequence[OldStream]) -> None:
        """Create the tables of an earlier schema holding streams (before any store opens
        the database)."""
        ...

    def columns(self, table: str) -> set[str]:
        """The names of a table's columns."""
        ...

    def indexes(self, table: str) -> set[str]:
        """The names of a table's indexes."""
        ...

    def recorded_versions(self) -> list[Any]:
        """What records the schema version: SQLite's user_version, PostgreSQL's rows."""
        ...

    def record_version(self, version: int) -> None:
        """Record a schema version behind the store's back."""
        ...


def store_options(clock: Clock | None, idempotency_ttl: float | None) -> dict[str, Any]:
    """A store's keyword arguments: those given, the defaults for the others."""
    given = {"clock": clock, "idempotency_ttl": idempotency_ttl}
    return {name: value for name, value in given.items() if value is not None}


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

    def make_old(self, schema: OldSchema, streams: Sequence[OldStream]) -> None:
        write_sqlite(self.path, streams, schema.sqlite)

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

    def recorded_versions(self) -> list[Any]:
        conn = sqlite3.connect(self.path)
        try:
            return [conn.execute("PRAGMA user_version").fetchone()[0]]
        finally:
            conn.close()

    def record_version(self, version: int) -> None:
        conn = sqlite3.connect(self.path)
        conn.execute(f"PRAGMA user_version = {version}")
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

    def make_old(self, schema: OldSchema, streams: Sequence[OldStream]) -> None:
        write_postgres(self.url, streams, schema.postgres)

    def columns(self, table: str) -> set[str]:
        return self._names(POSTGRES.columns, table)

    def indexes(self, table: str) -> set[str]:
        return self._names(POSTGRES.indexes, table)

    def _names(self, query: str, table: str) -> set[str]:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            return {str(row[0]) for row in conn.execute(query, [table]).fetchall()}

    def recorded_versions(self) -> list[Any]:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            return [row[0] for row in conn.execute("SELECT version FROM schema_version ORDER BY 1")]

    def record_version(self, version: int) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute("INSERT INTO schema_version VALUES (%s, %s)", [version, "later"])

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

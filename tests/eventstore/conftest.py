"""Backends for the store contract suite: every backend runs every contract test."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import pytest

from eventstore import EventStore, SqliteEventStore

Clock = Callable[[], datetime]


class Backend(Protocol):
    """Opens stores on one database and reaches behind them to tamper with it."""

    def open(self, clock: Clock | None = None) -> EventStore:
        """Open another store on the backend's database."""
        ...

    def tamper(self, stream_id: str, version: int, column: str, value: Any) -> None:
        """Overwrite one column of one stored event behind the store's back."""
        ...


@dataclass
class SqliteBackend:
    """A SQLite file database in a temporary folder."""

    path: Path
    opened: list[EventStore] = field(default_factory=list)

    def open(self, clock: Clock | None = None) -> EventStore:
        """Open another store on the database file."""
        store = (
            SqliteEventStore(self.path)
            if clock is None
            else SqliteEventStore(self.path, clock=clock)
        )
        self.opened.append(store)
        return store

    def tamper(self, stream_id: str, version: int, column: str, value: Any) -> None:
        """Run a raw UPDATE on a separate connection."""
        conn = sqlite3.connect(self.path)
        with conn:
            conn.execute(
                f"UPDATE events SET {column} = ? WHERE stream_id = ? AND version = ?",
                (value, stream_id, version),
            )
        conn.close()


def ticking_clock(start: datetime = datetime(2025, 1, 31, 12, tzinfo=UTC)) -> Clock:
    """Return a clock that advances one millisecond per reading."""
    moments = iter(start + timedelta(milliseconds=n) for n in range(10**9))
    return lambda: next(moments)


@pytest.fixture(params=["sqlite"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Each backend in turn, on a fresh database; stores it opened are closed afterwards."""
    assert request.param == "sqlite"
    sqlite = SqliteBackend(tmp_path / "events.db")
    yield sqlite
    for store in sqlite.opened:
        store.close()


@pytest.fixture
def store(backend: Backend) -> EventStore:
    """A store on a fresh database, with a clock that ticks one millisecond per reading."""
    return backend.open(ticking_clock())

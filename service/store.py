"""The event store the service runs on, chosen from the settings."""

from __future__ import annotations

from eventstore import EventStore, SqliteEventStore


def open_store(database: str, synchronous: str) -> EventStore:
    """The SQLite store at ``database`` (a path or ``:memory:``)."""
    return SqliteEventStore(database, synchronous=synchronous)

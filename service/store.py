"""The event store the service runs on, chosen from the settings."""

from __future__ import annotations

from eventstore import EventStore, SqliteEventStore


def open_store(database: str, synchronous: str, database_url: str = "") -> EventStore:
    """PostgreSQL when ``database_url`` is set, else the SQLite store at ``database``."""
    if database_url:
        from eventstore.postgres import PostgresEventStore  # needs the "postgres" extra

        return PostgresEventStore(database_url)
    return SqliteEventStore(database, synchronous=synchronous)

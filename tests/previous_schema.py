"""A database as the stores wrote it before the schema had a version (version 0: no
summaries), made from the DDL of that time, copied here as it was, and filled with rows."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from eventstore import EventStore, StoredEvent
from eventstore.sql import POSTGRES, SQLITE, encode, encode_optional, event_row

SQLITE_PREVIOUS = (
    """CREATE TABLE "streams" (
   "stream_id" TEXT PRIMARY KEY,
   "version" INTEGER NOT NULL,
   "created_at" TEXT NOT NULL,
   "meta" TEXT NOT NULL,
   "private" TEXT,
   "last_type" TEXT NOT NULL,
   "deadline" TEXT
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
   "fingerprint" TEXT NOT NULL DEFAULT '',
   "created_at" TEXT NOT NULL DEFAULT '',
   PRIMARY KEY ("stream_id", "key")
) STRICT""",
    "CREATE INDEX streams_deadline ON streams (deadline, stream_id) WHERE deadline IS NOT NULL",
)
"""The SQLite store's tables before schema versions (what sqlite_master held)."""

POSTGRES_PREVIOUS = (
    """CREATE TABLE streams (
        seq bigint GENERATED ALWAYS AS IDENTITY,
        stream_id text PRIMARY KEY,
        version integer NOT NULL,
        created_at text NOT NULL,
        meta json NOT NULL,
        private json,
        last_type text NOT NULL,
        head_hash text NOT NULL,
        deadline text
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
        fingerprint text NOT NULL DEFAULT '',
        created_at text NOT NULL DEFAULT '',
        PRIMARY KEY (stream_id, key)
    )""",
    "CREATE INDEX streams_deadline ON streams (deadline, stream_id) WHERE deadline IS NOT NULL",
)
"""The PostgreSQL store's tables before schema versions."""


class OldStream(NamedTuple):
    """One stream as the previous schema keeps it."""

    meta: dict[str, Any]
    private: dict[str, Any] | None
    events: Sequence[StoredEvent]


def copied(store: EventStore) -> list[OldStream]:
    """Every stream of a store, oldest first, as rows for the previous schema."""
    return [
        OldStream(info.meta, store.private(info.stream_id), store.read(info.stream_id))
        for info in store.streams()
    ]


def stream_row(stream: OldStream) -> tuple[Any, ...]:
    """A streams row of the previous schema (without PostgreSQL's head_hash)."""
    first, last = stream.events[0], stream.events[-1]
    private = encode_optional(stream.private)
    return (last.stream_id, last.version, first.at, encode(stream.meta), private, last.type)


def write_sqlite(path: Path, streams: Sequence[OldStream]) -> None:
    """A SQLite file of the previous schema holding ``streams``."""
    conn = sqlite3.connect(path)
    with conn:
        for statement in SQLITE_PREVIOUS:
            conn.execute(statement)
        for stream in streams:
            conn.execute(
                "INSERT INTO streams (stream_id, version, created_at, meta, private, last_type)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                stream_row(stream),
            )
            rows = [event_row(SQLITE, event) for event in stream.events]
            conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.close()


def write_postgres(url: str, streams: Sequence[OldStream]) -> None:
    """The previous schema's tables, holding ``streams``, in the database (schema) at url."""
    import psycopg

    with psycopg.connect(url) as conn:
        for statement in POSTGRES_PREVIOUS:
            conn.execute(statement)
        for stream in streams:
            conn.execute(
                "INSERT INTO streams (stream_id, version, created_at, meta, private, last_type,"
                " head_hash) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (*stream_row(stream), stream.events[-1].hash),
            )
            rows = [event_row(POSTGRES, event) for event in stream.events]
            conn.cursor().executemany(
                "INSERT INTO events VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", rows
            )

"""Databases as the stores wrote them under earlier schemas, made from the DDL of that time,
copied here as it was (a past schema is a fixture: it must not follow the live one), and
filled with rows.

- The first schema (``FIRST``): before keys had fingerprints and times and streams had
  deadlines.
- The previous schema (``PREVIOUS``): before the schema had a version (version 0: no
  summaries).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from eventstore import EventStore, StoredEvent
from eventstore.sql import POSTGRES, SQLITE, encode, encode_optional, event_row


class OldSchema(NamedTuple):
    """An earlier schema's CREATE statements, for each backend."""

    sqlite: tuple[str, ...]
    postgres: tuple[str, ...]


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

FIRST = OldSchema(SQLITE_FIRST_SCHEMA, POSTGRES_FIRST_SCHEMA)

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

PREVIOUS = OldSchema(SQLITE_PREVIOUS, POSTGRES_PREVIOUS)


class OldStream(NamedTuple):
    """One stream as an earlier schema keeps it."""

    meta: dict[str, Any]
    private: dict[str, Any] | None
    events: Sequence[StoredEvent]
    key: str | None = None
    """The idempotency key the whole stream was appended with, if any."""


def copied(store: EventStore) -> list[OldStream]:
    """Every stream of a store, oldest first, as rows for an earlier schema."""
    return [
        OldStream(info.meta, store.private(info.stream_id), store.read(info.stream_id))
        for info in store.streams()
    ]


def stream_row(stream: OldStream) -> tuple[Any, ...]:
    """A streams row of an earlier schema (without PostgreSQL's head_hash)."""
    first, last = stream.events[0], stream.events[-1]
    private = encode_optional(stream.private)
    return (last.stream_id, last.version, first.at, encode(stream.meta), private, last.type)


def key_row(stream: OldStream) -> tuple[Any, ...]:
    """The idempotency row of a stream's key (the columns of the first schema)."""
    first, last = stream.events[0], stream.events[-1]
    return (last.stream_id, stream.key, first.version, last.version)


INSERT_KEY = "INSERT INTO idempotency (stream_id, key, first_version, last_version)"


def write_sqlite(
    path: Path, streams: Sequence[OldStream], schema: Sequence[str] = SQLITE_PREVIOUS
) -> None:
    """A SQLite file of an earlier schema (the previous one unless told) holding ``streams``."""
    conn = sqlite3.connect(path)
    with conn:
        for statement in schema:
            conn.execute(statement)
        for stream in streams:
            conn.execute(
                "INSERT INTO streams (stream_id, version, created_at, meta, private, last_type)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                stream_row(stream),
            )
            rows = [event_row(SQLITE, event) for event in stream.events]
            conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
            if stream.key is not None:
                conn.execute(f"{INSERT_KEY} VALUES (?, ?, ?, ?)", key_row(stream))
    conn.close()


def write_postgres(
    url: str, streams: Sequence[OldStream], schema: Sequence[str] = POSTGRES_PREVIOUS
) -> None:
    """An earlier schema's tables (the previous one's unless told), holding ``streams``, in
    the database (schema) at url."""
    import psycopg

    with psycopg.connect(url) as conn:
        for statement in schema:
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
            if stream.key is not None:
                conn.execute(f"{INSERT_KEY} VALUES (%s, %s, %s, %s)", key_row(stream))

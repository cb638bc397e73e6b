"""What the two SQL stores share: their tables' rows as events and back, every read, the
idempotency rules, the summaries and the schema's migrations.

SQLite and PostgreSQL keep the same tables and differ, here, in what a ``Dialect`` names:
the driver's parameter mark (``?`` for sqlite3, ``%s`` for psycopg), how a json column comes
back (text to decode, or a value psycopg already decoded), how the ``by`` column is written
(SQLite's takes a seat number or a name as it is; PostgreSQL's is json), which column orders
the streams by creation, and how to list a table's columns and indexes (for ``upgrade``).
``SqlStore`` writes every read of the ``EventStore`` protocol once, and the store as a context
manager; a store inherits it, names its dialect, sets ``_clock`` and ``_idempotency_ttl`` and
gives ``_reading`` (a connection for reads, its driver's errors translated into
``StoreError``) and ``close``. Connections are typed ``Any``: sqlite3's and psycopg's share
``execute(sql, params)`` and the cursor's ``fetchone``/``fetchall``, not a declared type.

Times (an event's ``at``, a key's ``created_at``, a stream's ``deadline``) are stored as text
written by ``iso_timestamp``, all alike, so comparing the text compares the times.

The schema has a version (SQLite: ``PRAGMA user_version``; PostgreSQL: the rows of
``schema_version``). Opening a store creates the first tables if they are missing, adds the
columns that came before versions were kept (``upgrade``), then runs each of ``MIGRATIONS``
past the recorded version, in order, once, in the opening's transaction (``migrate``). A
database of a later version than this code knows is refused.

Summaries (migration 1): a stream's optional ``Summary`` is kept in ``summaries`` (kind,
status, creation and update times as indexed columns; tags and the document as JSON) and its
tags once more as rows of ``summary_tags`` (key, value, the stream's creation time), whose
index gives a tag's streams in creation order. An append that carries a summary writes both
in its transaction; ``save_summary`` writes one outside an append, only if the stream is
still at the version it was made from.

Partitions (migration 3): on PostgreSQL the events table is hash-partitioned by stream id
into ``Dialect.partitions`` tables (``events_p00`` ...), so that a stream's log is one
partition's and the log can later be spread over nodes by stream id (docs/design/scale-out.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, ClassVar, NamedTuple, Self

import msgspec

from . import derived
from .clock import canonical_timestamp, iso_timestamp
from .errors import IdempotencyKeyReused, StoreError, StreamExists, VersionConflict
from .hashing import same_events
from .model import (
    Appending,
    AppendResult,
    NewEvent,
    StoredEvent,
    StreamInfo,
    Summarised,
    Summary,
    SummaryQuery,
)

EVENT_COLUMNS = ("stream_id", "version", "type", "data", "by", "at", "prev_hash", "hash")
SELECT_EVENTS = f"SELECT {', '.join(EVENT_COLUMNS)} FROM events"
INSERT_EVENT = f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
SELECT_STREAMS = "SELECT stream_id, version, created_at, meta, last_type FROM streams"
KEY_COLUMNS = ("stream_id", "key", "first_version", "last_version", "fingerprint", "created_at")
SELECT_KEY = (
    "SELECT first_version, last_version, fingerprint, created_at FROM idempotency"
    " WHERE stream_id = ? AND key = ?"
)
INSERT_KEY = f"INSERT INTO idempotency ({', '.join(KEY_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?)"
REPLACE_KEY = (
    f"{INSERT_KEY} ON CONFLICT (stream_id, key) DO UPDATE SET"
    f" {', '.join(f'{name} = excluded.{name}' for name in KEY_COLUMNS[2:])}"
)
"""Take over a key whose row has expired: the new append's row replaces the old one."""
SELECT_DUE = (
    "SELECT stream_id, deadline FROM streams WHERE deadline IS NOT NULL AND deadline <= ?"
    " ORDER BY deadline, stream_id LIMIT ?"
)

ADDED_COLUMNS = (
    ("streams", "deadline", "text"),
    ("idempotency", "fingerprint", "text NOT NULL DEFAULT ''"),
    ("idempotency", "created_at", "text NOT NULL DEFAULT ''"),
)
"""Columns later than the first schema: ``upgrade`` adds them to a database that lacks them."""
KEY_TIMES_FROM_EVENTS = (
    "UPDATE idempotency SET created_at = COALESCE((SELECT at FROM events"
    " WHERE events.stream_id = idempotency.stream_id AND events.version = idempotency.last_version"
    "), '') WHERE created_at = ''"
)
"""Keys stored before ``created_at`` existed take the time of the events they appended."""
DEADLINE_INDEX = "streams_deadline"
CREATE_DEADLINE_INDEX = (
    f"CREATE INDEX IF NOT EXISTS {DEADLINE_INDEX} ON streams (deadline, stream_id)"
    " WHERE deadline IS NOT NULL"
)
"""``due`` reads this index in order; streams without a deadline stay out of it."""


def encode(value: Any) -> str:
    """Encode a value as JSON text."""
    return msgspec.json.encode(value).decode()


def encode_optional(value: dict[str, Any] | None) -> str | None:
    """Encode a value as JSON text, keeping None as SQL NULL."""
    return None if value is None else encode(value)


def decode(text: str) -> Any:
    """Decode JSON text."""
    return msgspec.json.decode(text)


def as_is(value: Any) -> Any:
    return value


class Dialect(NamedTuple):
    """How one driver and database differ for the shared SQL."""

    mark: str
    """The driver's parameter mark."""
    decode: Callable[[Any], Any]
    """A json column as the driver returns it, to its value."""
    encode_by: Callable[[Any], Any]
    """An event's ``by`` (a seat number or a name) to its column."""
    streams_order: str
    """The streams column that orders them oldest first."""
    columns: str
    """A query for the column names of the table given as its parameter."""
    indexes: str
    """A query for the index names of the table given as its parameter."""
    json: str
    """The type of a json column."""
    table_options: str
    """What follows a CREATE TABLE's column list."""
    versions: tuple[str, ...]
    """Statements that make the schema version readable (creating its table if need be)."""
    read_version: str
    """A query for the recorded schema version (0 for a database made before versions)."""
    write_version: Callable[[int, str], tuple[str, list[Any]]]
    """The statement and parameters that record a version applied at a time."""
    real: str = "real"
    """The type of a float column."""
    bigint: str = "integer"
    """The type of a large integer column."""
    before_position: str = ""
    """What a summary's write runs before it takes its position (see derived.py)."""
    clustered: str = " STRICT, WITHOUT ROWID"
    """The options of a table kept in its primary key's order."""
    partitions: int = 0
    """How many tables the events are hash-partitioned into by stream id (0: one table)."""

    def sql(self, text: str) -> str:
        """``text``, written with ``?`` marks, in this dialect."""
        return text.replace("?", self.mark)


SQLITE = Dialect(
    "?",
    decode,
    as_is,
    "rowid",
    "SELECT name FROM pragma_table_info(?)",
    "SELECT name FROM pragma_index_list(?)",
    "text",
    " STRICT",
    (),
    "PRAGMA user_version",
    lambda version, _: (f"PRAGMA user_version = {int(version)}", []),  # takes no parameters
)
POSTGRES = Dialect(
    "%s",
    as_is,
    encode,
    "seq",
    "SELECT attname FROM pg_attribute"
    " WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped",
    "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
    " WHERE i.indrelid = %s::regclass",
    "json",
    "",
    (
        "CREATE TABLE IF NOT EXISTS schema_version"
        " (version integer PRIMARY KEY, applied_at text NOT NULL)",
    ),
    "SELECT COALESCE(max(version), 0) FROM schema_version",
    lambda version, now: (
        "INSERT INTO schema_version (version, applied_at) VALUES (%s, %s)",
        [version, now],
    ),
    "double precision",
    "bigint",
    f"SELECT pg_advisory_xact_lock({derived.CHANGES_LOCK})",
    "",
    16,
)


class Migration(NamedTuple):
    """One step of the schema: its version and what it does, as statements of a dialect."""

    version: int
    what: str
    statements: Callable[[Dialect], list[str]]


def summary_tables(dialect: Dialect) -> list[str]:
    """Migration 1: the summaries and their tags, with the indexes listings read in order."""
    json, options = dialect.json, dialect.table_options
    return [
        f"""CREATE TABLE summaries (
            stream_id text PRIMARY KEY,
            kind text NOT NULL,
            status text NOT NULL,
            created_at text NOT NULL,
            updated_at text NOT NULL,
            tags {json} NOT NULL,
            document {json} NOT NULL
        ){options}""",
        "CREATE INDEX summaries_created ON summaries (created_at, stream_id)",
        "CREATE INDEX summaries_status ON summaries (status, created_at, stream_id)",
        "CREATE INDEX summaries_kind ON summaries (kind, created_at, stream_id)",
        f"""CREATE TABLE summary_tags (
            stream_id text NOT NULL,
            key text NOT NULL,
            value text NOT NULL,
            created_at text NOT NULL,
            PRIMARY KEY (stream_id, key)
        ){options}""",
        "CREATE INDEX summary_tags_pair ON summary_tags (key, value, created_at, stream_id)",
    ]


def derived_tables(dialect: Dialect) -> list[str]:
    """Migration 2: the order of summary writes, and the rows derived from them."""
    names = {
        "json": dialect.json,
        "options": dialect.table_options,
        "real": dialect.real,
        "bigint": dialect.bigint,
        "clustered": dialect.clustered,
    }
    return [statement.format(**names) for statement in derived.TABLES]


def partitioned_events(dialect: Dialect) -> list[str]:
    """Migration 3: the events hash-partitioned by stream id into ``dialect.partitions``
    tables (PostgreSQL's native partitioning; none for SQLite), the rows already stored
    copied over in the opening's transaction. A stream's events all live in one partition,
    which its reads and appends alone touch."""
    count = dialect.partitions
    if count == 0:
        return []
    columns = ", ".join(EVENT_COLUMNS)
    return [
        "ALTER TABLE events RENAME TO events_unpartitioned",
        "ALTER TABLE events_unpartitioned"
        " RENAME CONSTRAINT events_pkey TO events_unpartitioned_pkey",
        "CREATE TABLE events (LIKE events_unpartitioned INCLUDING DEFAULTS,"
        " PRIMARY KEY (stream_id, version)) PARTITION BY HASH (stream_id)",
        *(
            f"CREATE TABLE events_p{n:02d} PARTITION OF events"
            f" FOR VALUES WITH (MODULUS {count}, REMAINDER {n})"
            for n in range(count)
        ),
        f"INSERT INTO events ({columns}) SELECT {columns} FROM events_unpartitioned",
        "DROP TABLE events_unpartitioned",
    ]


MIGRATIONS = (
    Migration(1, "summaries of streams, their tags", summary_tables),
    Migration(2, "the order of summary writes, derived rows and marks", derived_tables),
    Migration(3, "the events hash-partitioned by stream id", partitioned_events),
)
"""Every migration, in order; the last one's version is the schema's."""
SCHEMA_VERSION = MIGRATIONS[-1].version


def schema_version(conn: Any, dialect: Dialect) -> int:
    """The version a database records (0: made before versions were recorded)."""
    for statement in dialect.versions:
        conn.execute(statement)
    return int(conn.execute(dialect.read_version).fetchone()[0])


def migrate(conn: Any, dialect: Dialect, now: str) -> list[int]:
    """Run every migration past the database's version, in order, recording each; return the
    versions applied. Run it in the transaction that ``upgrade`` runs in. A database of a
    later version than this code knows is a ``StoreError``: it may hold what this code would
    not keep up to date."""
    current = schema_version(conn, dialect)
    if current > SCHEMA_VERSION:
        raise StoreError(
            f"the database is at schema version {current}; this code knows up to"
            f" {SCHEMA_VERSION}: run a newer Tabula"
        )
    applied = []
    for migration in MIGRATIONS:
        if migration.version > current:
            for statement in migration.statements(dialect):
                conn.execute(statement)
            conn.execute(*dialect.write_version(migration.version, now))
            applied.append(migration.version)
    return applied


def upgrade(conn: Any, dialect: Dialect) -> None:
    """Bring tables made by an earlier schema up to this one: add the missing columns (keys
    stored before ``created_at`` take their events' time) and the deadline index. Run it in
    a transaction that keeps other processes from upgrading at the same time."""

    def names(query: str, table: str) -> set[str]:
        return {str(row[0]) for row in conn.execute(dialect.sql(query), [table]).fetchall()}

    for table, column, definition in ADDED_COLUMNS:
        if column not in names(dialect.columns, table):
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
            if (table, column) == ("idempotency", "created_at"):
                conn.execute(KEY_TIMES_FROM_EVENTS)
    if DEADLINE_INDEX not in names(dialect.indexes, "streams"):
        conn.execute(CREATE_DEADLINE_INDEX)


def check_ttl(seconds: float) -> float:
    """Refuse an idempotency key lifetime that is negative or not a number."""
    if not seconds >= 0:
        raise ValueError(f"idempotency_ttl must be a number of seconds >= 0, not {seconds!r}")
    return seconds


def key_cutoff(now: datetime, ttl: float) -> str:
    """The creation time before which a key has expired (older than ttl seconds at now)."""
    try:
        return iso_timestamp(now - timedelta(seconds=ttl))
    except OverflowError:  # further back than datetime goes: no key is that old
        return ""


def request(asked: Appending) -> Appending:
    """Check an append (ValueError: no events, a deadline that is no time): the same append,
    its deadline in ``iso_timestamp``'s form."""
    if not asked.events:
        raise ValueError(f"append to stream {asked.stream_id!r} needs at least one event")
    if asked.deadline is None:
        return asked
    deadline = canonical_timestamp(asked.deadline)
    if deadline == asked.deadline:
        return asked
    return msgspec.structs.replace(asked, deadline=deadline)


def requests(appends: Sequence[Appending]) -> list[Appending]:
    """Check a batch's appends (ValueError: as ``request``, or one stream twice)."""
    ids = [a.stream_id for a in appends]
    if len(set(ids)) != len(ids):
        raise ValueError("a batch appends to each stream at most once")
    return [request(a) for a in appends]


def check_version(stream_id: str, expected: int, actual: int) -> None:
    """Raise a conflict unless the stream is at the expected version."""
    if expected == 0 and actual > 0:
        raise StreamExists(stream_id, actual)
    if expected != actual:
        raise VersionConflict(stream_id, expected, actual)


def event_row(dialect: Dialect, event: StoredEvent) -> tuple[Any, ...]:
    """Turn a stored event into a row of the events table."""
    by, data = dialect.encode_by(event.by), encode(event.data)
    head = (event.stream_id, event.version, event.type, data, by, event.at)
    return (*head, event.prev_hash, event.hash)


def stored_event(dialect: Dialect, row: Sequence[Any]) -> StoredEvent:
    """Turn a row of the events table into a stored event."""
    stream_id, version, type_, data, by, at, prev_hash, hash_ = row
    return StoredEvent(stream_id, version, type_, dialect.decode(data), by, at, prev_hash, hash_)


def stream_info(dialect: Dialect, row: Sequence[Any]) -> StreamInfo:
    """Turn a row of the streams table into a stream summary."""
    stream_id, version, created_at, meta, last_type = row
    return StreamInfo(stream_id, version, created_at, dialect.decode(meta), last_type)


def read_events(
    conn: Any, dialect: Dialect, stream_id: str, after: int, until: int | None, limit: int | None
) -> list[StoredEvent]:
    """Select events of a stream in a version range."""
    sql = f"{SELECT_EVENTS} WHERE stream_id = ? AND version > ?"
    params: list[Any] = [stream_id, after]
    if until is not None:
        sql, params = f"{sql} AND version <= ?", [*params, until]
    sql += " ORDER BY version"
    if limit is not None:
        sql, params = f"{sql} LIMIT ?", [*params, limit]
    rows = conn.execute(dialect.sql(sql), params).fetchall()
    return [stored_event(dialect, row) for row in rows]


def stream_version(conn: Any, dialect: Dialect, stream_id: str) -> int:
    """Select a stream's current version, 0 when absent."""
    sql = dialect.sql("SELECT version FROM streams WHERE stream_id = ?")
    row = conn.execute(sql, [stream_id]).fetchone()
    return 0 if row is None else int(row[0])


def write_summary(
    conn: Any, dialect: Dialect, stream_id: str, summary: Summary, updated_at: str
) -> None:
    """Write a stream's summary and its tag rows (replacing what was there), taking the
    stream's creation time from its row, which must exist."""
    json = dialect.json
    upsert = (
        "INSERT INTO summaries"
        " (stream_id, kind, status, created_at, updated_at, tags, document, changed)"
        f" SELECT stream_id, ?, ?, created_at, ?, CAST(? AS {json}), CAST(? AS {json}),"
        f" {derived.NEXT_POSITION} FROM streams WHERE stream_id = ?"
        " ON CONFLICT (stream_id) DO UPDATE SET kind = excluded.kind, status = excluded.status,"
        " updated_at = excluded.updated_at, tags = excluded.tags, document = excluded.document,"
        " changed = excluded.changed"
    )
    if dialect.before_position:
        conn.execute(dialect.before_position)
    tags, document = encode(summary.tags), encode(summary.document)
    params = [summary.kind, summary.status, updated_at, tags, document, stream_id]
    conn.execute(dialect.sql(upsert), params)
    conn.execute(dialect.sql("DELETE FROM summary_tags WHERE stream_id = ?"), [stream_id])
    insert_tag = dialect.sql(
        "INSERT INTO summary_tags (stream_id, key, value, created_at)"
        " SELECT stream_id, ?, ?, created_at FROM streams WHERE stream_id = ?"
    )
    for key, value in sorted(summary.tags.items()):
        conn.execute(insert_tag, [key, value, stream_id])


def drop_summaries(conn: Any) -> None:
    """Delete every summary and tag row, and what was derived from them."""
    conn.execute("DELETE FROM summary_tags")
    conn.execute("DELETE FROM summaries")
    derived.drop_all(conn)


def select_summaries(source: str) -> str:
    """The rows ``summarised`` reads, from ``source`` (where the summaries are ``s``) joined
    to their streams for the version."""
    return (
        "SELECT s.stream_id, st.version, s.created_at, s.updated_at, s.kind, s.status, s.tags,"
        f" s.document FROM {source} JOIN streams st ON st.stream_id = s.stream_id"
    )


def summary_select(query: SummaryQuery) -> tuple[str, list[Any]]:
    """The SQL (with ``?`` marks) and parameters of a page of summaries. With a tag pair the
    page is read from the tags' index in creation order; else from the summaries' index on
    status, kind or creation time."""
    where: list[str] = []
    params: list[Any] = []
    if query.tag is not None:
        source, order = "summary_tags t JOIN summaries s ON s.stream_id = t.stream_id", "t"
        where += ["t.key = ?", "t.value = ?"]
        params += list(query.tag)
    else:
        source, order = "summaries s", "s"
    if query.status is not None and query.also is not None:
        where.append("(s.status = ? OR (s.status = ? AND s.updated_at >= ?))")
        params += [query.status, *query.also]
    elif query.status is not None:
        where.append("s.status = ?")
        params.append(query.status)
    if query.kind is not None:
        where.append("s.kind = ?")
        params.append(query.kind)
    if query.other_than is not None:
        where.append("s.kind <> ?")
        params.append(query.other_than)
    if query.word is not None:
        where.append(
            "EXISTS (SELECT 1 FROM summary_tags w WHERE w.stream_id = s.stream_id"
            " AND (w.key = ? OR w.value = ?))"
        )
        params += [query.word, query.word]
    if query.after is not None:
        where.append(f"({order}.created_at, {order}.stream_id) > (?, ?)")
        params += list(query.after)
    condition = f" WHERE {' AND '.join(where)}" if where else ""
    text = (
        f"{select_summaries(source)}{condition}"
        f" ORDER BY {order}.created_at, {order}.stream_id LIMIT ?"
    )
    return text, [*params, query.limit]


def summarised(dialect: Dialect, row: Sequence[Any]) -> Summarised:
    """Turn a row of ``select_summaries`` into a stored summary."""
    stream_id, version, created_at, updated_at, kind, status, tags, document = row
    summary = Summary(str(kind), str(status), dialect.decode(tags), dialect.decode(document))
    return Summarised(str(stream_id), int(version), str(created_at), str(updated_at), summary)


class StoredKey(NamedTuple):
    """An idempotency key's row: the versions it appended, its fingerprint, when it was used."""

    first_version: int
    last_version: int
    fingerprint: str
    created_at: str

    def expired(self, cutoff: str) -> bool:
        """Tell whether the key was used before the cutoff, so it counts as unused."""
        return self.created_at < cutoff


def stored_key(conn: Any, dialect: Dialect, stream_id: str, key: str) -> StoredKey | None:
    """Select an idempotency key's row, expired or not; None when there is none."""
    row = conn.execute(dialect.sql(SELECT_KEY), [stream_id, key]).fetchone()
    if row is None:
        return None
    first, last, fingerprint, created_at = row
    return StoredKey(int(first), int(last), str(fingerprint), str(created_at))


def replay(
    conn: Any,
    dialect: Dialect,
    stream_id: str,
    key: str,
    found: StoredKey,
    fingerprint: str,
    events: Sequence[NewEvent] | None,
) -> AppendResult:
    """The first result of a live key, for a request that is the same one again.

    When both the request and the key have a fingerprint, it alone judges: another one raises
    ``IdempotencyKeyReused``, the same one replays even if the events differ (a retry built on
    a later state). Otherwise the events judge, when given (``lookup`` gives none).
    """
    by_fingerprint = bool(fingerprint and found.fingerprint)
    if by_fingerprint and fingerprint != found.fingerprint:
        raise IdempotencyKeyReused(stream_id, key, "a request with another fingerprint")
    first, last = found.first_version, found.last_version
    stored = tuple(read_events(conn, dialect, stream_id, first - 1, last, None))
    if not by_fingerprint and events is not None and not same_events(events, stored):
        raise IdempotencyKeyReused(stream_id, key)
    return AppendResult(events=stored, replayed=True)


def earlier(
    conn: Any,
    dialect: Dialect,
    stream_id: str,
    key: str,
    fingerprint: str,
    events: Sequence[NewEvent] | None,
    cutoff: str,
) -> AppendResult | None:
    """The first result of a live key for the same request, None for an unused or expired
    key; ``IdempotencyKeyReused`` for another request (see ``replay``)."""
    found = stored_key(conn, dialect, stream_id, key)
    if found is None or found.expired(cutoff):
        return None
    return replay(conn, dialect, stream_id, key, found, fingerprint, events)


def check_key(
    conn: Any, dialect: Dialect, asked: Appending, now: datetime, ttl: float
) -> tuple[AppendResult | None, bool]:
    """An append's idempotency key, looked up in its transaction: the first result when the
    key is live (see ``replay``: ``IdempotencyKeyReused`` for another request); else None and
    whether the key has an expired row, which this append's row then replaces."""
    key = asked.idempotency_key
    if key is None:
        return None, False
    found = stored_key(conn, dialect, asked.stream_id, key)
    if found is None or found.expired(key_cutoff(now, ttl)):
        return None, found is not None
    fingerprint, events = asked.fingerprint, asked.events
    return replay(conn, dialect, asked.stream_id, key, found, fingerprint, events), True


def key_row(stored: Sequence[StoredEvent], key: str, fingerprint: str) -> tuple[Any, ...]:
    """The idempotency row of a key that appended stored: its versions, fingerprint and time."""
    first, last = stored[0], stored[-1]
    return (last.stream_id, key, first.version, last.version, fingerprint, first.at)


class SqlStore:
    """The reads of the ``EventStore`` protocol over a store's ``_reading`` connection; the
    store as a context manager that closes it."""

    dialect: ClassVar[Dialect]
    _clock: Callable[[], datetime]
    _idempotency_ttl: float

    def _reading(self, doing: str) -> AbstractContextManager[Any]:
        """A connection for reads, its errors translated into ``StoreError``."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the store's connections."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _one(self, doing: str, sql: str, params: Sequence[Any]) -> Any:
        """The first row ``sql`` selects, or None."""
        with self._reading(doing) as conn:
            return conn.execute(self.dialect.sql(sql), params).fetchone()

    def read(
        self, stream_id: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Return a stream's events with after < version <= until, oldest first, at most limit."""
        with self._reading(f"cannot read stream {stream_id!r}") as conn:
            return read_events(conn, self.dialect, stream_id, after, until, limit)

    def version(self, stream_id: str) -> int:
        """Return a stream's current version, 0 when it does not exist."""
        with self._reading(f"cannot read stream {stream_id!r}") as conn:
            return stream_version(conn, self.dialect, stream_id)

    def _key_cutoff(self) -> str:
        """The creation time before which idempotency keys have expired, by the store's clock."""
        return key_cutoff(self._clock(), self._idempotency_ttl)

    def lookup(
        self, stream_id: str, idempotency_key: str, fingerprint: str = ""
    ) -> AppendResult | None:
        """Return the earlier result for an idempotency key (replayed=True), or None if unused
        or expired; ``IdempotencyKeyReused`` when fingerprint and the key's differ."""
        cutoff = self._key_cutoff()
        with self._reading(f"cannot read stream {stream_id!r}") as conn:
            key, dialect = idempotency_key, self.dialect
            return earlier(conn, dialect, stream_id, key, fingerprint, None, cutoff)

    def deadline(self, stream_id: str) -> str | None:
        """Return the deadline the stream's latest append set, or None (none, or no stream)."""
        sql = "SELECT deadline FROM streams WHERE stream_id = ?"
        row = self._one(f"cannot read stream {stream_id!r}", sql, [stream_id])
        return None if row is None or row[0] is None else str(row[0])

    def due(self, until: str, limit: int = 1000) -> list[tuple[str, str]]:
        """Return (stream_id, deadline) of the streams whose deadline is at or before until,
        earliest first (then by stream id), at most limit."""
        if limit < 0:
            raise ValueError(f"limit must be >= 0, not {limit}")
        until = canonical_timestamp(until)
        with self._reading("cannot read deadlines") as conn:
            rows = conn.execute(self.dialect.sql(SELECT_DUE), [until, limit]).fetchall()
        return [(str(stream_id), str(deadline)) for stream_id, deadline in rows]

    def private(self, stream_id: str) -> dict[str, Any] | None:
        """Return the private record stored at creation, or None (no stream, or none given)."""
        sql = "SELECT private FROM streams WHERE stream_id = ?"
        row = self._one(f"cannot read stream {stream_id!r}", sql, [stream_id])
        return None if row is None or row[0] is None else dict(self.dialect.decode(row[0]))

    def streams(self) -> list[StreamInfo]:
        """Return every stream, oldest first."""
        sql = f"{SELECT_STREAMS} ORDER BY {self.dialect.streams_order}"
        with self._reading("cannot list streams") as conn:
            rows = conn.execute(sql).fetchall()
        return [stream_info(self.dialect, row) for row in rows]

    def stream(self, stream_id: str) -> StreamInfo | None:
        """Return one stream's summary, or None when it does not exist."""
        sql = f"{SELECT_STREAMS} WHERE stream_id = ?"
        row = self._one(f"cannot read stream {stream_id!r}", sql, [stream_id])
        return None if row is None else stream_info(self.dialect, row)

    def summaries(self, query: SummaryQuery) -> list[Summarised]:
        """Return a page of stored summaries, oldest stream first (see ``SummaryQuery``)."""
        if query.limit < 0:
            raise ValueError(f"limit must be >= 0, not {query.limit}")
        text, params = summary_select(query)
        with self._reading("cannot list summaries") as conn:
            rows = conn.execute(self.dialect.sql(text), params).fetchall()
        return [summarised(self.dialect, row) for row in rows]

    def summary(self, stream_id: str) -> Summarised | None:
        """Return one stream's stored summary, or None (no stream, or no summary)."""
        sql = f"{select_summaries('summaries s')} WHERE s.stream_id = ?"
        row = self._one(f"cannot read the summary of stream {stream_id!r}", sql, [stream_id])
        return None if row is None else summarised(self.dialect, row)

    def unsummarised(self, limit: int = 1000) -> list[str]:
        """Return the ids of streams without a summary, oldest first, at most limit."""
        sql = self.dialect.sql(
            "SELECT stream_id FROM streams WHERE NOT EXISTS (SELECT 1 FROM summaries s"
            f" WHERE s.stream_id = streams.stream_id) ORDER BY {self.dialect.streams_order}"
            " LIMIT ?"
        )
        with self._reading("cannot list streams") as conn:
            return [str(row[0]) for row in conn.execute(sql, [limit]).fetchall()]

    def changes(
        self, after: int, limit: int = 1000, kind: str | None = None, other_than: str | None = None
    ) -> list[derived.Changed]:
        """Return the summaries written after position ``after``, in position order."""
        text, params = derived.select_changes(after, limit, kind, other_than)
        with self._reading("cannot list summaries") as conn:
            rows = conn.execute(self.dialect.sql(text), params).fetchall()
        return [derived.Changed(int(row[-1]), summarised(self.dialect, row[:-1])) for row in rows]

    def derived_rows(
        self,
        space: str,
        after: str | None = None,
        *,
        since: str | None = None,
        before: str | None = None,
        limit: int = 1000,
        reverse: bool = False,
    ) -> list[derived.DerivedRow]:
        """Return a space's derived rows in key order (see ``Derived``)."""
        text, params = derived.select_rows(space, after, since, before, limit, reverse)
        return self._derived(text, params)

    def derived_ranked(
        self, space: str, after: tuple[float, str] | None = None, limit: int = 100
    ) -> list[derived.DerivedRow]:
        """Return a space's derived rows in (score, key) order, after ``after``."""
        text, params = derived.select_ranked(space, after, limit)
        return self._derived(text, params)

    def _derived(self, text: str, params: list[Any]) -> list[derived.DerivedRow]:
        with self._reading("cannot read derived data") as conn:
            rows = conn.execute(self.dialect.sql(text), params).fetchall()
        decode = self.dialect.decode
        return [derived.DerivedRow(s, k, float(v), decode(d)) for s, k, v, d in rows]

    def derived_rank(self, space: str, score: float, key: str) -> int:
        """Return how many rows of a space come before (score, key)."""
        return int(self._one("cannot read derived data", derived.RANK, [space, score, key])[0])

    def derived_mark(self, name: str) -> int:
        """Return a follower's position (0 when it has none)."""
        row = self._one("cannot read derived data", derived.MARK, [name])
        return 0 if row is None else int(row[0])

    def schema_version(self) -> int:
        """Return the schema version the database records."""
        with self._reading("cannot read the schema version") as conn:
            return int(conn.execute(self.dialect.read_version).fetchone()[0])

    def load_snapshot(self, stream_id: str, at_most: int) -> tuple[int, bytes] | None:
        """Return the latest snapshot of a stream at or before version at_most, or None."""
        sql = (
            "SELECT version, data FROM snapshots WHERE stream_id = ? AND version <= ?"
            " ORDER BY version DESC LIMIT 1"
        )
        row = self._one(f"cannot read snapshots of stream {stream_id!r}", sql, [stream_id, at_most])
        return None if row is None else (int(row[0]), bytes(row[1]))

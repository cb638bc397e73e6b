"""The event store on PostgreSQL, through psycopg 3 and a connection pool.

The only module that touches PostgreSQL's SQL. Same interface, guarantees and hash chain as
``SqliteEventStore``, so many service processes can share one log:

- One transaction per append. It first locks the stream's row (``SELECT ... FOR UPDATE``),
  so appends to one stream from any process queue up there; then it checks the idempotency
  key and the expected version, inserts the events and moves the stream. The primary key
  ``(stream_id, version)`` (and ``streams.stream_id`` for creations, which have no row to
  lock) turns any racing duplicate into a ``VersionConflict``, never an overwrite; a racing
  retry of a keyed creation returns the first result.
- No group commit of our own: each append commits on its own pooled connection, in parallel
  with the others, and PostgreSQL's WAL writer already flushes the commits that arrive
  together with one fsync.
- Every append also sends ``NOTIFY tabula_events, '<stream_id>:<last version>'`` (delivered
  at commit). ``subscribe`` lets a caller be woken by appends of any process: one listening
  connection per store, opened on first use, reconnecting if it drops.
- ``data``, ``meta`` and ``private`` are ``json`` columns (kept verbatim, so what reads back
  is exactly what was hashed; ``jsonb`` would rewrite numbers), ``by`` is ``json`` too so a
  seat number and a name stay apart. Text columns cannot hold NUL characters in PostgreSQL,
  so an event type or stream id containing one is refused with a ``StoreError``.

Errors (see errors.py): ``VersionConflict`` (``StreamExists``), ``IdempotencyKeyReused``,
and ``StoreError`` for any database failure, a closed store or an unreachable server.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime
from types import TracebackType
from typing import Any, TypeVar

import msgspec
import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.types.json import set_json_loads
from psycopg_pool import ConnectionPool, PoolClosed

from .clock import iso_timestamp, utcnow
from .errors import IdempotencyKeyReused, StoreError, StreamExists, VersionConflict
from .hashing import GENESIS, same_events, seal
from .model import AppendResult, NewEvent, StoredEvent, StreamInfo

CHANNEL = "tabula_events"
"""The NOTIFY channel appends announce themselves on."""

LISTEN_TICK_SECONDS = 0.5
"""How often the listening thread looks up from its wait to see whether it should stop."""

RECONNECT_SECONDS = 1.0
MAX_PAYLOAD = 7000
"""NOTIFY payloads must stay under 8000 bytes; a longer one is sent empty (wakes everyone)."""

SCHEMA_LOCK = 7_461_626_108  # any constant: serialises schema creation across processes

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS streams (
        seq bigint GENERATED ALWAYS AS IDENTITY,
        stream_id text PRIMARY KEY,
        version integer NOT NULL,
        created_at text NOT NULL,
        meta json NOT NULL,
        private json,
        last_type text NOT NULL,
        head_hash text NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS events (
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
    """CREATE TABLE IF NOT EXISTS snapshots (
        stream_id text NOT NULL,
        version integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (stream_id, version)
    )""",
    """CREATE TABLE IF NOT EXISTS idempotency (
        stream_id text NOT NULL,
        key text NOT NULL,
        first_version integer NOT NULL,
        last_version integer NOT NULL,
        PRIMARY KEY (stream_id, key)
    )""",
)

EVENT_COLUMNS = ("stream_id", "version", "type", "data", "by", "at", "prev_hash", "hash")
SELECT_EVENTS = f"SELECT {', '.join(EVENT_COLUMNS)} FROM events"
INSERT_EVENT = (
    f"INSERT INTO events ({', '.join(EVENT_COLUMNS)}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)
SELECT_STREAMS = "SELECT stream_id, version, created_at, meta, last_type FROM streams"
INSERT_STREAM = (
    "INSERT INTO streams (stream_id, version, created_at, meta, private, last_type, head_hash)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s)"
)
UPDATE_STREAM = (
    "UPDATE streams SET version = %s, last_type = %s, head_hash = %s"
    " WHERE stream_id = %s AND version = %s"
)
INSERT_KEY = (
    "INSERT INTO idempotency (stream_id, key, first_version, last_version) VALUES (%s, %s, %s, %s)"
)
UPSERT_SNAPSHOT = (
    "INSERT INTO snapshots (stream_id, version, data) VALUES (%s, %s, %s)"
    " ON CONFLICT (stream_id, version) DO UPDATE SET data = EXCLUDED.data"
)

T = TypeVar("T")
Wake = Callable[[], None]


class PostgresEventStore:
    """An append-only log of streams of events in one PostgreSQL database, shared by processes."""

    def __init__(
        self,
        url: str,
        *,
        max_connections: int = 16,
        timeout: float = 30.0,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        """Connect to the database at url (``postgresql://user:pass@host/db``), create tables."""
        self._url = url
        self._clock = clock
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_connections,
            kwargs={"autocommit": True},
            configure=_configure,
            timeout=timeout,
            open=False,
            name="tabula-events",
        )
        self._open(timeout)
        self._counts = {"appends": 0, "commits": 0, "largest_batch": 0}
        self._counts_lock = threading.Lock()
        self._listener = _Listener(url)

    def _open(self, timeout: float) -> None:
        """Fill the pool and create the tables; on failure close the pool and raise StoreError."""
        try:
            with _translated(f"cannot open the event store at {_redacted(self._url)}"):
                self._pool.open(wait=True, timeout=timeout)
                self._create_schema()
        except StoreError:
            self._pool.close()
            raise

    def _create_schema(self) -> None:
        """Create the tables unless they exist (one process at a time)."""
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", [SCHEMA_LOCK])
            for statement in SCHEMA:
                conn.execute(statement)

    def settings(self) -> dict[str, str]:
        """Return the server's durability settings: synchronous_commit and fsync."""
        with self._connection("cannot read the store's settings") as conn:
            sql = "SELECT name, setting FROM pg_settings WHERE name IN (%s, %s)"
            rows = conn.execute(sql, ["synchronous_commit", "fsync"]).fetchall()
        return {str(name): str(value) for name, value in rows}

    def stats(self) -> dict[str, int]:
        """Return counts since opening: appends, commits, and the largest batch (always 1)."""
        with self._counts_lock:
            return dict(self._counts)

    # writing

    def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int,
        idempotency_key: str | None = None,
        *,
        meta: dict[str, Any] | None = None,
        private: dict[str, Any] | None = None,
    ) -> AppendResult:
        """Append events to a stream at expected_version (0 creates it), in one transaction."""
        if not events:
            raise ValueError(f"append to stream {stream_id!r} needs at least one event")

        def work(conn: psycopg.Connection[Any]) -> AppendResult:
            return self._append(
                conn, stream_id, events, expected_version, idempotency_key, meta, private
            )

        with _translated(f"cannot append to stream {stream_id!r}"):
            try:
                result = self._transaction(work)
            except pg_errors.UniqueViolation:
                result = self._after_duplicate(stream_id, events, expected_version, idempotency_key)
        self._count()
        return result

    def _transaction(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """Run work in one transaction on a pooled connection."""
        with self._pool.connection() as conn, conn.transaction():
            return work(conn)

    def _append(
        self,
        conn: psycopg.Connection[Any],
        stream_id: str,
        events: Sequence[NewEvent],
        expected: int,
        key: str | None,
        meta: dict[str, Any] | None,
        private: dict[str, Any] | None,
    ) -> AppendResult:
        """One append inside its transaction: lock the stream, idempotency, version, insert."""
        sql = "SELECT version, head_hash FROM streams WHERE stream_id = %s FOR UPDATE"
        row = conn.execute(sql, [stream_id]).fetchone()
        if key is not None and (earlier := _earlier(conn, stream_id, key, events)) is not None:
            return earlier
        current, head = (0, GENESIS) if row is None else (int(row[0]), str(row[1]))
        _check_version(stream_id, expected, current)
        stored = seal(stream_id, events, current, head, iso_timestamp(self._clock()))
        _write(conn, stored, key, meta, private)
        return AppendResult(events=stored, replayed=False)

    def _after_duplicate(
        self, stream_id: str, events: Sequence[NewEvent], expected: int, key: str | None
    ) -> AppendResult:
        """A racing append stored the same version first: its result if it was ours, else 409."""
        if key is not None:
            with self._pool.connection() as conn:
                earlier = _earlier(conn, stream_id, key, events)
            if earlier is not None:
                return earlier
        actual = self.version(stream_id)
        _check_version(stream_id, expected, actual)
        raise VersionConflict(stream_id, expected, actual)

    def _count(self) -> None:
        """Count one committed append."""
        with self._counts_lock:
            self._counts["appends"] += 1
            self._counts["commits"] += 1
            self._counts["largest_batch"] = 1

    def save_snapshot(self, stream_id: str, version: int, data: bytes) -> None:
        """Store derived data about a stream at a version (replacing any already there)."""
        with self._connection(f"cannot save a snapshot of stream {stream_id!r}") as conn:
            conn.execute(UPSERT_SNAPSHOT, [stream_id, version, data])

    def drop_snapshots(self, stream_id: str | None = None) -> None:
        """Delete the snapshots of one stream, or of every stream (they can be rebuilt)."""
        with self._connection("cannot drop snapshots") as conn:
            if stream_id is None:
                conn.execute("DELETE FROM snapshots")
            else:
                conn.execute("DELETE FROM snapshots WHERE stream_id = %s", [stream_id])

    # reading

    @contextmanager
    def _connection(self, doing: str) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection in autocommit mode, with errors translated."""
        with _translated(doing), self._pool.connection() as conn:
            yield conn

    def load_snapshot(self, stream_id: str, at_most: int) -> tuple[int, bytes] | None:
        """Return the latest snapshot of a stream at or before version at_most, or None."""
        sql = (
            "SELECT version, data FROM snapshots WHERE stream_id = %s AND version <= %s"
            " ORDER BY version DESC LIMIT 1"
        )
        with self._connection(f"cannot read snapshots of stream {stream_id!r}") as conn:
            row = conn.execute(sql, [stream_id, at_most]).fetchone()
        return None if row is None else (int(row[0]), bytes(row[1]))

    def read(
        self, stream_id: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Return a stream's events with after < version <= until, oldest first, at most limit."""
        with self._connection(f"cannot read stream {stream_id!r}") as conn:
            return _read(conn, stream_id, after, until, limit)

    def version(self, stream_id: str) -> int:
        """Return a stream's current version, 0 when it does not exist."""
        with self._connection(f"cannot read stream {stream_id!r}") as conn:
            row = conn.execute("SELECT version FROM streams WHERE stream_id = %s", [stream_id])
            found = row.fetchone()
        return 0 if found is None else int(found[0])

    def lookup(self, stream_id: str, idempotency_key: str) -> AppendResult | None:
        """Return the earlier result for an idempotency key (replayed=True), or None if unused."""
        with self._connection(f"cannot read stream {stream_id!r}") as conn:
            earlier = _keyed_events(conn, stream_id, idempotency_key)
        return None if earlier is None else AppendResult(events=earlier, replayed=True)

    def private(self, stream_id: str) -> dict[str, Any] | None:
        """Return the private record stored at creation, or None (no stream, or none given)."""
        with self._connection(f"cannot read stream {stream_id!r}") as conn:
            sql = "SELECT private FROM streams WHERE stream_id = %s"
            row = conn.execute(sql, [stream_id]).fetchone()
        return None if row is None or row[0] is None else dict(row[0])

    def streams(self) -> list[StreamInfo]:
        """Return every stream, oldest first."""
        with self._connection("cannot list streams") as conn:
            rows = conn.execute(f"{SELECT_STREAMS} ORDER BY seq").fetchall()
        return [_stream_info(row) for row in rows]

    def stream(self, stream_id: str) -> StreamInfo | None:
        """Return one stream's summary, or None when it does not exist."""
        with self._connection(f"cannot read stream {stream_id!r}") as conn:
            row = conn.execute(f"{SELECT_STREAMS} WHERE stream_id = %s", [stream_id]).fetchone()
        return None if row is None else _stream_info(row)

    # announcing

    def subscribe(self, stream_id: str, wake: Wake) -> Callable[[], None]:
        """Call wake (from another thread) after appends to the stream by any process.

        Returns the function that ends the subscription. Wake-ups may be spurious or, while
        the listening connection is down, missing: callers still re-read the log now and then.
        """
        return self._listener.subscribe(stream_id, wake)

    # closing

    def close(self) -> None:
        """Stop listening and close every connection."""
        self._listener.close()
        self._pool.close()

    def __enter__(self) -> PostgresEventStore:
        """Use the store as a context manager that closes it."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Close the store."""
        self.close()


class _Listener:
    """A connection of its own that LISTENs on the channel and wakes a stream's subscribers."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._subscribers: dict[str, set[Wake]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def subscribe(self, stream_id: str, wake: Wake) -> Callable[[], None]:
        """Add a subscriber (starting the listening thread on first use); return its undo."""
        with self._lock:
            self._subscribers.setdefault(stream_id, set()).add(wake)
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, daemon=True, name="listen")
                self._thread.start()
        return lambda: self._unsubscribe(stream_id, wake)

    def _unsubscribe(self, stream_id: str, wake: Wake) -> None:
        with self._lock:
            waiting = self._subscribers.get(stream_id, set())
            waiting.discard(wake)
            if not waiting:
                self._subscribers.pop(stream_id, None)

    def _run(self) -> None:
        """Listen until closed; after a lost connection, reconnect and wake everyone."""
        while not self._stop.is_set():
            try:
                self._listen()
            except psycopg.Error:
                self._wake(None)
                self._stop.wait(RECONNECT_SECONDS)

    def _listen(self) -> None:
        """One listening connection: wake subscribers on each notification until closed."""
        with psycopg.connect(self._url, autocommit=True) as conn:
            conn.execute(f"LISTEN {CHANNEL}")
            self._wake(None)  # appends made before LISTEN took effect
            while not self._stop.is_set():
                for note in conn.notifies(timeout=LISTEN_TICK_SECONDS):
                    stream_id, _, _ = note.payload.rpartition(":")
                    self._wake(stream_id or None)

    def _wake(self, stream_id: str | None) -> None:
        """Call the subscribers of one stream, or of every stream for None."""
        with self._lock:
            if stream_id is None:
                waiting = [wake for group in self._subscribers.values() for wake in group]
            else:
                waiting = list(self._subscribers.get(stream_id, ()))
        for wake in waiting:
            with suppress(Exception):  # one broken subscriber must not stop the others
                wake()

    def close(self) -> None:
        """Stop the listening thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=LISTEN_TICK_SECONDS * 4 + RECONNECT_SECONDS)


@contextmanager
def temporary_schema(url: str, prefix: str = "scratch") -> Iterator[str]:
    """A URL of the database at url whose search path is a new schema, dropped afterwards.

    For tests and benchmarks: each gets empty tables without a database of its own.
    """
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    doing = f"cannot create a schema at {_redacted(url)}"
    with _translated(doing), psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield make_conninfo(url, options=f"-c search_path={schema}")
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def _configure(conn: psycopg.Connection[Any]) -> None:
    """Decode json columns with msgspec (the same decoder the SQLite store uses)."""
    set_json_loads(msgspec.json.decode, conn)


def _redacted(url: str) -> str:
    """The URL without its password, for error messages."""
    try:
        info = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "(an unparsable database URL)"
    shown = {name: str(value) for name, value in info.items() if name != "password"}
    return repr(make_conninfo("", **shown))


@contextmanager
def _translated(doing: str) -> Iterator[None]:
    """Turn psycopg errors escaping a block into StoreError, naming what was being done."""
    try:
        yield
    except PoolClosed as exc:
        raise StoreError(f"{doing}: the store is closed") from exc
    except psycopg.Error as exc:
        raise StoreError(f"{doing}: {exc}") from exc


def _check_version(stream_id: str, expected: int, actual: int) -> None:
    """Raise a conflict unless the stream is at the expected version."""
    if expected == 0 and actual > 0:
        raise StreamExists(stream_id, actual)
    if expected != actual:
        raise VersionConflict(stream_id, expected, actual)


def _earlier(
    conn: psycopg.Connection[Any], stream_id: str, key: str, events: Sequence[NewEvent]
) -> AppendResult | None:
    """Return the first result for a used key, or None; a key used for other events errs."""
    earlier = _keyed_events(conn, stream_id, key)
    if earlier is None:
        return None
    if not same_events(events, earlier):
        raise IdempotencyKeyReused(stream_id, key)
    return AppendResult(events=earlier, replayed=True)


def _write(
    conn: psycopg.Connection[Any],
    stored: tuple[StoredEvent, ...],
    key: str | None,
    meta: dict[str, Any] | None,
    private: dict[str, Any] | None,
) -> None:
    """Insert the events, move the stream (creating it) and the key, announce; one round trip."""
    first, last = stored[0], stored[-1]
    with conn.pipeline():
        if first.version == 1:
            created = (last.stream_id, last.version, first.at, _encode(meta or {}))
            conn.execute(INSERT_STREAM, [*created, _encode_optional(private), last.type, last.hash])
        else:
            moved = (last.version, last.type, last.hash, last.stream_id, first.version - 1)
            conn.execute(UPDATE_STREAM, moved)
        conn.cursor().executemany(INSERT_EVENT, [_event_row(event) for event in stored])
        if key is not None:
            conn.execute(INSERT_KEY, [last.stream_id, key, first.version, last.version])
        conn.execute("SELECT pg_notify(%s, %s)", [CHANNEL, _payload(last)])


def _payload(event: StoredEvent) -> str:
    """The NOTIFY payload announcing an append: ``<stream_id>:<version>``."""
    payload = f"{event.stream_id}:{event.version}"
    return payload if len(payload.encode()) < MAX_PAYLOAD else ""


def _read(
    conn: psycopg.Connection[Any],
    stream_id: str,
    after: int,
    until: int | None,
    limit: int | None,
) -> list[StoredEvent]:
    """Select events of a stream in a version range."""
    sql = f"{SELECT_EVENTS} WHERE stream_id = %s AND version > %s"
    params: list[Any] = [stream_id, after]
    if until is not None:
        sql, params = f"{sql} AND version <= %s", [*params, until]
    sql += " ORDER BY version"
    if limit is not None:
        sql, params = f"{sql} LIMIT %s", [*params, limit]
    return [_stored_event(row) for row in conn.execute(sql, params).fetchall()]


def _keyed_events(
    conn: psycopg.Connection[Any], stream_id: str, key: str
) -> tuple[StoredEvent, ...] | None:
    """Select the events an idempotency key appended, or None if unused."""
    sql = "SELECT first_version, last_version FROM idempotency WHERE stream_id = %s AND key = %s"
    row = conn.execute(sql, [stream_id, key]).fetchone()
    if row is None:
        return None
    return tuple(_read(conn, stream_id, int(row[0]) - 1, int(row[1]), None))


def _encode(value: Any) -> str:
    """Encode a value as JSON text."""
    return msgspec.json.encode(value).decode()


def _encode_optional(value: dict[str, Any] | None) -> str | None:
    """Encode a value as JSON text, keeping None as SQL NULL."""
    return None if value is None else _encode(value)


def _event_row(event: StoredEvent) -> tuple[Any, ...]:
    """Turn a stored event into a row of the events table."""
    return (
        event.stream_id,
        event.version,
        event.type,
        _encode(event.data),
        _encode(event.by),
        event.at,
        event.prev_hash,
        event.hash,
    )


def _stored_event(row: Sequence[Any]) -> StoredEvent:
    """Turn a row of the events table into a stored event."""
    stream_id, version, type_, data, by, at, prev_hash, hash_ = row
    return StoredEvent(stream_id, version, type_, data, by, at, prev_hash, hash_)


def _stream_info(row: Sequence[Any]) -> StreamInfo:
    """Turn a row of the streams table into a stream summary."""
    stream_id, version, created_at, meta, last_type = row
    return StreamInfo(stream_id, version, created_at, meta, last_type)

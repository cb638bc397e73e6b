"""The event store on PostgreSQL, through psycopg 3 and a connection pool.

Its appends (the reads are shared with SQLite: sql.py). Same interface, guarantees and hash chain as
``SqliteEventStore``, so many service processes can share one log:

- One transaction per append. It first locks the stream's row (``SELECT ... FOR UPDATE``),
  so appends to one stream from any process queue up there; then it checks the idempotency
  key (an expired one counts as unused, and this append's row replaces it) and the expected
  version, inserts the events and moves the stream and its deadline. The primary key
  ``(stream_id, version)`` (and ``streams.stream_id`` for creations, which have no row to
  lock) turns any racing duplicate into a ``VersionConflict``, never an overwrite; a racing
  retry of a keyed creation returns the first result (or ``IdempotencyKeyReused``).
- No group commit of our own: each append commits on its own pooled connection, in parallel
  with the others, and PostgreSQL's WAL writer already flushes the commits that arrive
  together with one fsync.
- Every append that writes is announced, once committed, by ``NOTIFY tabula_events,
  '<stream_id>:<last version>'`` in a short transaction of its own on the same connection,
  with ``synchronous_commit = off`` (``ANNOUNCE``). Not in the append's transaction: PostgreSQL
  holds one lock per database from a notifying transaction's commit until its WAL is flushed
  (and, with a synchronous standby, until the standby has it), so appends that notified inside
  their transactions committed one after another, never together (``bench/commit_rate.py``:
  132 commits/s against 2,343 without the notification, with a synchronous standby). An
  announcement that fails is dropped (the append stands): wake-ups are hints. ``subscribe`` lets
  a caller be woken by appends of any process: one listening connection per store, opened on
  first use, reconnecting if it drops.
- ``data``, ``meta`` and ``private`` are ``json`` columns (kept verbatim, so what reads back
  is exactly what was hashed; ``jsonb`` would rewrite numbers), ``by`` is ``json`` too so a
  seat number and a name stay apart. Text columns cannot hold NUL characters in PostgreSQL,
  so an event type or stream id containing one is refused with a ``StoreError``.

Faults (see faults.py, and postgres_pool.py for the pool): no operation waits for the server
longer than ``timeout`` seconds (for a pooled connection, or to connect). A connection that
fails (the server stopped, restarting, unreachable) marks the server down: from then on every
operation fails at once with ``StoreUnavailable`` (``unreachable``) instead of waiting, while a
thread of the store tries to connect every ``PROBE_SECONDS``; once it can, the store opens a
new pool (the old one's connections are all broken, and its own reconnection backs off for
seconds) and serves again, so service resumes within about ``PROBE_SECONDS`` of the server's
return. A full disk is ``disk-full``, a read-only server ``read-only``, too many connections
``busy``. A URL naming a primary and its standby (``postgresql://h1,h2/db?target_session_attrs=
read-write``) follows a failover the same way: the probe finds the promoted standby, and the
new pool's connections go to it (postgres_pool.py).

Errors (see errors.py): ``VersionConflict`` (``StreamExists``), ``IdempotencyKeyReused``,
``StoreUnavailable`` for a fault of the server, and ``StoreError`` for any other database
failure or a closed store.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from datetime import datetime
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import make_conninfo

from . import derived, sql
from .clock import canonical_timestamp, iso_timestamp, utcnow
from .commits import CommitSizes, CommitTally
from .derived import DerivedRow, Drop
from .errors import StoreUnavailable, VersionConflict
from .faults import FaultTally
from .hashing import GENESIS, seal
from .model import Appending, AppendResult, StoredEvent, Summary
from .postgres_pool import Connections, redacted, translated, unreplicated
from .sql import POSTGRES, SqlStore

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
        head_hash text NOT NULL,
        deadline text
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
        fingerprint text NOT NULL DEFAULT '',
        created_at text NOT NULL DEFAULT '',
        PRIMARY KEY (stream_id, key)
    )""",
)
"""The tables as this version creates them; ``sql.upgrade`` brings older ones up to them."""

INSERT_EVENT = POSTGRES.sql(sql.INSERT_EVENT)
INSERT_STREAM = (
    "INSERT INTO streams"
    " (stream_id, version, created_at, meta, private, last_type, head_hash, deadline)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)
UPDATE_STREAM = (
    "UPDATE streams SET version = %s, last_type = %s, head_hash = %s, deadline = %s"
    " WHERE stream_id = %s AND version = %s"
)
INSERT_KEY = POSTGRES.sql(sql.INSERT_KEY)
REPLACE_KEY = POSTGRES.sql(sql.REPLACE_KEY)
ANNOUNCE = ("SET LOCAL synchronous_commit = off", "SELECT pg_notify(%s, %s)")
"""The announcement's statements: it waits for no flush (a lost announcement is a missed
wake-up, which subscribers tolerate), so it holds the notification lock for no disk's time."""
UPSERT_SNAPSHOT = (
    "INSERT INTO snapshots (stream_id, version, data) VALUES (%s, %s, %s)"
    " ON CONFLICT (stream_id, version) DO UPDATE SET data = EXCLUDED.data"
)

CUT_SHORT = "the commit stopped waiting for the synchronous standby, which may not have it"
"""Why a commit the server reported done is answered as unknown (see ``_transaction``)."""

T = TypeVar("T")
Wake = Callable[[int | None], None]
"""Told the version a stream reached (None: unknown)."""


class PostgresEventStore(SqlStore):
    """An append-only log of streams of events in one PostgreSQL database, shared by processes."""

    dialect = POSTGRES

    def __init__(
        self,
        url: str,
        *,
        max_connections: int = 16,
        timeout: float = 5.0,
        clock: Callable[[], datetime] = utcnow,
        idempotency_ttl: float = 86400.0,
    ) -> None:
        """Connect to the database at url (``postgresql://user:pass@host/db``), create (or
        upgrade) the tables. Idempotency keys older than idempotency_ttl seconds count as
        unused; no operation waits longer than ``timeout`` seconds for the server."""
        self._clock = clock
        self._idempotency_ttl = sql.check_ttl(idempotency_ttl)
        self._faults = FaultTally()
        self._db = Connections(url, max_connections, timeout, self._faults)
        self._db.open(self._create_schema)
        self._counts = {"appends": 0, "commits": 0, "largest_batch": 0}
        self._counts_lock = threading.Lock()
        self._commits = CommitTally()  # events per commit (one append each), for metrics
        self._listener = _Listener(self._db.url)  # with the pool's keepalives

    def _create_schema(self) -> None:
        """Create the tables unless they exist, upgrade older ones (one process at a time)."""
        with self._pooled("cannot create the tables") as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", [SCHEMA_LOCK])
            for statement in SCHEMA:
                conn.execute(statement)
            sql.upgrade(conn, POSTGRES)
            sql.migrate(conn, POSTGRES, iso_timestamp(self._clock()))

    def settings(self) -> dict[str, str]:
        """Return the server's durability settings: synchronous_commit and fsync."""
        with self._connection("cannot read the store's settings") as conn:
            query = "SELECT name, setting FROM pg_settings WHERE name IN (%s, %s)"
            rows = conn.execute(query, ["synchronous_commit", "fsync"]).fetchall()
        return {str(name): str(value) for name, value in rows}

    def stats(self) -> dict[str, int]:
        """Return counts since opening: appends, commits, and the largest batch (always 1)."""
        with self._counts_lock:
            return dict(self._counts)

    def commit_sizes(self) -> CommitSizes:
        """Return how many events each commit appended, in buckets (see commits.py): one
        append per commit here."""
        return self._commits.sizes()

    def faults(self) -> dict[str, int]:
        """Return how many operations a fault refused since opening, by kind."""
        return self._faults.counts()

    def readiness(self) -> dict[str, str]:
        """Whether writes can be taken: ``database`` (the server answers) and ``disk`` (the
        latest write did not find its disk full), each ``ok`` or the kind of fault."""
        try:
            with self._connection("cannot reach the database") as conn:
                conn.execute("SELECT 1")
            database = "ok"
        except StoreUnavailable as fault:
            database = fault.kind
        recent = self._faults.recent_write_fault()
        if database == "ok" and recent not in (None, "disk-full", "unreachable"):
            database = recent or "ok"
        return {"database": database, "disk": "disk-full" if recent == "disk-full" else "ok"}

    # writing

    def append(self, appending: Appending) -> AppendResult:
        """Append events to a stream at its expected version (0 creates it), in one transaction."""
        asked = sql.request(appending)

        def work(conn: psycopg.Connection[Any]) -> AppendResult:
            return self._append(conn, asked)

        with translated(f"cannot append to stream {asked.stream_id!r}"):
            try:
                result = self._transaction(work, lambda done: [done])
            except pg_errors.UniqueViolation:
                result = self._after_duplicate(asked)
        self._count()
        self._commits.record(0 if result.replayed else len(result.events))
        return result

    async def append_async(self, appending: Appending) -> AppendResult:
        """``append`` on a worker thread, awaited: the event loop goes on while it commits."""
        return await asyncio.to_thread(self.append, appending)

    def append_batch(self, appends: Sequence[Appending]) -> list[AppendResult]:
        """Several appends in one transaction: all or none."""
        asked = sql.requests(appends)

        def work(conn: psycopg.Connection[Any]) -> list[AppendResult]:
            return [self._append(conn, a) for a in asked]

        with translated(f"cannot append a batch of {len(asked)}"):
            try:
                results = self._transaction(work, lambda done: done)
            except pg_errors.UniqueViolation:  # a racing append took a version first
                for a in asked:
                    sql.check_version(a.stream_id, a.expected_version, self.version(a.stream_id))
                raise
        self._count()
        self._commits.record(sum(len(r.events) for r in results if not r.replayed))
        return results

    def _transaction(
        self,
        work: Callable[[psycopg.Connection[Any]], T],
        appended: Callable[[T], Sequence[AppendResult]] | None = None,
    ) -> T:
        """Run work in one transaction on a pooled connection; then announce the appends
        ``appended`` finds in its result. A commit the server reports done with its warning
        that it stopped waiting for the synchronous standby (its wait cancelled) is a
        ``StoreUnavailable`` (``unreachable``): the standby may not have it, so it is answered
        as a write of unknown outcome, which a retry with its key settles."""
        with self._pooled("cannot write", write=True) as conn:
            unreplicated(conn)  # a warning left from an earlier use of the connection
            with conn.transaction():
                done = work(conn)
            if unreplicated(conn):
                raise self._faults.refused("unreachable", "cannot write", CUT_SHORT, write=True)
            if appended is not None:
                _announce(conn, appended(done))
            return done

    def _append(self, conn: psycopg.Connection[Any], asked: Appending) -> AppendResult:
        """One append inside its transaction: lock the stream, idempotency, version, insert."""
        stream_id = asked.stream_id
        query = "SELECT version, head_hash FROM streams WHERE stream_id = %s FOR UPDATE"
        row = conn.execute(query, [stream_id]).fetchone()
        now = self._clock()  # after the lock, so the times of a stream's events never go back
        replayed, replaces = sql.check_key(conn, POSTGRES, asked, now, self._idempotency_ttl)
        if replayed is not None:
            return replayed
        current, head = (0, GENESIS) if row is None else (int(row[0]), str(row[1]))
        sql.check_version(stream_id, asked.expected_version, current)
        stored = seal(stream_id, asked.events, current, head, iso_timestamp(now))
        _write(conn, asked, stored, replaces)
        return AppendResult(events=stored, replayed=False)

    def _after_duplicate(self, asked: Appending) -> AppendResult:
        """A racing append stored the same version first: its result if it was ours (or
        ``IdempotencyKeyReused`` if it had our key for another request), else 409."""
        stream_id, expected, key = asked.stream_id, asked.expected_version, asked.idempotency_key
        if key is not None:
            cutoff = self._key_cutoff()
            with self._pooled("cannot look up a key") as conn:
                fingerprint, events = asked.fingerprint, asked.events
                earlier = sql.earlier(conn, POSTGRES, stream_id, key, fingerprint, events, cutoff)
            if earlier is not None:
                return earlier
        actual = self.version(stream_id)
        sql.check_version(stream_id, expected, actual)
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

    def save_summary(self, stream_id: str, version: int, summary: Summary, updated_at: str) -> bool:
        """Write a stream's summary if the stream is still at ``version``; whether it was."""
        updated_at = canonical_timestamp(updated_at)

        def work(conn: psycopg.Connection[Any]) -> bool:
            query = "SELECT version FROM streams WHERE stream_id = %s FOR UPDATE"
            row = conn.execute(query, [stream_id]).fetchone()
            if row is None or int(row[0]) != version:
                return False
            sql.write_summary(conn, POSTGRES, stream_id, summary, updated_at)
            return True

        with translated(f"cannot save the summary of stream {stream_id!r}"):
            return self._transaction(work)

    def derived_save(
        self,
        name: str,
        expected: int,
        position: int,
        rows: Sequence[DerivedRow] = (),
        drops: Sequence[Drop] = (),
    ) -> bool:
        """Move mark ``name`` from ``expected`` to ``position`` and write derived rows, in one
        transaction; False (nothing written) if the mark was not at ``expected``."""

        def work(conn: psycopg.Connection[Any]) -> bool:
            return derived.save(conn, "%s", "json", name, expected, position, rows, drops)

        with translated("cannot save derived data"):
            return self._transaction(work)

    def drop_summaries(self) -> None:
        """Delete every summary (derived data: the caller rebuilds them from the logs)."""
        with translated("cannot drop summaries"):
            self._transaction(sql.drop_summaries)

    def drop_snapshots(self, stream_id: str | None = None) -> None:
        """Delete the snapshots of one stream, or of every stream (they can be rebuilt)."""
        with self._connection("cannot drop snapshots") as conn:
            if stream_id is None:
                conn.execute("DELETE FROM snapshots")
            else:
                conn.execute("DELETE FROM snapshots WHERE stream_id = %s", [stream_id])

    # reading

    def _connection(self, doing: str) -> AbstractContextManager[psycopg.Connection[Any]]:
        """A pooled connection in autocommit mode, with errors translated."""
        return self._db.connection(doing)

    def _pooled(
        self, doing: str, *, write: bool = False
    ) -> AbstractContextManager[psycopg.Connection[Any]]:
        """A pooled connection, faults of the server as ``StoreUnavailable`` (see pool.py)."""
        return self._db.pooled(doing, write=write)

    _reading = _connection  # what the shared reads (SqlStore) use

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
        self._db.closing()
        self._listener.close()
        self._db.close()


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
                    stream_id, _, version = note.payload.rpartition(":")
                    self._wake(stream_id or None, int(version) if version.isdigit() else None)

    def _wake(self, stream_id: str | None, version: int | None = None) -> None:
        """Call the subscribers of one stream (with the version it reached, if known), or of
        every stream for None."""
        with self._lock:
            if stream_id is None:
                waiting = [wake for group in self._subscribers.values() for wake in group]
            else:
                waiting = list(self._subscribers.get(stream_id, ()))
        for wake in waiting:
            with suppress(Exception):  # one broken subscriber must not stop the others
                wake(version)

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
    doing = f"cannot create a schema at {redacted(url)}"
    with translated(doing), psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield make_conninfo(url, options=f"-c search_path={schema}")
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def _write(
    conn: psycopg.Connection[Any],
    asked: Appending,
    stored: tuple[StoredEvent, ...],
    replaces: bool,
) -> None:
    """Insert the events, move the stream (creating it) and its deadline, write its summary
    when given, store the key (replacing its expired row when ``replaces``); one round trip."""
    first, last = stored[0], stored[-1]
    with conn.pipeline():
        if first.version == 1:
            created = (last.stream_id, last.version, first.at, sql.encode(asked.meta or {}))
            private = sql.encode_optional(asked.private)
            conn.execute(INSERT_STREAM, [*created, private, last.type, last.hash, asked.deadline])
        else:
            moved = (last.version, last.type, last.hash, asked.deadline)
            conn.execute(UPDATE_STREAM, [*moved, last.stream_id, first.version - 1])
        conn.cursor().executemany(
            INSERT_EVENT, [sql.event_row(POSTGRES, event) for event in stored]
        )
        if asked.summary is not None:
            sql.write_summary(conn, POSTGRES, last.stream_id, asked.summary, last.at)
        if (key := asked.idempotency_key) is not None:
            statement = REPLACE_KEY if replaces else INSERT_KEY
            conn.execute(statement, sql.key_row(stored, key, asked.fingerprint))


def _announce(conn: psycopg.Connection[Any], results: Sequence[AppendResult]) -> None:
    """Notify the appends that wrote (not the replayed ones), committed already, in one round
    trip; a failure drops the announcement (the pool discards a broken connection)."""
    payloads = [_payload(r.events[-1]) for r in results if not r.replayed and r.events]
    if not payloads:
        return
    with suppress(psycopg.Error), conn.pipeline(), conn.transaction():
        conn.execute(ANNOUNCE[0])
        for payload in payloads:
            conn.execute(ANNOUNCE[1], [CHANNEL, payload])


def _payload(event: StoredEvent) -> str:
    """The NOTIFY payload announcing an append: ``<stream_id>:<version>``."""
    payload = f"{event.stream_id}:{event.version}"
    return payload if len(payload.encode()) < MAX_PAYLOAD else ""

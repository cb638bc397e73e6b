"""The PostgreSQL store's connections: a pool, and what happens while the server is away.

No operation waits for the server longer than ``timeout`` seconds (for a pooled connection, or
to connect). A connection that fails (the server stopped, restarting, unreachable) marks the
server down: from then on every operation fails at once with ``StoreUnavailable``
(``unreachable``) instead of waiting, while a thread tries to connect every ``PROBE_SECONDS``;
once it can, a new pool replaces the old (whose connections are all broken, and whose own
reconnection backs off for seconds). A full disk is ``disk-full``, a read-only server
``read-only``, too many connections ``busy``.

Failover: the URL may name several servers (``postgresql://h1,h2/db?target_session_attrs=
read-write``); every connection, the probe's too, goes to the one that takes writes, so once a
standby is promoted in place of a dead primary the probe finds it and the new pool's
connections go to it, trying it first (``preferring``: a dead host named first would cost
every new connection its ``connect_timeout``). A server that vanishes without closing its
connections (its host dead, its link down) is found out within seconds, not the kernel's
quarter of an hour: unless the URL says otherwise, connections send TCP keepalives
(``DEAD_PEER``) and give up on data the server has not acknowledged within ``timeout``
(``tcp_user_timeout``).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.types.json import set_json_loads
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from .errors import StoreError
from .faults import FaultTally

PROBE_SECONDS = 0.1
"""How often a store that lost its server tries to connect again."""
DEAD_PEER = {
    "keepalives": "1",
    "keepalives_idle": "2",
    "keepalives_interval": "1",
    "keepalives_count": "3",
}
"""TCP keepalives: a connection whose server stays silent 2 s is probed each second, and
closed after three probes go unanswered."""
UNREACHABLE = ("08", "57P01", "57P02", "57P03")
"""SQLSTATEs (or their classes) that say the server cannot be used: connection exceptions,
the server shutting down or starting up."""


class Connections:
    """A pool of connections to the server at ``url``, refused at once while the server is
    down, and renewed when it is back."""

    def __init__(self, url: str, max_connections: int, timeout: float, faults: FaultTally):
        self.url = resilient(url, timeout)
        self._max_connections, self._timeout = max_connections, timeout
        self._faults = faults
        self._closed = False
        self._down = _Down(self._reopen, self.url, timeout)
        self._pool = self._new_pool()

    def _new_pool(self, url: str | None = None) -> ConnectionPool[Any]:
        """A pool of connections to the server (at ``url``, by default the store's), not yet
        open."""
        return ConnectionPool(
            url or self.url,
            min_size=1,
            max_size=self._max_connections,
            kwargs={"autocommit": True, "connect_timeout": _connect_timeout(self._timeout)},
            configure=_configure,
            timeout=self._timeout,
            open=False,
            name="tabula-events",
        )

    def _reopen(self, found: tuple[str, int]) -> None:
        """A new pool in place of the old (whose connections are broken): the server is back,
        at ``found`` (host, port), which the new pool's connections try first. The old pool is
        closed in the background (a request still holding one of its connections gives it
        back to a closed pool, which closes it)."""
        fresh = self._new_pool(preferring(self.url, *found))
        try:
            fresh.open(wait=True, timeout=self._timeout)
        except psycopg.Error:
            fresh.close()
            raise
        old, self._pool = self._pool, fresh
        if self._closed:
            fresh.close()
        threading.Thread(target=old.close, daemon=True, name="pool-close").start()

    def open(self, prepare: Callable[[], None]) -> None:
        """Fill the pool and call ``prepare`` (which creates the tables); on failure close the
        pool and raise StoreError."""
        try:
            with translated(f"cannot open the event store at {redacted(self.url)}"):
                self._pool.open(wait=True, timeout=self._timeout)
                prepare()
        except StoreError:
            self._closed = True
            self._down.stop()
            self._pool.close()
            raise

    @contextmanager
    def connection(self, doing: str) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection in autocommit mode, with errors translated."""
        with translated(doing), self.pooled(doing) as conn:
            yield conn

    @contextmanager
    def pooled(self, doing: str, *, write: bool = False) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection, at once refused while the server is down; a fault of the
        server becomes ``StoreUnavailable`` (a lost connection marking it down), every other
        error passes unchanged."""
        if self._down.since is not None and not self._closed:
            raise self._faults.refused("unreachable", doing, "the server is down", write=write)
        try:
            with self._pool.connection() as conn:
                yield conn
        except psycopg.Error as exc:
            if self._closed and isinstance(exc, PoolClosed):
                raise StoreError(f"{doing}: the store is closed") from exc
            kind = _fault_kind(exc)
            if kind is None:
                raise
            if kind == "unreachable":
                self._down.begin()
            detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise self._faults.refused(kind, doing, detail, write=write) from exc
        if write:
            self._faults.wrote()

    def closing(self) -> None:
        """Refuse what comes from now on as closed, and stop waiting for the server."""
        self._closed = True
        self._down.stop()

    def close(self) -> None:
        """Close every connection (after ``closing``)."""
        self._closed = True
        self._down.stop()
        self._pool.close()


class _Down:
    """Whether the server is down (since when) and the thread that waits for its return:
    it tries to connect every ``PROBE_SECONDS`` and, once it can, calls ``back`` with the
    host and port it reached (which opens a new pool) and marks the server up."""

    def __init__(self, back: Callable[[tuple[str, int]], None], url: str, timeout: float) -> None:
        self.since: float | None = None
        self._back, self._url, self._timeout = back, url, timeout
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def begin(self) -> None:
        """The server was found down: start waiting for it (once)."""
        with self._lock:
            if self.since is not None or self._stop.is_set():
                return
            self.since = time.monotonic()
        threading.Thread(target=self._wait, daemon=True, name="store-probe").start()

    def _wait(self) -> None:
        """Connect until it works, then reopen and mark the server up."""
        while not self._stop.wait(PROBE_SECONDS):
            try:
                with psycopg.connect(
                    self._url, autocommit=True, connect_timeout=_connect_timeout(self._timeout)
                ) as conn:
                    conn.execute("SELECT 1")
                    found = (conn.info.host, conn.info.port)
                self._back(found)
            except psycopg.Error:
                continue
            with self._lock:
                self.since = None
            return

    def stop(self) -> None:
        """Stop waiting (the store closes)."""
        self._stop.set()


def _fault_kind(exc: psycopg.Error) -> str | None:
    """The kind of fault a psycopg error is, or None when it is none (a bug, a conflict)."""
    state = exc.sqlstate
    if isinstance(exc, PoolTimeout | PoolClosed):
        return "unreachable"
    if isinstance(exc, pg_errors.DiskFull):
        return "disk-full"
    if isinstance(exc, pg_errors.ReadOnlySqlTransaction):
        return "read-only"
    if isinstance(exc, pg_errors.TooManyConnections):
        return "busy"
    if isinstance(exc, pg_errors.IoError):
        return "io-error"
    if isinstance(exc, psycopg.OperationalError) and (
        state is None or state.startswith(UNREACHABLE)
    ):
        return "unreachable"
    return None


def _connect_timeout(timeout: float) -> int:
    """libpq's connect_timeout (whole seconds, at least 2: libpq takes 1 as 2)."""
    return max(2, round(timeout))


def _configure(conn: psycopg.Connection[Any]) -> None:
    """Decode json columns with msgspec (the same decoder the SQLite store uses), and note
    the server's warning that a commit's wait for the synchronous standby was cut short."""
    set_json_loads(msgspec.json.decode, conn)
    held = weakref.ref(conn)

    def noticed(diagnostic: psycopg.errors.Diagnostic) -> None:
        found = held()
        if found is not None and _cut_short(diagnostic):
            _UNREPLICATED.add(found)

    conn.add_notice_handler(noticed)


CUT_SHORT_CODES = frozenset({"57P01", "01000"})
"""The codes of PostgreSQL's warnings that a commit stopped waiting for the standby."""

_UNREPLICATED: weakref.WeakSet[psycopg.Connection[Any]] = weakref.WeakSet()
"""Connections whose latest commit the server kept without waiting for the standby."""


def _cut_short(diagnostic: psycopg.errors.Diagnostic) -> bool:
    """Whether a notice may be PostgreSQL's warning that a commit stopped waiting for the
    synchronous standby (cancelled, or the session ended): it is written on the primary, and
    reported done, but the standby may not have it. Known by its code in any language: the
    session's end is ``57P01`` (admin shutdown), a cancellation the plain warning ``01000``,
    which a commit gives for nothing else. A notice taken for it by mistake costs a 503 whose
    retry with the same Idempotency-Key finds the move written; one missed would acknowledge a
    move the standby may lack."""
    severity = diagnostic.severity_nonlocalized or diagnostic.severity or ""
    text = diagnostic.message_primary or ""
    return severity == "WARNING" and (
        diagnostic.sqlstate in CUT_SHORT_CODES or "wait for synchronous replication" in text
    )


def unreplicated(conn: psycopg.Connection[Any]) -> bool:
    """Whether the server warned, since the last asking, that a commit on ``conn`` stopped
    waiting for the synchronous standby (see ``_cut_short``)."""
    if conn in _UNREPLICATED:
        _UNREPLICATED.discard(conn)
        return True
    return False


def resilient(url: str, timeout: float) -> str:
    """The URL with ``DEAD_PEER``'s keepalives and a ``tcp_user_timeout`` of ``timeout``
    seconds, each unless the URL sets it (an unparsable URL as it is: connecting says why)."""
    try:
        given = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return url
    wanted = {**DEAD_PEER, "tcp_user_timeout": str(max(1000, round(timeout * 1000)))}
    added = {name: value for name, value in wanted.items() if name not in given}
    return make_conninfo(url, **added) if added else url


def preferring(url: str, host: str, port: int) -> str:
    """The URL with the server at ``host:port`` first among its servers, the others after it
    in their order: new connections go straight to the server that takes writes now instead
    of waiting out a dead one named before it. The URL as it is when it names one server,
    gives ``hostaddr``, or does not name that one."""
    try:
        info = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return url
    hosts = str(info.get("host", "")).split(",")
    ports = str(info.get("port", "")).split(",")
    ports = ports * len(hosts) if len(ports) == 1 else ports
    if len(hosts) < 2 or len(ports) != len(hosts) or "hostaddr" in info:
        return url
    servers = [(h, p or "5432") for h, p in zip(hosts, ports, strict=True)]
    if (host, str(port)) not in servers:
        return url
    first = servers.index((host, str(port)))
    servers = servers[first:] + servers[:first]
    info["host"] = ",".join(h for h, _ in servers)
    info["port"] = ",".join(p for _, p in servers)
    return make_conninfo("", **info)


def redacted(url: str) -> str:
    """The URL without its password, for error messages."""
    try:
        info = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "(an unparsable database URL)"
    shown = {name: str(value) for name, value in info.items() if name != "password"}
    return repr(make_conninfo("", **shown))


@contextmanager
def translated(doing: str) -> Iterator[None]:
    """Turn psycopg errors escaping a block into StoreError, naming what was being done."""
    try:
        yield
    except PoolClosed as exc:
        raise StoreError(f"{doing}: the store is closed") from exc
    except psycopg.Error as exc:
        raise StoreError(f"{doing}: {exc}") from exc

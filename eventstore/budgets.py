"""Budgets shared by every process on one database: named counters kept in two small tables.

A budget is a name (``writes``, ``streams``) and a key (whose budget: an address, a caller);
the store knows nothing more of them. Two kinds:

- A **rate** (``take``): a token bucket of ``rate`` tokens a second and ``burst`` at most,
  kept as one row per (name, key) by the generic cell rate algorithm: the row holds the time
  at which the bucket is full again (``tat``), and one UPSERT both checks and spends, so
  processes taking from one key at once never grant more than the bucket holds. A cost over
  the burst is granted on a full bucket and leaves a debt, as ``TokenBucket`` does.
- **Slots** (``acquire``, ``release``): rows held by a process (an open stream, a running
  analysis), at most ``limit`` per (name, key), each with an expiry the process renews
  (``renew``) while it lives: a process killed without a word leaves rows that expire after
  ``lease`` seconds, so nothing it held is held for ever.

Every time is the database's own clock (``statement_timestamp()``; SQLite's ``julianday``),
so processes whose clocks differ (another host, a clock stepped by ten minutes) count in one
time. ``SqliteBudgets`` keeps the tables in a file of their own (one per database, beside
it), written with ``synchronous=OFF``: a budget is worth no flush to disk, and it never waits
behind the event log's commits. ``eventstore.budgets_postgres`` keeps them in the event
store's PostgreSQL database.
"""

from __future__ import annotations

import sqlite3
import threading
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from .errors import StoreUnavailable

LEASE_SECONDS = 30.0
"""How long a slot outlives its process's last renewal."""
IDLE_SECONDS = 1.0
"""A rate's row whose bucket has been full this long is dropped by ``renew`` (none is the same)."""

SQLITE_NOW = "((julianday('now') - 2440587.5) * 86400.0)"
SQLITE_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS budget_rates (name TEXT NOT NULL, key TEXT NOT NULL,"
    " tat REAL NOT NULL, at REAL NOT NULL, ok INTEGER NOT NULL, PRIMARY KEY (name, key))",
    "CREATE TABLE IF NOT EXISTS budget_slots (name TEXT NOT NULL, key TEXT NOT NULL,"
    " process TEXT NOT NULL, holder TEXT NOT NULL, expires REAL NOT NULL,"
    " PRIMARY KEY (name, key, process, holder))",
    "CREATE INDEX IF NOT EXISTS budget_slots_process ON budget_slots (process)",
)
SQLITE_TAKE = (
    f"INSERT INTO budget_rates (name, key, tat, at, ok) VALUES (?, ?, {SQLITE_NOW} + ?,"
    f" {SQLITE_NOW}, 1) ON CONFLICT (name, key) DO UPDATE SET"
    " ok = max(tat, excluded.at) - excluded.at <= ?,"
    " tat = CASE WHEN max(tat, excluded.at) - excluded.at <= ?"
    " THEN max(tat, excluded.at) + ? ELSE tat END, at = excluded.at"
    " RETURNING ok, tat - at"
)


class Budgets(ABC):
    """Rates and slots shared by every process using the same database; ``process`` names
    this one's slots."""

    def __init__(self, lease: float = LEASE_SECONDS) -> None:
        self.lease = lease
        self.process = uuid.uuid4().hex

    def take(self, name: str, key: str, cost: float, rate: float, burst: int) -> float:
        """Spend ``cost`` tokens of the (``name``, ``key``) bucket (``rate`` a second, at most
        ``burst``): 0 when granted, else the seconds until they are due (nothing spent)."""
        needed = min(cost, burst)
        slack, step = (burst - needed) / rate, cost / rate
        granted, until = self._take(name, key, step, slack)
        return 0.0 if granted else max(until - slack, 1e-6)

    def acquire(self, name: str, key: str, holder: str, limit: int, count: int = 1) -> bool:
        """Hold ``count`` slots of (``name``, ``key``) as ``holder`` (``holder``, then
        ``holder#1``, ``holder#2``... for more than one) if no more than ``limit`` are then
        held by every process together; whether they were."""
        return self._acquire(name, key, holders_of(holder, count), limit)

    @abstractmethod
    def _take(self, name: str, key: str, step: float, slack: float) -> tuple[bool, float]:
        """Spend ``step`` seconds of the bucket if it is at most ``slack`` seconds from full:
        whether it was, and how far from full it is now (seconds)."""

    @abstractmethod
    def _acquire(self, name: str, key: str, holders: list[str], limit: int) -> bool:
        """Hold a slot as each of ``holders`` if the count stays within ``limit``."""

    @abstractmethod
    def release(self, name: str, key: str, holder: str, count: int = 1) -> None:
        """Give back the slots ``acquire`` took as ``holder`` (``count`` of them)."""

    @abstractmethod
    def held(self, name: str, key: str) -> int:
        """How many slots of (``name``, ``key``) every process together holds now."""

    @abstractmethod
    def renew(self) -> None:
        """Extend this process's slots by ``lease`` from now; drop expired slots and idle
        rates (of any process)."""

    @abstractmethod
    def close(self) -> None:
        """Give back this process's slots and close the connections."""


@contextmanager
def translated(doing: str) -> Iterator[None]:
    """SQLite's errors (a file locked too long, a full disk) as ``StoreUnavailable``."""
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreUnavailable("unreachable", f"{doing}: {exc}") from exc


def holders_of(holder: str, count: int) -> list[str]:
    """The holders ``acquire`` named for ``count`` slots of ``holder``."""
    return [holder] + [f"{holder}#{n}" for n in range(1, count)]


class SqliteBudgets(Budgets):
    """The budgets in the SQLite file at ``path`` (one connection per thread)."""

    def __init__(self, path: str | Path, lease: float = LEASE_SECONDS) -> None:
        super().__init__(lease)
        self.path = str(path)
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        for statement in SQLITE_SCHEMA:
            conn.execute(statement)
        conn.execute("COMMIT")

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, timeout=5.0, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=OFF")
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def _take(self, name: str, key: str, step: float, slack: float) -> tuple[bool, float]:
        with translated("cannot spend a budget"):
            row = self._conn().execute(SQLITE_TAKE, [name, key, step, slack, slack, step])
            ok, until = row.fetchone()
        return bool(ok), float(until)

    def _acquire(self, name: str, key: str, holders: list[str], limit: int) -> bool:
        with translated("cannot take a slot"):
            return self._acquire_now(name, key, holders, limit)

    def _acquire_now(self, name: str, key: str, holders: list[str], limit: int) -> bool:
        """``_acquire``, errors untranslated."""
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                f"DELETE FROM budget_slots WHERE name = ? AND key = ? AND expires < {SQLITE_NOW}",
                [name, key],
            )
            (held,) = conn.execute(
                "SELECT count(*) FROM budget_slots WHERE name = ? AND key = ?", [name, key]
            ).fetchone()
            granted = bool(held + len(holders) <= limit)
            if granted:
                conn.executemany(
                    "INSERT OR REPLACE INTO budget_slots (name, key, process, holder, expires)"
                    f" VALUES (?, ?, ?, ?, {SQLITE_NOW} + ?)",
                    [(name, key, self.process, h, self.lease) for h in holders],
                )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return granted

    def release(self, name: str, key: str, holder: str, count: int = 1) -> None:
        with translated("cannot give a slot back"):
            self._release(name, key, holder, count)

    def _release(self, name: str, key: str, holder: str, count: int) -> None:
        """``release``, errors untranslated."""
        self._conn().executemany(
            "DELETE FROM budget_slots WHERE name = ? AND key = ? AND process = ? AND holder = ?",
            [(name, key, self.process, h) for h in holders_of(holder, count)],
        )

    def held(self, name: str, key: str) -> int:
        with translated("cannot count slots"):
            return self._held(name, key)

    def _held(self, name: str, key: str) -> int:
        """``held``, errors untranslated."""
        row = (
            self._conn()
            .execute(
                "SELECT count(*) FROM budget_slots WHERE name = ? AND key = ?"
                f" AND expires >= {SQLITE_NOW}",
                [name, key],
            )
            .fetchone()
        )
        return int(row[0])

    def renew(self) -> None:
        with translated("cannot renew slots"):
            self._renew()

    def _renew(self) -> None:
        """``renew``, errors untranslated."""
        conn = self._conn()
        conn.execute(
            f"UPDATE budget_slots SET expires = {SQLITE_NOW} + ? WHERE process = ?",
            [self.lease, self.process],
        )
        conn.execute(f"DELETE FROM budget_slots WHERE expires < {SQLITE_NOW}")
        conn.execute(f"DELETE FROM budget_rates WHERE tat < {SQLITE_NOW} - ?", [IDLE_SECONDS])

    def close(self) -> None:
        with suppress(sqlite3.Error):
            self._conn().execute("DELETE FROM budget_slots WHERE process = ?", [self.process])
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
        self._local = threading.local()

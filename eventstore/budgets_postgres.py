"""The shared budgets (``eventstore.budgets``) in a PostgreSQL database: the event store's own,
through a small pool of its own that refuses at once while the server is down (``Connections``).

A rate is one UPSERT (one round trip); slots are taken in a transaction holding an advisory
lock on their (name, key), so two processes counting one key at once never both take its
last slot.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from .budgets import LEASE_SECONDS, Budgets, holders_of
from .errors import StoreError
from .faults import FaultTally
from .postgres_pool import Connections

NOW = "extract(epoch FROM statement_timestamp())::float8"
SCHEMA_LOCK = 0x7ABB_0B06
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS budget_rates (name TEXT NOT NULL, key TEXT NOT NULL,"
    " tat DOUBLE PRECISION NOT NULL, at DOUBLE PRECISION NOT NULL, ok BOOLEAN NOT NULL,"
    " PRIMARY KEY (name, key))",
    "CREATE TABLE IF NOT EXISTS budget_slots (name TEXT NOT NULL, key TEXT NOT NULL,"
    " process TEXT NOT NULL, holder TEXT NOT NULL, expires DOUBLE PRECISION NOT NULL,"
    " PRIMARY KEY (name, key, process, holder))",
    "CREATE INDEX IF NOT EXISTS budget_slots_process ON budget_slots (process)",
)
TAKE = (
    "INSERT INTO budget_rates AS b (name, key, tat, at, ok)"
    f" VALUES (%s, %s, {NOW} + %s, {NOW}, true) ON CONFLICT (name, key) DO UPDATE SET"
    " ok = greatest(b.tat, excluded.at) - excluded.at <= %s,"
    " tat = CASE WHEN greatest(b.tat, excluded.at) - excluded.at <= %s"
    " THEN greatest(b.tat, excluded.at) + %s ELSE b.tat END, at = excluded.at"
    " RETURNING ok, tat - at"
)
MAX_CONNECTIONS = 4


class PostgresBudgets(Budgets):
    """The budgets in the PostgreSQL database at ``url`` (no wait longer than ``timeout``)."""

    def __init__(self, url: str, timeout: float = 5.0, lease: float = LEASE_SECONDS) -> None:
        super().__init__(lease)
        self._db = Connections(unflushed(url), MAX_CONNECTIONS, timeout, FaultTally())
        self._db.open(self._create_schema)

    def _create_schema(self) -> None:
        """Create the tables unless they exist (one process at a time)."""
        with self._db.connection("cannot create the budget tables") as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", [SCHEMA_LOCK])
            for statement in SCHEMA:
                conn.execute(statement)

    def _conn(self, doing: str) -> Any:
        """A pooled connection (``StoreUnavailable`` at once while the server is down)."""
        return self._db.pooled(doing)

    def _take(self, name: str, key: str, step: float, slack: float) -> tuple[bool, float]:
        with self._conn("cannot spend a budget") as conn:
            row = conn.execute(TAKE, [name, key, step, slack, slack, step]).fetchone()
        return bool(row[0]), float(row[1])

    def _acquire(self, name: str, key: str, holders: list[str], limit: int) -> bool:
        with self._conn("cannot take a slot") as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [f"{name}/{key}"])
            conn.execute(
                f"DELETE FROM budget_slots WHERE name = %s AND key = %s AND expires < {NOW}",
                [name, key],
            )
            row = conn.execute(
                "SELECT count(*) FROM budget_slots WHERE name = %s AND key = %s", [name, key]
            ).fetchone()
            if row[0] + len(holders) > limit:
                return False
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO budget_slots (name, key, process, holder, expires)"
                    f" VALUES (%s, %s, %s, %s, {NOW} + %s) ON CONFLICT DO NOTHING",
                    [(name, key, self.process, h, self.lease) for h in holders],
                )
        return True

    def release(self, name: str, key: str, holder: str, count: int = 1) -> None:
        with self._conn("cannot give a slot back") as conn:
            conn.execute(
                "DELETE FROM budget_slots WHERE name = %s AND key = %s AND process = %s"
                " AND holder = ANY(%s)",
                [name, key, self.process, holders_of(holder, count)],
            )

    def held(self, name: str, key: str) -> int:
        with self._conn("cannot count slots") as conn:
            row = conn.execute(
                "SELECT count(*) FROM budget_slots WHERE name = %s AND key = %s"
                f" AND expires >= {NOW}",
                [name, key],
            ).fetchone()
        return int(row[0])

    def renew(self) -> None:
        with self._conn("cannot renew slots") as conn:
            conn.execute(
                f"UPDATE budget_slots SET expires = {NOW} + %s WHERE process = %s",
                [self.lease, self.process],
            )
            conn.execute(f"DELETE FROM budget_slots WHERE expires < {NOW}")
            conn.execute(f"DELETE FROM budget_rates WHERE tat < {NOW} - %s", [1.0])

    def close(self) -> None:
        try:
            with self._conn("cannot give slots back") as conn:
                conn.execute("DELETE FROM budget_slots WHERE process = %s", [self.process])
        except (psycopg.Error, StoreError):
            pass  # the server is away: the slots expire
        finally:
            self._db.close()


def unflushed(url: str) -> str:
    """``url`` with ``synchronous_commit`` off: a budget's commit waits for no flush to disk
    (nor for a standby); a crash may forget the last few spends, never corrupt the tables."""
    options = str(conninfo_to_dict(url).get("options") or "")
    return make_conninfo(url, options=f"{options} -c synchronous_commit=off".strip())

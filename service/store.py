"""The event store the service runs on, chosen from the settings."""

from __future__ import annotations

from eventstore import EventStore, SqliteEventStore, utcnow
from eventstore.budgets import LEASE_SECONDS, Budgets, SqliteBudgets
from service.clock import Clock

DAY = 86_400.0


def open_store(
    database: str,
    synchronous: str,
    database_url: str = "",
    idempotency_ttl: float = DAY,
    timeout: float = 5.0,
    clock: Clock = utcnow,
) -> EventStore:
    """PostgreSQL when ``database_url`` is set (no wait for it longer than ``timeout``
    seconds), else the SQLite store at ``database``; its times (of events, of idempotency
    keys) from ``clock``."""
    if database_url:
        from eventstore.postgres import PostgresEventStore  # needs the "postgres" extra

        return PostgresEventStore(
            database_url, idempotency_ttl=idempotency_ttl, timeout=timeout, clock=clock
        )
    return SqliteEventStore(
        database, synchronous=synchronous, idempotency_ttl=idempotency_ttl, clock=clock
    )


def open_budgets(
    database: str,
    database_url: str = "",
    workers: int = 1,
    timeout: float = 5.0,
    lease: float = LEASE_SECONDS,
) -> Budgets | None:
    """The budgets shared by every process (``eventstore.budgets``): in the PostgreSQL
    database when ``database_url`` is set, in a SQLite file beside ``database`` (its name
    with ``.budgets`` after it) when ``workers`` processes share it; None for one process on
    SQLite, which counts its budgets in memory. Slots outlive their process's last renewal
    by ``lease`` seconds."""
    if database_url:
        from eventstore.budgets_postgres import PostgresBudgets

        return PostgresBudgets(database_url, timeout, lease)
    if workers > 1 and database != ":memory:":
        return SqliteBudgets(f"{database}.budgets", lease)
    return None

"""SQLite's failures, made to order: the store's write connection wrapped so that chosen
statements fail with the error SQLite gives for a full disk, an I/O error or a read-only
database, optionally rolling the whole transaction back first, as SQLite itself does when a
full disk or an I/O error strikes in the middle of a statement.

``SqliteEventStore`` runs every write on its writer thread's connection (``_conn``); a test
swaps it for ``Faulty`` between batches. The errors are real ``sqlite3.OperationalError``s
carrying SQLite's result code, as the sqlite3 module raises them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from eventstore import SqliteEventStore

CODES = {"disk-full": (13, "SQLITE_FULL", "database or disk is full")}
CODES["io-error"] = (10, "SQLITE_IOERR", "disk I/O error")
CODES["read-only"] = (8, "SQLITE_READONLY", "attempt to write a readonly database")


def sqlite_error(kind: str) -> sqlite3.OperationalError:
    """The error SQLite raises for a kind of fault, with its result code."""
    code, name, message = CODES[kind]
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code
    error.sqlite_errorname = name
    return error


class Faulty:
    """A connection that fails the statements ``fails`` picks (it returns the kind of fault
    for a statement and its parameters, or None); with ``rolls_back`` the transaction is
    rolled back before the error, as SQLite does for a full disk or an I/O error mid-write."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.fails: Callable[[str, Any], str | None] = lambda statement, parameters: None
        self.rolls_back = False
        self.failed = 0

    def execute(self, statement: str, parameters: Any = ()) -> sqlite3.Cursor:
        self._check(statement, parameters)
        return self.conn.execute(statement, parameters)

    def executemany(self, statement: str, rows: Any) -> sqlite3.Cursor:
        rows = list(rows)
        self._check(statement, rows)
        return self.conn.executemany(statement, rows)

    def _check(self, statement: str, parameters: Any) -> None:
        kind = self.fails(statement, parameters)
        if kind is None:
            return
        self.failed += 1
        if self.rolls_back and self.conn.in_transaction:
            self.conn.rollback()
        raise sqlite_error(kind)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def faulty(store: SqliteEventStore) -> Faulty:
    """Wrap the store's write connection (between batches: the writer is idle)."""
    writer = store._writer
    with writer.lock:
        wrapped = Faulty(writer.conn)
        writer.conn = wrapped  # type: ignore[assignment]
    return wrapped

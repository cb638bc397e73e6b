"""Derived data over the summaries: the order they were written in, and rows a caller folds
from them (``Derived``, the role; the SQL both stores share).

Every write of a summary (an append that carries one, ``save_summary``) gives it the next
``changed`` position, in the order the writes commit: SQLite's writes are one at a time, and
PostgreSQL's take a transaction-scoped advisory lock before taking the position, so a
follower that has read up to a position never misses a summary committed later below it.
``changes`` reads them in that order, of one kind or of all but one.

What a follower makes of them is kept in ``derived``: rows of a ``space`` (any text the
caller chooses) by ``key``, each with a ``score`` and a JSON ``document``, read in key order
(``derived_rows``) or in (score, key) order (``derived_ranked``, with ``derived_rank``
counting the rows before one). A follower's position is a ``mark`` (``derived_marks``), and
``derived_save`` moves a mark and writes rows in one transaction, only if the mark is where
the caller read it: of several processes catching up at once, one writes and the others read
again. Dropping the summaries drops every derived row and mark with them (positions start
again from 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import msgspec

from .model import Summarised

CHANGES_LOCK = 7_362_001
"""PostgreSQL's advisory lock around taking a summary's position (held until commit)."""


class Changed(msgspec.Struct, frozen=True):
    """A summary as written at a position of the order of summary writes."""

    position: int
    row: Summarised


class DerivedRow(msgspec.Struct, frozen=True):
    """A row of derived data; ``document`` None, in ``derived_save``, deletes the row."""

    space: str
    key: str
    score: float = 0.0
    document: dict[str, Any] | None = None


class Drop(msgspec.Struct, frozen=True):
    """The rows of a space from ``key`` on (every row of it when None), to delete."""

    space: str
    key: str | None = None


class Derived(Protocol):
    """Summaries in the order they were written, and the rows callers derive from them."""

    def changes(
        self, after: int, limit: int = 1000, kind: str | None = None, other_than: str | None = None
    ) -> list[Changed]:
        """The summaries written after position ``after``, in position order, at most
        ``limit``; of ``kind`` only, or of every kind but ``other_than``. A summary written
        again shows once, at its latest position."""
        ...

    def derived_rows(
        self,
        space: str,
        after: str | None = None,
        *,
        since: str | None = None,
        before: str | None = None,
        limit: int = 1000,
        reverse: bool = False,
    ) -> list[DerivedRow]:
        """A space's rows in key order (descending with ``reverse``): keys > ``after``,
        >= ``since``, < ``before``, at most ``limit``."""
        ...

    def derived_ranked(
        self, space: str, after: tuple[float, str] | None = None, limit: int = 100
    ) -> list[DerivedRow]:
        """A space's rows in (score, key) order, after ``after``, at most ``limit``."""
        ...

    def derived_rank(self, space: str, score: float, key: str) -> int:
        """How many rows of a space come before (score, key) in (score, key) order."""
        ...

    def derived_mark(self, name: str) -> int:
        """A follower's position (0 when it has none)."""
        ...

    def derived_save(
        self,
        name: str,
        expected: int,
        position: int,
        rows: Sequence[DerivedRow] = (),
        drops: Sequence[Drop] = (),
    ) -> bool:
        """In one transaction, if mark ``name`` is at ``expected``: move it to ``position``,
        delete ``drops``, then write ``rows``; whether it was done."""
        ...


TABLES = (
    """CREATE TABLE derived (
        space text NOT NULL,
        key text NOT NULL,
        score {real} NOT NULL,
        document {json} NOT NULL,
        PRIMARY KEY (space, key)
    ){clustered}""",
    "CREATE INDEX derived_ranked ON derived (space, score, key)",
    """CREATE TABLE derived_marks (
        name text PRIMARY KEY,
        position {bigint} NOT NULL
    ){options}""",
    "ALTER TABLE summaries ADD COLUMN changed {bigint} NOT NULL DEFAULT 0",
    "UPDATE summaries SET changed = r.n FROM (SELECT stream_id, row_number() OVER"
    " (ORDER BY updated_at, stream_id) AS n FROM summaries) r"
    " WHERE r.stream_id = summaries.stream_id",
    "CREATE INDEX summaries_changed ON summaries (changed)",
    "CREATE INDEX summaries_kind_changed ON summaries (kind, changed)",
)
"""Migration 2, with the dialect's json type, table options and names of a float and a large
integer column (a STRICT SQLite table takes ``real`` and ``integer``) to fill in. SQLite keeps
``derived`` in its primary key's order (``WITHOUT ROWID``), so a space's rows sit together
however they were written: a page of a leaderboard reads a few pages of the file."""

NEXT_POSITION = "(SELECT COALESCE(MAX(changed), 0) + 1 FROM summaries)"
"""The position a summary written now takes (read from ``summaries_changed``)."""


def select_changes(
    after: int, limit: int, kind: str | None, other_than: str | None
) -> tuple[str, list[Any]]:
    """The SQL (``?`` marks) and parameters of ``changes``; rows as ``summarised`` reads
    them, then the position."""
    where: list[str] = ["s.changed > ?"]
    params: list[Any] = [after]
    if kind is not None:
        where.append("s.kind = ?")
        params.append(kind)
    if other_than is not None:
        where.append("s.kind <> ?")
        params.append(other_than)
    text = (
        "SELECT s.stream_id, st.version, s.created_at, s.updated_at, s.kind, s.status, s.tags,"
        " s.document, s.changed FROM summaries s JOIN streams st ON st.stream_id = s.stream_id"
        f" WHERE {' AND '.join(where)} ORDER BY s.changed LIMIT ?"
    )
    return text, [*params, limit]


def select_rows(
    space: str,
    after: str | None,
    since: str | None,
    before: str | None,
    limit: int,
    reverse: bool,
) -> tuple[str, list[Any]]:
    """The SQL (``?`` marks) and parameters of ``derived_rows``."""
    where: list[str] = ["space = ?"]
    params: list[Any] = [space]
    for operator, bound in ((">", after), (">=", since), ("<", before)):
        if bound is not None:
            where.append(f"key {operator} ?")
            params.append(bound)
    order = "DESC" if reverse else ""
    text = (
        f"SELECT space, key, score, document FROM derived WHERE {' AND '.join(where)}"
        f" ORDER BY key {order} LIMIT ?"
    )
    return text, [*params, limit]


def select_ranked(space: str, after: tuple[float, str] | None, limit: int) -> tuple[str, list[Any]]:
    """The SQL (``?`` marks) and parameters of ``derived_ranked``."""
    where, params = "space = ?", list[Any]([space])
    if after is not None:
        where, params = f"{where} AND (score, key) > (?, ?)", [space, *after]
    text = (
        f"SELECT space, key, score, document FROM derived WHERE {where} ORDER BY score, key LIMIT ?"
    )
    return text, [*params, limit]


RANK = "SELECT count(*) FROM derived WHERE space = ? AND (score, key) < (?, ?)"
MARK = "SELECT position FROM derived_marks WHERE name = ?"
MOVE_MARK = (
    "INSERT INTO derived_marks (name, position) VALUES (?, ?) ON CONFLICT (name)"
    " DO UPDATE SET position = excluded.position WHERE derived_marks.position = ?"
)
UPSERT_ROW = (
    "INSERT INTO derived (space, key, score, document) VALUES (?, ?, ?, CAST(? AS {json}))"
    " ON CONFLICT (space, key) DO UPDATE SET score = excluded.score,"
    " document = excluded.document"
)


def save(
    conn: Any,
    mark: str,
    json: str,
    name: str,
    expected: int,
    position: int,
    rows: Sequence[DerivedRow],
    drops: Sequence[Drop],
) -> bool:
    """``derived_save`` inside a transaction on ``conn`` (SQL with the driver's ``mark``)."""

    def run(text: str, params: Sequence[Any]) -> Any:
        return conn.execute(text.replace("?", mark), list(params))

    found = run(MARK, [name]).fetchone()
    if (0 if found is None else int(found[0])) != expected:
        return False
    if run(MOVE_MARK, [name, position, expected]).rowcount != 1:
        return False  # another process moved it since it was read (PostgreSQL)
    for drop in drops:
        if drop.key is None:
            run("DELETE FROM derived WHERE space = ?", [drop.space])
        else:
            run("DELETE FROM derived WHERE space = ? AND key >= ?", [drop.space, drop.key])
    upsert = UPSERT_ROW.format(json=json)
    for row in rows:
        if row.document is None:
            run("DELETE FROM derived WHERE space = ? AND key = ?", [row.space, row.key])
        else:
            document = msgspec.json.encode(row.document).decode()
            run(upsert, [row.space, row.key, float(row.score), document])
    return True


def drop_all(conn: Any) -> None:
    """Delete every derived row and mark (the summaries they came from are dropped)."""
    conn.execute("DELETE FROM derived")
    conn.execute("DELETE FROM derived_marks")

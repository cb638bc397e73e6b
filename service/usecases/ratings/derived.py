"""What the folds of the summaries share (a rule set's ratings, the standings without a tag):
the derived rows they keep, the loop that reads the summaries written since a fold's mark and
saves what it made of them with the mark moved, and the keys of finished games.

A fold catches up when it is read: it reads a page of the summaries written after its mark
(``EventStore.changes``), makes rows of them, and saves the rows with the mark moved past the
page in one transaction, which fails if another process moved the mark first (it then reads
again). The lock (one per fold, none shared between them) keeps this process's threads from
doing the same work twice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from eventstore import Changed, DerivedRow, Drop, EventStore, Summarised, iso_timestamp
from service.core.clocks import parse_at
from service.usecases.games.summaries import FINISHED

PAGE = 500
"""Summaries a fold reads (and saves what it made of) at a time."""
LATEST = "\x7f"
"""Sorts after every key that starts with a time: ``derived_rows(before=time + LATEST)``
takes the keys of that time too."""


class Batch:
    """What one step of a fold writes: rows by (space, key), the last one kept, and the
    ranges it drops first."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], DerivedRow] = {}
        self.drops: list[Drop] = []

    def put(self, space: str, key: str, document: dict[str, Any], score: float = 0.0) -> None:
        self.rows[(space, key)] = DerivedRow(space, key, score, document)

    def delete(self, space: str, key: str) -> None:
        self.rows[(space, key)] = DerivedRow(space, key)

    def drop(self, space: str, since: str | None = None) -> None:
        self.drops.append(Drop(space, since))
        for known in [k for k in self.rows if k[0] == space and (since is None or k[1] >= since)]:
            del self.rows[known]


Step = Callable[[list[Changed], Batch], None]
"""What a fold makes of a page of changes (maybe empty: games whose delay has passed)."""


def catch_up(
    store: EventStore,
    mark: str,
    lock: threading.Lock,
    read: Callable[[int], list[Changed]],
    step: Step,
) -> None:
    """Follow the summaries from mark ``mark`` to the last one written: read a page with
    ``read(position)``, let ``step`` make its rows, save them with the mark moved."""
    with lock:
        while True:
            position = store.derived_mark(mark)
            page = read(position)
            batch = Batch()
            step(page, batch)
            after = page[-1].position if page else position
            if not page and not batch.rows and not batch.drops:
                return
            saved = store.derived_save(
                mark, position, after, list(batch.rows.values()), batch.drops
            )
            if saved and len(page) < PAGE:
                return


def get(store: EventStore, space: str, key: str) -> DerivedRow | None:
    """One derived row, or None."""
    rows = store.derived_rows(space, since=key, limit=1)
    return rows[0] if rows and rows[0].key == key else None


def finish_key(row: Summarised) -> str:
    """Where a finished game comes in finishing order: its time, then its id."""
    return f"{row.updated_at} {row.stream_id}"


def shows_at(row: Summarised) -> str | None:
    """When spectators see a finished game's end, if its delay in seconds hides it for a
    while (None: at once)."""
    delay = row.summary.document.get("spectator_delay") or {}
    seconds = delay.get("seconds")
    if row.summary.status != FINISHED or not isinstance(seconds, int):
        return None
    return iso_timestamp(parse_at(row.updated_at) + timedelta(seconds=seconds))


def due(store: EventStore, space: str, now: datetime) -> list[DerivedRow]:
    """The rows of a space of waiting games (keyed by when they show, then id) due at ``now``."""
    return store.derived_rows(space, before=iso_timestamp(now) + LATEST, limit=PAGE)

"""The standings without a tag (every finished game's), kept in the store and counted as
games finish.

Rows (``EventStore`` derived rows, see derived.py): ``standings``, a name's games, wins and
pieces home; ``standings-games``, what each finished game counted (its seats, winners,
pieces home) or when it shows (a delay in seconds still hiding its end); ``standings-waiting``
those games by when they show. Standings are sums, so a game reopened takes back what it
counted and one finished again counts anew: a change costs its own game only, wherever it is
in the order of games.
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

from eventstore import Changed, EventStore, Summarised
from service.usecases.games.summaries import FINISHED, TOURNAMENT, end_hidden
from service.usecases.ratings import derived
from service.usecases.ratings.derived import Batch

STANDINGS, GAMES, WAITING = "standings", "standings-games", "standings-waiting"


class KeptStandings:
    """The standings over every finished game, caught up at each read."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.lock = threading.Lock()

    def rows(self, now: datetime) -> list[tuple[str, int, int, int]]:
        """(name, games, wins, pieces home) of every name, caught up with the summaries."""

        def read(position: int) -> list[Changed]:
            return self.store.changes(position, derived.PAGE, other_than=TOURNAMENT)

        def step(page: list[Changed], batch: Batch) -> None:
            self.step(page, batch, now)

        derived.catch_up(self.store, STANDINGS, self.lock, read, step)
        found, after = [], None
        while rows := self.store.derived_rows(STANDINGS, after, limit=derived.PAGE):
            for row in rows:
                document = row.document or {}
                counts = (document["games"], document["wins"], document["pieces_home"])
                found.append((row.key, *counts))
            after = rows[-1].key
        return found

    def step(self, page: list[Changed], batch: Batch, now: datetime) -> None:
        """The rows a page of changed summaries (and the waiting games now due) make."""
        rows = [change.row for change in page]
        for waiting in derived.due(self.store, WAITING, now):
            game_id = waiting.key.rsplit(" ", 1)[1]
            row = self.store.summary(game_id)
            if row is None:  # its summary is gone (dropped): nothing left to wait for
                batch.delete(WAITING, waiting.key)
            elif all(r.stream_id != game_id for r in rows):
                rows.append(row)
        deltas: dict[str, list[int]] = {}
        for row in rows:
            known = derived.get(self.store, GAMES, row.stream_id)
            if known is not None and known.document is not None:
                if "waiting" in known.document:
                    batch.delete(WAITING, known.document["waiting"])
                else:
                    count(deltas, known.document, -1)
                batch.delete(GAMES, row.stream_id)
            if row.summary.status != FINISHED:
                continue
            if end_hidden(row, now):
                shows = f"{derived.shows_at(row)} {row.stream_id}"
                batch.put(WAITING, shows, {})
                batch.put(GAMES, row.stream_id, {"waiting": shows})
            else:
                counted = result(row)
                count(deltas, counted, 1)
                batch.put(GAMES, row.stream_id, counted)
        for name, (games, wins, home) in deltas.items():
            before = derived.get(self.store, STANDINGS, name)
            old = before.document if before is not None and before.document else {}
            total = {
                "games": old.get("games", 0) + games,
                "wins": old.get("wins", 0) + wins,
                "pieces_home": old.get("pieces_home", 0) + home,
            }
            if total["games"] > 0:
                batch.put(STANDINGS, name, total)
            else:
                batch.delete(STANDINGS, name)


def result(row: Summarised) -> dict[str, Any]:
    """What a finished game counts in the standings."""
    document = row.summary.document
    return {
        "seats": list(document["seats"]),
        "winners": list(document["winners"]),
        "pieces_home": dict(document["pieces_home"]),
    }


def count(deltas: dict[str, list[int]], counted: dict[str, Any], sign: int) -> None:
    """Add (``sign`` 1) or take back (-1) what one game counts, per name (as ``standings``
    counts a game: each seat a game, a win for a name among the winners)."""
    winners = set(counted["winners"])
    for name in counted["seats"]:
        delta = deltas.setdefault(name, [0, 0, 0])
        delta[0] += sign
        delta[1] += sign * (name in winners)
        delta[2] += sign * counted["pieces_home"].get(name, 0)

"""Each registered player's tournaments: a fold of the tournaments' summaries
(``EventStore.changes`` of kind ``tournament``, which every append to a tournament writes;
their documents name the registered players, ``handles``) kept as derived rows, one space per
player (``player-tournaments:<player id>``), keyed by the tournament's creation time and id.
It catches up when read, as a player's games do (``service.usecases.games.players``). A
withdrawal keeps the tournament among the player's: she played in it."""

from __future__ import annotations

import threading

from domain.players.handles import player_id
from eventstore import Changed, DerivedRow, EventStore, Summarised
from service.usecases.games.summaries import TOURNAMENT

SPACE, MARK = "player-tournaments:", "player-tournaments"
PAGE = 500  # summaries folded at a time


class PlayerTournaments:
    """The tournaments of each registered player, over one store."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.lock = threading.Lock()

    def latest(self, handle: str, limit: int) -> list[Summarised]:
        """The summaries of the player's ``limit`` latest tournaments, newest first."""
        self.caught_up()
        found = []
        for row in self.store.derived_rows(space_of(handle), reverse=True, limit=limit):
            summarised = self.store.summary(row.key.rsplit(" ", 1)[1])
            if summarised is not None:
                found.append(summarised)
        return found

    def caught_up(self) -> None:
        """Fold the tournaments' summaries written since the mark (another process folding
        at once: read again)."""
        with self.lock:
            while True:
                position = self.store.derived_mark(MARK)
                page = self.store.changes(position, PAGE, kind=TOURNAMENT)
                if not page:
                    return
                saved = self.store.derived_save(MARK, position, page[-1].position, rows_of(page))
                if saved and len(page) < PAGE:
                    return


def rows_of(page: list[Changed]) -> list[DerivedRow]:
    """A row per registered player of each tournament of a page of summaries."""
    rows: dict[tuple[str, str], DerivedRow] = {}
    for change in page:
        row = change.row
        for handle in row.summary.document.get("handles") or ():
            space, key = space_of(handle), f"{row.created_at} {row.stream_id}"
            rows[(space, key)] = DerivedRow(space, key, 0.0, {})
    return list(rows.values())


def space_of(handle: str) -> str:
    """The space of a player's tournaments."""
    return SPACE + player_id(handle)

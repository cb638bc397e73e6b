"""Each registered player's games, running and finished: a fold of the games' summaries
(``EventStore.changes``, which a game's creation and every change of its status write) kept
as derived rows, one space per player (``player-games:<player id>``), keyed by the game's
creation time and id. It catches up when read, as the ratings do; a game's summary is what
``GET /me`` lists of it, as the games' listing shows it."""

from __future__ import annotations

import threading

from domain.players.handles import player_id
from eventstore import Changed, DerivedRow, EventStore
from service.clock import Clock
from service.usecases.games.summaries import TOURNAMENT, game_summary, players_in
from service.usecases.replies import GameSummary

SPACE, MARK = "player-games:", "player-games"
PAGE = 500  # summaries folded at a time


class PlayerGames:
    """The games of each registered player, over one store."""

    def __init__(self, store: EventStore, now: Clock) -> None:
        self.store, self.now = store, now
        self.lock = threading.Lock()

    def latest(self, handle: str, limit: int) -> list[GameSummary]:
        """The player's ``limit`` latest games, newest first."""
        self.caught_up()
        found = []
        for row in self.store.derived_rows(space_of(handle), reverse=True, limit=limit):
            summarised = self.store.summary(row.key.rsplit(" ", 1)[1])
            if summarised is not None:
                found.append(game_summary(summarised, self.now()))
        return found

    def caught_up(self) -> None:
        """Fold the summaries written since the mark (another process folding at once: read
        again)."""
        with self.lock:
            while True:
                position = self.store.derived_mark(MARK)
                page = self.store.changes(position, PAGE, other_than=TOURNAMENT)
                if not page:
                    return
                saved = self.store.derived_save(MARK, position, page[-1].position, rows_of(page))
                if saved and len(page) < PAGE:
                    return


def rows_of(page: list[Changed]) -> list[DerivedRow]:
    """A row per seat of a registered player in the games of a page of summaries."""
    rows: dict[tuple[str, str], DerivedRow] = {}  # a player at two seats: one row
    for change in page:
        row = change.row
        for seat, handle in enumerate(players_in(row.summary.document)):
            if handle is not None:
                space, key = space_of(handle), f"{row.created_at} {row.stream_id}"
                rows[(space, key)] = DerivedRow(space, key, 0.0, {"seat": seat})
    return list(rows.values())


def space_of(handle: str) -> str:
    """The space of a player's games."""
    return SPACE + player_id(handle)

"""The games that name each registered player (a seat of hers, or a seat kept for her
invitation), for her feed: a fold of the games' summaries (``EventStore.changes``, which a
game's creation and every change of its status or of who sits at it write) into derived rows,
caught up when read, as a player's games are (``games/players.py``).

Two spaces per player: ``feed-live:<player id>``, a row per game that named her while it
gathered or ran (key: its creation time and id), and ``feed-done:<player id>``, a row per game
that named her when it finished or closed (key: the time of that summary and the id). A game
leaves the live space of the players its last summary names; a player it stopped naming
before (a declined invitation, a seat left) keeps a live row that her feed finds over.
"""

from __future__ import annotations

import threading
from typing import Any

from domain.players.handles import player_id
from eventstore import Changed, DerivedRow, EventStore
from service.usecases.games.summaries import GATHERING, TOURNAMENT, players_in
from service.usecases.players.wire import Invitation

LIVE, DONE, MARK = "feed-live:", "feed-done:", "feed-games"
PAGE = 500  # summaries folded at a time
MOST = 1000  # rows of a space read at a time
OVER = ("finished", "closed")  # a summary's status once the game is over


def named_in(document: dict[str, Any]) -> set[str]:
    """The handles a game's summary names: its players' and its invited players'."""
    named = {handle for handle in players_in(document) if handle is not None}
    table = document.get("table") or {}
    named.update(str(handle) for _, handle in table.get("invites") or ())
    return named


class NamedGames:
    """The games that name each registered player, over one store."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.lock = threading.Lock()

    def concerning(self, handle: str, since: str | None) -> list[str]:
        """The ids of the games that name the player and may have notes after ``since``
        (an event's time; None: now): every game that gathers or runs, and the games over
        since then."""
        self.caught_up()
        key = player_id(handle)
        found = [
            row.key.rsplit(" ", 1)[1] for row in self.store.derived_rows(LIVE + key, limit=MOST)
        ]
        if since is not None:
            over = self.store.derived_rows(DONE + key, since=since, limit=MOST)
            found += [row.key.rsplit(" ", 1)[1] for row in over]
        return list(dict.fromkeys(found))

    def invitations(self, handle: str) -> list[Invitation]:
        """The seats kept for the player at tables that still gather, oldest first."""
        waiting: list[Invitation] = []
        for game_id in self.concerning(handle, None):
            row = self.store.summary(game_id)
            if row is None or row.summary.status != GATHERING:
                continue
            document = row.summary.document
            for seat, invited in (document.get("table") or {}).get("invites") or ():
                if invited == handle:
                    rated = bool(document.get("rated", True))
                    rematch_of = document.get("rematch_of")
                    created = row.created_at
                    waiting.append(
                        Invitation(game_id, seat, row.summary.kind, rated, created, rematch_of)
                    )
        return sorted(waiting, key=lambda invitation: invitation.created_at)

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

    def position(self) -> int:
        """The position of the latest summary folded, once caught up."""
        self.caught_up()
        return self.store.derived_mark(MARK)


def rows_of(page: list[Changed]) -> list[DerivedRow]:
    """For each handle each summary of the page names: the game's live row, or once it is
    over its done row and the live row deleted."""
    rows: dict[tuple[str, str], DerivedRow] = {}
    for change in page:
        row = change.row
        over = row.summary.status in OVER
        live_key = f"{row.created_at} {row.stream_id}"
        for handle in named_in(row.summary.document):
            key = player_id(handle)
            live = DerivedRow(LIVE + key, live_key, 0.0, None if over else {})
            rows[(live.space, live.key)] = live
            if over:
                done = DerivedRow(DONE + key, f"{row.updated_at} {row.stream_id}", 0.0, {})
                rows[(done.space, done.key)] = done
    return list(rows.values())

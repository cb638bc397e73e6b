"""Boards drawn as SVG: one layout module per board family, one renderer for all.

The layouts take their geometry from the domain modules (read only); the domain knows nothing
of drawing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from domain.events import MovePlayed, parse_event
from domain.replay import Replay
from eventstore import StoredEvent
from service.board import cross, partners, race35, sorry
from service.board.shapes import Layout
from service.board.svg import Mover, render
from service.games import Game, Games
from service.views import state_view

LAYOUTS: dict[str, Callable[[dict[str, Any]], Layout]] = {
    "race35": race35.layout,
    "sorry": sorry.layout,
    "sorry-hand": sorry.layout,
    "partners": partners.layout,
    "parchis": cross.parchis_layout,
    "parchis-2dice": cross.parchis_layout,
    "ludo": cross.ludo_layout,
}
"""The layout of each rule set's board, from the game's options."""


def board_svg(games: Games, game_id: str, at: int | None) -> str:
    """The board of a game after event ``at`` (the current one without ``at``) as SVG."""
    with games.open(game_id) as game:
        if at is None or at == game.version:
            return draw(game, game.replay, games.store.read(game_id, until=game.version))
    replay = games.replay_at(game_id, at)
    return draw(game, replay, games.store.read(game_id, until=at))


def draw(game: Game, replay: Replay, log: Iterable[StoredEvent]) -> str:
    """The board at ``replay``'s version, the last move found in ``log`` (read up to it)."""
    view = state_view(game, replay, None)
    layout = LAYOUTS[view["ruleset"]](view["options"])
    pieces = msgspec.to_builtins(view["pieces"])  # Piece structs or dicts alike
    return render(layout, pieces, movers(last_move(log)), caption(view))


def last_move(log: Iterable[StoredEvent]) -> MovePlayed | None:
    """The latest ``MovePlayed`` still in effect (an undone move is not shown)."""
    effective: list[StoredEvent] = []
    for stored in log:
        if stored.type == "MoveUndone":
            reverts = int(stored.data["reverts"])
            effective = [e for e in effective if e.version < reverts]
        else:
            effective.append(stored)
    for stored in reversed(effective):
        if stored.type == "MovePlayed":
            event = parse_event(stored.type, stored.data)
            assert isinstance(event, MovePlayed)
            return event
    return None


def movers(move: MovePlayed | None) -> list[Mover]:
    """Each piece displacement of a move: its steps, then its effects."""
    if move is None:
        return []
    steps = [Mover(step.piece, step.from_, step.to) for step in move.steps]
    return steps + [Mover(effect.piece, effect.from_, effect.to) for effect in move.effects]


def caption(view: dict[str, Any]) -> str:
    """The line above the board: rule set, version, status and winners."""
    names = {seat["seat"]: seat["name"] for seat in view["seats"]}
    winners = ", ".join(str(names.get(w, w)) for w in view.get("winners") or [])
    won = f" · won by {winners}" if winners else ""
    return f"{view['ruleset']} · version {view['version']} · {view['status']}{won}"

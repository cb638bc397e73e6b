"""Boards drawn as SVG: one layout module per board family, one renderer for all.

The layouts take their geometry from the domain modules (read only); the domain knows nothing
of drawing. Pure: a state view and the log in, SVG out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain.events import MovePlayed, parse_event
from service.board import cross, partners, race35, sorry
from service.board.shapes import Layout
from service.board.svg import Mover, render

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


def draw(view: dict[str, Any], log: Iterable[tuple[str, dict[str, Any]]]) -> str:
    """The board of a state view, the last move found in ``log`` ((type, data) of each event up
    to the view's version) outlined."""
    layout = LAYOUTS[view["ruleset"]](view["options"])
    return render(layout, view["pieces"], movers(last_move(log)), caption(view), view["seats"])


def last_move(log: Iterable[tuple[str, dict[str, Any]]]) -> MovePlayed | None:
    """The latest ``MovePlayed`` still in effect (an undone move is not shown)."""
    effective: list[tuple[int, str, dict[str, Any]]] = []
    for version, (kind, data) in enumerate(log, start=1):
        if kind == "MoveUndone":
            reverts = int(data["reverts"])
            effective = [e for e in effective if e[0] < reverts]
        else:
            effective.append((version, kind, data))
    for _, kind, data in reversed(effective):
        if kind == "MovePlayed":
            event = parse_event(kind, data)
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


def thumbnail(view: dict[str, Any]) -> str:
    """A rule set's board as a game of it begins (the lobby's picture of it): the pieces set
    up, no move outlined, the seats named as the service names a seat given no name; the
    caption is the rule set's name."""
    layout = LAYOUTS[view["ruleset"]](view["options"])
    colours = {int(p["seat"]): str(p["id"]).rsplit("-", 1)[0] for p in view["pieces"]}
    seats = [{"seat": s, "name": f"Player {s + 1}", "colour": c} for s, c in colours.items()]
    return render(layout, view["pieces"], [], str(view["ruleset"]), seats)

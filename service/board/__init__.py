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
from service.words import Say, sayer

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


def draw(view: dict[str, Any], log: Iterable[tuple[str, dict[str, Any]]], lang: str = "en") -> str:
    """The board of a state view, the last move found in ``log`` ((type, data) of each event up
    to the view's version) outlined, its words in ``lang``."""
    layout = LAYOUTS[view["ruleset"]](view["options"])
    say = sayer(lang)
    moved = movers(last_move(log))
    return render(layout, view["pieces"], moved, caption(view, say), view["seats"], say)


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


def caption(view: dict[str, Any], say: Say) -> str:
    """The line above the board: the rule set's name, the move (the log's version), status and
    winners."""
    names = {seat["seat"]: seat["name"] for seat in view["seats"]}
    winners = [str(names.get(w, w)) for w in view.get("winners") or []]
    ruleset = say(f"ruleset.{view['ruleset']}.title")
    line = say("svg.caption", ruleset=ruleset, version=view["version"], status=view["status"])
    if not winners:
        return line
    won = winners[0]
    if len(winners) > 1:
        won = say("names.two", first=", ".join(winners[:-1]), second=winners[-1])
    return say("svg.captionWon", caption=line, names=won)


def thumbnail(view: dict[str, Any], lang: str = "en") -> str:
    """A rule set's board as a game of it begins (the lobby's picture of it): the pieces set
    up, no move outlined, the seats named by their number from 1 (``svg.player``: ``Jugador
    1``); the caption is the rule set's name; every word in ``lang``."""
    layout = LAYOUTS[view["ruleset"]](view["options"])
    colours = {int(p["seat"]): str(p["id"]).rsplit("-", 1)[0] for p in view["pieces"]}
    say = sayer(lang)
    seats = [
        {"seat": s, "name": say("svg.player", number=s + 1), "colour": c}
        for s, c in colours.items()
    ]
    name = say(f"ruleset.{view['ruleset']}.title")
    return render(layout, view["pieces"], [], name, seats, say)

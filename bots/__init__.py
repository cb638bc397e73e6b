"""Computer opponents at levels: each chooses one of a seat's legal moves from what the seat
may see of the game (its redacted log), with its own seeded random generator.

Levels, weakest first: ``random`` (any legal move), ``greedy`` (the move whose steps and
effects score best, as the client's ``GreedyBot``), ``expert`` (expectimax to the next
decision over the rule set, chance outcomes weighted by their probability; ``bots.expert``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bots import expert, greedy
from bots.boards import board
from bots.knowledge import Inconsistent, rebuild
from domain.events import Event, GameCreated, MovePlayed
from domain.model import Move, Piece
from domain.registry import RULESETS, find_ruleset


@dataclass(frozen=True)
class Level:
    """A bot level as ``GET /bots`` lists it."""

    name: str
    description: str
    version: int
    rulesets: tuple[str, ...]


ALL = tuple(RULESETS)

LEVELS: tuple[Level, ...] = (
    Level("random", "Plays any legal move, at random.", 1, ALL),
    Level(
        "greedy",
        "Plays the move that looks best at a glance: progress, bumps, safety.",
        1,
        ALL,
    ),
    Level(
        "expert",
        "Searches each move to the next decision, weighing every die or card by its chance.",
        3,
        ALL,
    ),
)


def find_level(name: str) -> Level:
    """The level called ``name``; KeyError lists the known names."""
    for level in LEVELS:
        if level.name == name:
            return level
    raise KeyError(f"unknown bot level {name!r}; known: {[level.name for level in LEVELS]}")


def choose(
    level: str,
    ruleset: str,
    ruleset_version: int,
    seat: int,
    seen: list[Event],
    moves: list[Move],
    seed: int,
) -> str:
    """The id of one of ``moves`` (the seat's legal moves now), chosen by ``level`` from
    ``seen``, the game's log as the seat may see it; the same inputs give the same choice."""
    find_level(level)
    if not moves:
        raise ValueError(f"seat {seat} has no legal move to choose from")
    rng = random.Random(seed)
    if len(moves) == 1 or level == "random":
        return rng.choice(moves).id
    rules = find_ruleset(ruleset, ruleset_version)
    created = seen[0]
    assert isinstance(created, GameCreated)
    players = len(created.seats)
    layout = board(ruleset, players, created.options)
    if layout is None:
        return rng.choice(moves).id
    state = _state(seen, seat, rng)
    if state is not None:
        view = rules.view(state, seat)
        pieces = list(view.pieces)
    else:
        pieces = public_pieces(ruleset, ruleset_version, created.options, players, seen)
    teams = _teams(ruleset, ruleset_version, _options_key(created.options), players)
    if level == "greedy":
        return greedy.choose(pieces, [list(t) for t in teams], moves, rng).id
    owner = {piece.id: piece.seat for piece in pieces}
    weights = expert.WEIGHTS.get(ruleset, expert.PLAIN)
    judge = expert.Judge(layout, owner, [list(t) for t in teams], weights)
    at = {piece.id: piece.at for piece in pieces}
    return expert.choose(rules, state, judge, at, seat, moves, rng).id


def _state(seen: list[Event], seat: int, rng: random.Random) -> Any | None:
    try:
        return rebuild(seen, seat, rng).state
    except Inconsistent:
        return None


def _options_key(options: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((k, v) for k, v in options.items() if isinstance(v, int | str | bool)))


@lru_cache(maxsize=256)
def _teams(
    ruleset: str, version: int, options: tuple[tuple[str, Any], ...], players: int
) -> tuple[tuple[int, ...], ...]:
    rules = find_ruleset(ruleset, version)
    view = rules.view(rules.setup(dict(options), players), "referee")
    teams = getattr(view, "teams", None)
    if teams:
        return tuple(tuple(team) for team in teams)
    return tuple((seat,) for seat in range(players))


def public_pieces(
    ruleset: str, version: int, options: dict[str, Any], players: int, seen: list[Event]
) -> list[Piece]:
    """Where every piece is, from the moves of the log alone (no hidden card needed)."""
    rules = find_ruleset(ruleset, version)
    start = rules.view(rules.setup(options, players), "referee").pieces
    at = {piece.id: piece.at for piece in start}
    for event in seen:
        if isinstance(event, MovePlayed):
            for step in event.steps:
                at[step.piece] = step.to
            for effect in event.effects:
                at[effect.piece] = effect.to
    return [Piece(piece.id, piece.seat, at[piece.id]) for piece in start]

"""Client bots playing whole games with the domain in process (no HTTP), for tests and bench.

The bots see what they would see through the API: a ``GameView`` built from the domain's view
for their seat, and the legal moves converted to the client's wire types.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import msgspec
from tabula_client import Bot, GameView, Move

from domain.model import CHANCE_KINDS, COLOURS
from domain.registry import find_ruleset
from domain.replay import settle
from domain.ruleset import RuleSet
from tests.domain.playout import chance_event

MAX_ACTIONS = 100_000


def game_view(rules: RuleSet, state: Any, seat: int, version: int) -> GameView:
    """What ``seat`` would get from ``GET /games/{id}``."""
    shown = msgspec.to_builtins(rules.view(state, seat))
    seats = sorted({piece["seat"] for piece in shown["pieces"]})
    data = {
        "game_id": "in-process",
        "ruleset": rules.NAME,
        "version": version,
        "seats": [{"seat": s, "name": f"seat {s}", "colour": COLOURS[s]} for s in seats],
        **shown,
    }
    return msgspec.convert(data, GameView)


def wire_moves(moves: list[Any]) -> list[Move]:
    """Domain moves as the API sends them."""
    return msgspec.convert(msgspec.to_builtins(moves), list[Move])


def play(
    ruleset: str,
    players: int,
    bots: Mapping[int, Bot],
    seed: int,
    options: dict[str, Any] | None = None,
) -> Any:
    """Play one game with server-like chance from ``seed``; the final state."""
    rules = find_ruleset(ruleset)
    rng = random.Random(seed)
    state, events = settle(rules, rules.setup(options or {}, players))
    version = 1 + len(events)
    for _ in range(MAX_ACTIONS):
        pending = rules.to_act(state)
        if not pending:
            return state
        who = pending[0]
        if who.kind in CHANCE_KINDS:
            batch = [chance_event(rules, state, who.seat, rng)]
        else:
            moves = rules.legal_moves(state, who.seat)
            view = game_view(rules, state, who.seat, version)
            chosen = bots[who.seat].choose(view, wire_moves(moves))
            batch = rules.decide(state, who.seat, chosen.id)
        for event in batch:
            state = rules.apply(state, event)
        state, more = settle(rules, state)
        version += len(batch) + len(more)
    raise AssertionError(f"{ruleset} game {seed} did not end within {MAX_ACTIONS} actions")


def winners(rules_name: str, state: Any) -> list[int]:
    """The winning seats of a finished game."""
    shown = find_ruleset(rules_name).view(state, "referee")
    return list(shown.winners)

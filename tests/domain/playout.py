"""Random play of any rule set, chance included, for tests and benchmarks."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from domain.events import Event, sampled
from domain.model import CHANCE_KINDS
from domain.replay import settle
from domain.ruleset import RuleSet


def chance_event(rules: RuleSet, state: Any, seat: int, rng: random.Random) -> Event:
    """A random outcome for the draw or roll the state waits for."""
    return chance_events(rules, state, seat, rng)[-1]


def chance_events(rules: RuleSet, state: Any, seat: int, rng: random.Random) -> list[Event]:
    """A random outcome, after the reshuffle its draw finds due (as the referee records it)."""
    need = rules.chance(state)
    assert need is not None, f"seat {seat} must draw or roll but the rules need no chance"
    return sampled(need, seat, rng)


def random_events(
    rules: RuleSet, state: Any, rng: random.Random, limit: int = 100_000
) -> Iterator[tuple[Any, list[Event]]]:
    """Yield (state after, events) for each action of a random game until it ends."""
    state, events = settle(rules, state)
    if events:
        yield state, events
    for _ in range(limit):
        pending = rules.to_act(state)
        if not pending:
            return
        who = rng.choice(pending)
        if who.kind in CHANCE_KINDS:
            batch = chance_events(rules, state, who.seat, rng)
        else:
            moves = rules.legal_moves(state, who.seat)
            assert moves, f"seat {who.seat} is pending but has no legal move"
            batch = rules.decide(state, who.seat, rng.choice(moves).id)
        for event in batch:
            state = rules.apply(state, event)
        state, more = settle(rules, state)
        yield state, batch + more
    raise AssertionError(f"the game did not end within {limit} actions")

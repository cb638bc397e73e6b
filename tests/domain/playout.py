"""Random play of any rule set, chance included, for tests and benchmarks."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from domain.events import CardDrawn, CardsDealt, DeckShuffled, DiceRolled, Event
from domain.model import CHANCE_KINDS, Deal, Draw, Roll
from domain.replay import settle
from domain.ruleset import RuleSet


def chance_event(rules: RuleSet, state: Any, seat: int, rng: random.Random) -> Event:
    """A random outcome for the draw or roll the state waits for."""
    need = rules.chance(state)
    match need:
        case Roll(dice=count):
            return DiceRolled(seat, tuple(rng.randint(1, 6) for _ in range(count)))
        case Draw(pile=pile):
            return CardDrawn(seat, rng.choice(sorted(pile)))
        case Deal(pile=pile, seats=seats, count=count):
            cards = rng.sample(sorted(pile), count * len(seats))
            hands = tuple(tuple(cards[i :: len(seats)]) for i in range(len(seats)))
            return CardsDealt(seat, seats, hands)
    raise AssertionError(f"seat {seat} must draw or roll but the rules need no chance")


def chance_events(rules: RuleSet, state: Any, seat: int, rng: random.Random) -> list[Event]:
    """A random outcome, after the reshuffle its draw finds due (as the referee records it)."""
    need = rules.chance(state)
    outcome = chance_event(rules, state, seat, rng)
    if isinstance(need, Draw) and need.reshuffled:
        return [DeckShuffled(cards=need.reshuffled), outcome]
    return [outcome]


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

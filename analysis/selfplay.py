"""Seeded self-play between equal random bots, with the domain in process (pure but for the
seeded generator it is given)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from domain.events import CardDrawn, CardsDealt, DiceRolled, Event, GameCreated
from domain.model import CHANCE_KINDS, Deal, Draw, Roll
from domain.registry import find_ruleset
from domain.replay import settle
from domain.ruleset import RuleSet

MAX_ACTIONS = 20_000


def players_of(rules: RuleSet[Any]) -> int:
    """The table size self-play uses: four where the rule set allows it."""
    return max(rules.MIN_PLAYERS, min(4, rules.MAX_PLAYERS))


def chance_event(rules: RuleSet[Any], state: Any, seat: int, rng: random.Random) -> Event:
    """A random outcome of the draw, roll or deal the state waits for."""
    match rules.chance(state):
        case Roll(dice=count):
            return DiceRolled(seat, tuple(rng.randint(1, 6) for _ in range(count)))
        case Draw(pile=pile):
            return CardDrawn(seat, rng.choice(sorted(pile)))
        case Deal(pile=pile, seats=seats, count=count):
            cards = rng.sample(sorted(pile), count * len(seats))
            hands = tuple(tuple(cards[i :: len(seats)]) for i in range(len(seats)))
            return CardsDealt(seat, seats, hands)
    raise ValueError(f"seat {seat} must draw or roll but the rules need no chance")


def actions(rules: RuleSet[Any], state: Any, rng: random.Random) -> list[Event]:
    """The events of the next action of ``state`` (a random outcome or a random legal move),
    empty once the game is over."""
    pending = rules.to_act(state)
    if not pending:
        return []
    who = pending[0]
    if who.kind in CHANCE_KINDS:
        return [chance_event(rules, state, who.seat, rng)]
    move = rng.choice(rules.legal_moves(state, who.seat))
    return rules.decide(state, who.seat, move.id)


def game(ruleset: str, seed: int) -> Iterator[tuple[Any, Event | None]]:
    """(state, the event about to happen) for every action of one game, then (final, None)."""
    rules = find_ruleset(ruleset)
    rng = random.Random(f"{ruleset}:{seed}")
    state, _ = settle(rules, rules.setup({}, players_of(rules)))
    for _ in range(MAX_ACTIONS):
        batch = actions(rules, state, rng)
        if not batch:
            yield state, None
            return
        yield state, batch[0]
        for event in batch:
            state = rules.apply(state, event)
        state, _ = settle(rules, state)
    raise RuntimeError(f"{ruleset} game {seed} did not end within {MAX_ACTIONS} actions")


def rollout(rules: RuleSet[Any], state: Any, rng: random.Random) -> list[int]:
    """The winners of one random continuation of ``state`` between random bots."""
    for _ in range(MAX_ACTIONS):
        batch = actions(rules, state, rng)
        if not batch:
            return list(rules.view(state, None).winners)
        for event in batch:
            state = rules.apply(state, event)
        state, _ = settle(rules, state)
    raise RuntimeError(f"a {rules.NAME} rollout did not end within {MAX_ACTIONS} actions")


def recorded(ruleset: str, seed: int) -> list[tuple[int, Event]]:
    """One self-play game as the log a referee would keep: (version, event), GameCreated first."""
    rules = find_ruleset(ruleset)
    players = players_of(rules)
    created = GameCreated(ruleset, {}, tuple(f"bot {s}" for s in range(players)))
    log: list[Event] = [created]
    rng = random.Random(f"{ruleset}:{seed}")
    state, events = settle(rules, rules.setup({}, players))
    log.extend(events)
    for _ in range(MAX_ACTIONS):
        batch = actions(rules, state, rng)
        if not batch:
            return list(enumerate(log, start=1))
        for event in batch:
            state = rules.apply(state, event)
        state, more = settle(rules, state)
        log.extend(batch + more)
    raise RuntimeError(f"{ruleset} game {seed} did not end within {MAX_ACTIONS} actions")

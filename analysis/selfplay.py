"""Seeded self-play between equal bots of one level, with the domain in process (pure but for
the seeded generator it is given).

At level ``random`` every seat plays any legal move; at ``greedy`` or ``expert`` every seat is
the service's bot of that level (``bots.choose``), choosing from the game's log as its seat may
see it (each event redacted for the seat), seeded from the game's generator.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import bots
from bots import greedy
from bots.boards import board
from domain.events import Event, GameCreated, sampled
from domain.model import CHANCE_KINDS, Move, View
from domain.registry import find_ruleset
from domain.replay import settle
from domain.ruleset import RuleSet

MAX_ACTIONS = 20_000
LEVEL = "greedy"
"""The bots' level of the self-play the models are trained and judged on: people and bots
play sensibly, so the chances are those of sensible play."""


def players_of(rules: RuleSet[Any]) -> int:
    """The table size self-play uses unless told: four where the rule set allows it."""
    return max(rules.MIN_PLAYERS, min(4, rules.MAX_PLAYERS))


def seatings(rules: RuleSet[Any]) -> list[int]:
    """Every table size the rule set allows (the seats' colours follow from the size)."""
    return list(range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1))


def seats_of(shown: View) -> int:
    """How many seats play the game a view shows."""
    return len({piece.seat for piece in shown.pieces})


def actions(
    rules: RuleSet[Any], state: Any, rng: random.Random, level: str, log: list[Event]
) -> list[Event]:
    """The events of the next action of ``state`` (a random outcome or the move of a bot of
    ``level`` given the game's ``log``), empty once the game is over."""
    pending = rules.to_act(state)
    if not pending:
        return []
    who = pending[0]
    if who.kind in CHANCE_KINDS:
        need = rules.chance(state)
        if need is None:
            raise ValueError(f"seat {who.seat} must draw or roll but the rules need no chance")
        return sampled(need, who.seat, rng)
    moves = rules.legal_moves(state, who.seat)
    if level == "random":
        move = rng.choice(moves).id
    else:
        move = pick(rules, state, level, who.seat, log, moves, rng.getrandbits(32))
    return rules.decide(state, who.seat, move)


def pick(
    rules: RuleSet[Any],
    state: Any,
    level: str,
    seat: int,
    log: list[Event],
    moves: list[Move],
    seed: int,
) -> str:
    """The move of the bot of ``level`` at ``seat``. The greedy bot reads only the pieces and
    the teams, so it is asked directly (``bots.choose`` would first fold the log, a
    determinization of every hidden hand, which greedy never reads; ties may then break
    otherwise)."""
    shown = rules.view(state, None)
    players = seats_of(shown)
    if level == "greedy" and len(moves) > 1 and board(rules.NAME, players, {}) is not None:
        teams = getattr(shown, "teams", None) or [[s] for s in range(players)]
        return greedy.choose(list(shown.pieces), teams, moves, random.Random(seed)).id
    seen = [rules.redact(event, seat) for event in log]
    return bots.choose(level, rules.NAME, rules.VERSION, seat, seen, moves, seed)


def start(ruleset: str, players: int | None = None) -> tuple[Any, list[Event]]:
    """A new self-play game's state and its log so far (GameCreated, then the setup's events),
    with ``players`` seats (four where the rule set allows it, unless told)."""
    rules = find_ruleset(ruleset)
    players = players or players_of(rules)
    seats = tuple(f"bot {s}" for s in range(players))
    created = GameCreated(ruleset, {}, seats, ruleset_version=rules.VERSION)
    state, events = settle(rules, rules.setup({}, players))
    return state, [created, *events]


def play(
    rules: RuleSet[Any], state: Any, log: list[Event], rng: random.Random, level: str
) -> Iterator[tuple[Any, list[Event]]]:
    """(state, the events of the action about to happen) for every action from ``state`` on,
    then (final state, []); ``log`` grows with every event."""
    for _ in range(MAX_ACTIONS):
        batch = actions(rules, state, rng, level, log)
        yield state, batch
        if not batch:
            return
        for event in batch:
            state = rules.apply(state, event)
        state, more = settle(rules, state)
        log.extend(batch + more)
    raise RuntimeError(f"a {rules.NAME} game did not end within {MAX_ACTIONS} actions")


def game(
    ruleset: str,
    seed: int,
    level: str = "random",
    log: list[Event] | None = None,
    players: int | None = None,
) -> Iterator[tuple[Any, Event | None]]:
    """(state, the event about to happen) for every action of one game of ``players`` seats
    (four where allowed, unless told), then (final, None). ``log``, if given, is filled with
    the game's log as it goes. A game of the default size keeps the seeds of four-seat play."""
    rules = find_ruleset(ruleset)
    state, events = start(ruleset, players)
    log = log if log is not None else []
    log[:] = events
    size = "" if players in (None, players_of(rules)) else f":{players}"
    name = f"{ruleset}:{seed}" if level == "random" else f"{ruleset}:{level}:{seed}"
    rng = random.Random(name + size)
    for now, batch in play(rules, state, log, rng, level):
        yield now, batch[0] if batch else None


def rollout(
    rules: RuleSet[Any],
    state: Any,
    rng: random.Random,
    level: str = "random",
    log: list[Event] | None = None,
) -> list[int]:
    """The winners of one continuation of ``state`` between bots of ``level`` (``log``: the
    game's log up to ``state``, needed by a level other than random)."""
    final = state
    for now, _ in play(rules, state, list(log or []), rng, level):
        final = now
    return list(rules.view(final, None).winners)


def recorded(
    ruleset: str, seed: int, level: str = "random", players: int | None = None
) -> list[tuple[int, Event]]:
    """One self-play game as the log a referee would keep: (version, event), GameCreated first."""
    log: list[Event] = []
    for _ in game(ruleset, seed, level, log, players):
        pass
    return list(enumerate(log, start=1))

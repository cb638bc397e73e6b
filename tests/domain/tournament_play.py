"""Tournaments played out in the domain alone: each round planned by ``plan_round``, each
table's result drawn from a seeded ``random.Random`` (shared by the property tests and
``bench/pairings.py``)."""

from __future__ import annotations

import random
from itertools import combinations

from domain.tournament.events import (
    Format,
    PlayerRegistered,
    RoundClosed,
    RoundPaired,
    Table,
    TableFinished,
    TournamentCreated,
)
from domain.tournament.pairing import pair
from domain.tournament.rounds import Plan, plan_round
from domain.tournament.state import Tournament, apply, fold


def created(
    format: Format, rounds: int, seats: int, least: int = 2, ruleset: str = "race35"
) -> TournamentCreated:
    points = tuple(range(seats - 1, -1, -1))
    return TournamentCreated(
        "sim", ruleset, {}, format, rounds, seats, least, points, points[(seats - 1) // 2]
    )


def registered(settings: TournamentCreated, players: int) -> Tournament:
    return fold([settings, *(PlayerRegistered(f"p{i:02}") for i in range(players))])


def paired(state: Tournament, plan: Plan) -> Tournament:
    tables = tuple(
        Table(n, f"g{plan.round}-{n}", seats) for n, seats in enumerate(plan.tables, start=1)
    )
    return apply(state, RoundPaired(plan.round, tables, plan.byes))


def finished(state: Tournament, rng: random.Random) -> Tournament:
    """Every table of the open round finished with a random winner, then the round closed."""
    current = state.current
    assert current is not None
    for table in current.tables:
        home = {name: rng.randint(0, 3) for name in table.seats}
        winner = rng.choice(table.seats)
        home[winner] = 4
        result = TableFinished(current.number, table.table, table.game_id, (winner,), home)
        state = apply(state, result)
    return apply(state, RoundClosed(current.number))


def play(settings: TournamentCreated, players: int, seed: int = 0) -> Tournament:
    """A whole tournament of ``players``, every round paired and played."""
    rng = random.Random(seed)
    state = registered(settings, players)
    for _ in range(settings.rounds):
        state = finished(paired(state, plan_round(state)), rng)
    return state


def meetings_of(state: Tournament) -> dict[tuple[str, str], int]:
    met: dict[tuple[str, str], int] = {}
    for round_ in state.rounds:
        for table in round_.tables:
            for a, b in combinations(table.seats, 2):
                met[pair(a, b)] = met.get(pair(a, b), 0) + 1
    return met

"""The next round of a tournament, planned from its state: which players sit out, who sits
at each table, and in which seat order. Pure: the same state gives the same round."""

from __future__ import annotations

import msgspec

from domain.tournament.pairing import byes_for, partition, table_sizes
from domain.tournament.seats import seat_order
from domain.tournament.standings import standings
from domain.tournament.state import BadEvent, Tournament, byes_had, meetings, seats_had


class Plan(msgspec.Struct, frozen=True):
    """A round before its games exist: each table's players in seat order, and the byes."""

    round: int
    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...]


def plan_round(state: Tournament) -> Plan:
    """The next round: a Swiss round groups players of equal points (the standings' order),
    a round-robin round those who met least (registration order); both avoid repeats."""
    if state.current is not None and not state.current.closed:
        raise BadEvent(f"round {state.current.number} is still being played")
    if len(state.rounds) >= state.created.rounds:
        raise BadEvent(f"all {state.created.rounds} rounds have been played")
    created, active = state.created, set(state.active)
    if created.format == "swiss":
        table = standings(state)
        ranked = [row.name for row in table if row.name in active]
        scores = {row.name: row.points for row in table}
    else:
        ranked = list(state.active)
        scores = dict.fromkeys(ranked, 0)
    if created.teams:
        return plan_teams(state, ranked, scores)
    sizes, bye_count = table_sizes(len(ranked), created.seats_per_table, created.least_per_table)
    if not sizes:
        raise BadEvent(f"{len(ranked)} active players cannot fill a table")
    byes = byes_for(ranked, bye_count, byes_had(state))
    seated = [name for name in ranked if name not in byes]
    had = seats_had(state)
    # A Swiss round also shares out the players who started first least (a round-robin's
    # later rounds met fewer new players with it: 8 repeats instead of none for 16 at 4 seats).
    firsts = {name: had[name][0] for name in seated} if created.format == "swiss" else {}
    tables = partition(seated, sizes, meetings(state), scores, firsts)
    return Plan(
        len(state.rounds) + 1,
        tuple(seat_order(table, had) for table in tables),
        tuple(byes),
    )


def teams_of(state: Tournament) -> dict[str, tuple[str, str]]:
    """Each team of two by its first player's name, in registration order; a team plays
    while both its players do."""
    players = state.players
    return {
        players[i]: (players[i], players[i + 1])
        for i in range(0, len(players) - 1, 2)
        if players[i] in state.active and players[i + 1] in state.active
    }


def plan_teams(state: Tournament, ranked: list[str], scores: dict[str, int]) -> Plan:
    """A round of teams: each table seats two teams (partners), paired as players are (a
    team is known by its first player, who meets whom the partner meets too); the team to
    sit first is the one whose players sat first least, each team's player who had seat 0 or
    1 least taking it, the partner across the table."""
    teams = teams_of(state)
    order = [name for name in ranked if name in teams]
    sizes, bye_count = table_sizes(len(order), 2, 2)
    if not sizes:
        raise BadEvent(f"{len(order)} teams cannot fill a table")
    byes = byes_for(order, bye_count, byes_had(state))
    seated = [name for name in order if name not in byes]
    had = seats_had(state)
    tables = []
    for pairing in partition(seated, sizes, meetings(state), scores):
        first, second = seat_order(pairing, {t: firsts(had, teams[t]) for t in pairing})
        one = sorted(teams[first], key=lambda name: had[name][0])
        other = sorted(teams[second], key=lambda name: had[name][1])
        tables.append((one[0], other[0], one[1], other[1]))
    return Plan(
        len(state.rounds) + 1,
        tuple(tables),
        tuple(name for team in byes for name in teams[team]),
    )


def firsts(had: dict[str, list[int]], team: tuple[str, str]) -> list[int]:
    """How often a team sat first (either partner at seat 0) and second (at seat 1)."""
    return [had[team[0]][0] + had[team[1]][0], had[team[0]][1] + had[team[1]][1]]

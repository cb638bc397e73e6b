"""Standings: points per place at each table, and the tie-breaks.

A table's places come from its game's result: the winners share place 1; every other player
is placed after the winners and after each player with more pieces home (equal pieces home
share a place). In a tournament of teams (partners across the table: seats i and i + n/2)
each player counts their team's summed pieces home, so partners share a place and score alike.
Place k scores ``points[k - 1]`` (0 beyond the list), a bye ``bye_points``.

Ranking: points; then opponents' points (the sum, over every game played, of the points of
each opponent at that table: a harder draw ranks higher); then pieces home over all games;
then the name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from domain.tournament.events import Table, TableFinished
from domain.tournament.state import Tournament


class PlayerStanding(msgspec.Struct, frozen=True):
    rank: int
    name: str
    points: int
    games: int
    wins: int
    byes: int
    pieces_home: int
    opponents_points: int
    withdrawn: bool


def places(seats: Sequence[str], winners: Sequence[str], home: Mapping[str, int]) -> list[int]:
    """Each seat's place (1 = best) at a finished table."""
    others = [name for name in seats if name not in winners]
    return [
        1
        if name in winners
        else 1 + len(winners) + sum(home.get(o, 0) > home.get(name, 0) for o in others)
        for name in seats
    ]


def team_home(seats: Sequence[str], home: Mapping[str, int]) -> dict[str, int]:
    """Each player's team's pieces home, partners sitting across the table."""
    half = len(seats) // 2
    return {
        name: home.get(name, 0) + home.get(seats[(seat + half) % len(seats)], 0)
        for seat, name in enumerate(seats)
    }


def table_points(
    table: Table, result: TableFinished, points: Sequence[int], teams: bool = False
) -> dict[str, int]:
    """What each player at a finished table scores (``teams``: partners score alike)."""
    home = team_home(table.seats, result.pieces_home) if teams else result.pieces_home
    placed = places(table.seats, result.winners, home)
    return {
        name: points[place - 1] if place <= len(points) else 0
        for name, place in zip(table.seats, placed, strict=True)
    }


def standings(state: Tournament) -> list[PlayerStanding]:
    """Every player, best first (finished tables and byes counted)."""
    created = state.created
    scored = dict.fromkeys(state.players, 0)
    games, wins, byes, home = (dict.fromkeys(state.players, 0) for _ in range(4))
    played: list[tuple[Table, dict[str, int]]] = []
    for round_ in state.rounds:
        for name in round_.byes:
            scored[name] += created.bye_points
            byes[name] += 1
        for table in round_.tables:
            result = round_.result(table.table)
            if result is None:
                continue
            gained = table_points(table, result, created.points, created.teams)
            played.append((table, gained))
            for name in table.seats:
                scored[name] += gained[name]
                games[name] += 1
                wins[name] += name in result.winners
                home[name] += result.pieces_home.get(name, 0)
    opponents = dict.fromkeys(state.players, 0)
    for table, _ in played:
        for name in table.seats:
            opponents[name] += sum(scored[o] for o in table.seats if o != name)
    rows = sorted(state.players, key=lambda n: (-scored[n], -opponents[n], -home[n], n))
    return [
        PlayerStanding(
            rank,
            name,
            scored[name],
            games[name],
            wins[name],
            byes[name],
            home[name],
            opponents[name],
            name in state.withdrawn,
        )
        for rank, name in enumerate(rows, start=1)
    ]

"""Tournaments through the Python client against the real app (uvicorn): a 3-round Swiss of
10 players at 4-seat tables and a round-robin of 6 at 3-seat tables, every game played by
bots with the players' own tokens (each finds its table with ``my_table``), to the final
standings; the tournament's record verifies offline."""

from __future__ import annotations

import json
import subprocess
import sys
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from tabula_client import Client, Conflict, play_table_flow
from tabula_client.wire import TournamentStandings

QUICK = {"special_squares": {}}  # race35 without special squares: the shortest games


def run_tournament(client: Client, players: int, **settings: Any) -> tuple[str, list[Any]]:
    """Create a tournament, pair and play every round; its id and its rounds as shown."""
    names = [f"P{i}" for i in range(players)]
    created = client.create_tournament("Club night", "race35", names, options=QUICK, **settings)
    director = client.with_token(created.tokens.director)
    seated = {p.name: client.with_token(p.token) for p in created.tokens.players}
    for number in range(1, client.tournament(created.id).round_count + 1):
        paired = director.pair_round(created.id)
        assert paired.round.round == number
        tables: dict[str, dict[int, str]] = {}
        for player in seated.values():
            me = player.my_table(created.id)
            assert me.round == number
            if me.game_id is not None and me.seat is not None and me.seat_token is not None:
                tables.setdefault(me.game_id, {})[me.seat] = me.seat_token
        assert sorted(tables) == sorted(t.game_id for t in paired.round.tables)
        for game_id, tokens in tables.items():
            flow = play_table_flow(client.routes, game_id, [tokens[s] for s in sorted(tokens)])
            assert client.run(flow).is_finished
    shown = client.tournament(created.id)
    assert shown.status == "finished"
    with pytest.raises(Conflict):
        director.pair_round(created.id)
    return created.id, shown.rounds


def check_standings(standings: TournamentStandings, rounds: list[Any], games: int) -> None:
    """Every player played ``games`` games; the points are those the tables gave."""
    given: dict[str, int] = {}
    for round_ in rounds:
        for table in round_.tables:
            for name, points in table.points.items():
                given[name] = given.get(name, 0) + points
    rows = standings.standings
    assert {row.name: row.points for row in rows} == given
    assert all(row.games == games for row in rows)
    assert [row.rank for row in rows] == list(range(1, len(rows) + 1))
    assert [row.points for row in rows] == sorted((row.points for row in rows), reverse=True)


def verify_offline(client: Client, tournament_id: str, folder: Path) -> str:
    path = folder / f"{tournament_id}.json"
    path.write_text(json.dumps(client.export_tournament(tournament_id)))
    done = subprocess.run(
        [sys.executable, "-m", "service", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.slow
def test_a_swiss_of_ten_at_four_seats_played_by_bots_to_standings(
    client: Client, tmp_path: Path
) -> None:
    tournament_id, rounds = run_tournament(client, 10, format="swiss", rounds=3, seats_per_table=4)
    for round_ in rounds:
        assert sorted(len(t.seats) for t in round_.tables) == [3, 3, 4] and not round_.byes
    check_standings(client.tournament_standings(tournament_id), rounds, games=3)
    verified = verify_offline(client, tournament_id, tmp_path)
    assert "valid tournament (finished)" in verified and verified.count(": valid: ") == 9


@pytest.mark.slow
def test_a_round_robin_of_six_at_three_seats_played_by_bots_to_standings(
    client: Client, tmp_path: Path
) -> None:
    tournament_id, rounds = run_tournament(client, 6, format="round-robin", seats_per_table=3)
    assert len(rounds) == 3  # each meets at most two new players a round: 5 need 3 rounds
    met = {pair for r in rounds for t in r.tables for pair in combinations(sorted(t.seats), 2)}
    assert len(met) == 13  # of 15: no 3-round schedule of 6 at tables of 3 meets more
    check_standings(client.tournament_standings(tournament_id), rounds, games=3)
    verified = verify_offline(client, tournament_id, tmp_path)
    assert "valid tournament (finished)" in verified and verified.count(": valid: ") == 6

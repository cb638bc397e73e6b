"""A tournament's reducer refuses events that cannot follow; places, points and tie-breaks of
the standings."""

from __future__ import annotations

import pytest

from domain.tournament.events import (
    PlayerWithdrawn,
    RoundClosed,
    RoundPaired,
    Table,
    TableFinished,
)
from domain.tournament.rounds import plan_round
from domain.tournament.standings import places, standings, table_points
from domain.tournament.state import BadEvent, apply
from tests.domain.tournament_play import created, play, registered

ROUND_1 = RoundPaired(1, (Table(1, "g1", ("p00", "p01", "p02")), Table(2, "g2", ("p03", "p04"))))


def result(table: int, game: str, winner: str, home: dict[str, int]) -> TableFinished:
    return TableFinished(1, table, game, (winner,), home)


def test_a_round_must_seat_every_active_player_once() -> None:
    state = registered(created("swiss", 2, 3), 5)
    missing = RoundPaired(1, (Table(1, "g1", ("p00", "p01", "p02")),))
    with pytest.raises(BadEvent, match="every active player"):
        apply(state, missing)
    twice = RoundPaired(1, (Table(1, "g1", ("p00", "p01", "p02")), Table(2, "g2", ("p00", "p04"))))
    with pytest.raises(BadEvent, match="every active player"):
        apply(state, twice)


def test_a_game_is_the_game_of_one_table_only() -> None:
    state = registered(created("swiss", 2, 3), 5)
    shared = RoundPaired(1, (Table(1, "g1", ("p00", "p01", "p02")), Table(2, "g1", ("p03", "p04"))))
    with pytest.raises(BadEvent, match="game g1 is already"):
        apply(state, shared)
    state = apply(state, ROUND_1)
    state = apply(state, result(1, "g1", "p00", {"p00": 4, "p01": 0, "p02": 0}))
    state = apply(apply(state, result(2, "g2", "p03", {"p03": 4, "p04": 1})), RoundClosed(1))
    again = RoundPaired(2, (Table(1, "g3", ("p00", "p01", "p03")), Table(2, "g2", ("p02", "p04"))))
    with pytest.raises(BadEvent, match="game g2 is already"):
        apply(state, again)


def test_no_round_is_paired_while_one_is_open_nor_closed_before_its_tables_finish() -> None:
    state = apply(registered(created("swiss", 2, 3), 5), ROUND_1)
    with pytest.raises(BadEvent, match="still open"):
        apply(state, RoundPaired(2, ROUND_1.tables))
    with pytest.raises(BadEvent, match="still playing"):
        apply(state, RoundClosed(1))
    with pytest.raises(BadEvent, match="still being played"):
        plan_round(state)


def test_a_result_must_name_a_table_of_the_open_round_and_its_players() -> None:
    state = apply(registered(created("swiss", 2, 3), 5), ROUND_1)
    with pytest.raises(BadEvent, match="no table 3"):
        apply(state, result(3, "g3", "p00", {}))
    with pytest.raises(BadEvent, match="were not there"):
        apply(state, result(2, "g2", "p00", {"p03": 0, "p04": 0}))
    done = apply(state, result(2, "g2", "p03", {"p03": 4, "p04": 1}))
    with pytest.raises(BadEvent, match="finished already"):
        apply(done, result(2, "g2", "p03", {"p03": 4, "p04": 1}))


def test_a_withdrawn_player_is_paired_no_more() -> None:
    state = apply(registered(created("swiss", 2, 3), 5), PlayerWithdrawn("p02"))
    plan = plan_round(state)
    assert "p02" not in [name for table in plan.tables for name in table]
    with pytest.raises(BadEvent, match="not an active player"):
        apply(state, PlayerWithdrawn("p02"))


def test_winners_share_first_place_and_equal_pieces_home_share_a_place() -> None:
    seats = ["a", "b", "c", "d"]
    assert places(seats, ["a"], {"a": 4, "b": 2, "c": 2, "d": 0}) == [1, 2, 2, 4]
    assert places(seats, ["a", "c"], {"a": 4, "b": 1, "c": 4, "d": 3}) == [1, 4, 1, 3]


def test_partners_are_placed_by_their_team_s_pieces_home_and_score_alike() -> None:
    table = Table(1, "g1", ("A", "B", "C", "D"))  # A and C against B and D
    finished = TableFinished(1, 1, "g1", ("A", "C"), {"A": 4, "B": 3, "C": 4, "D": 1})
    scored = table_points(table, finished, (3, 2, 1, 0), teams=True)
    assert scored == {"A": 3, "C": 3, "B": 1, "D": 1}
    assert table_points(table, finished, (3, 2, 1, 0)) == {"A": 3, "C": 3, "B": 1, "D": 0}


def test_standings_rank_by_points_then_opponents_points_then_pieces_home() -> None:
    state = apply(registered(created("swiss", 2, 3), 5), ROUND_1)
    state = apply(state, result(1, "g1", "p00", {"p00": 4, "p01": 2, "p02": 1}))
    state = apply(state, result(2, "g2", "p03", {"p03": 4, "p04": 3}))
    state = apply(state, RoundClosed(1))
    rows = standings(state)
    # Places score 2, 1, 0 (3 seats). p00 and p03 won (2 points, opponents' points 1, pieces
    # home 4: by name); p04 and p01 scored 1 with opponents' points 2: p04 has more home.
    assert [(r.name, r.points, r.opponents_points, r.pieces_home) for r in rows] == [
        ("p00", 2, 1, 4),
        ("p03", 2, 1, 4),
        ("p04", 1, 2, 3),
        ("p01", 1, 2, 2),
        ("p02", 0, 3, 1),
    ]
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5]


def test_a_bye_goes_to_the_lowest_ranked_without_one_and_scores_the_bye_points() -> None:
    settings = created("swiss", 3, 2)  # tables of two: 1 point a win; a bye scores 1 too
    state = play(settings, 5)
    byes = [name for round_ in state.rounds for name in round_.byes]
    assert state.rounds[0].byes == ("p04",)  # all on 0 points: the last by name
    assert len(byes) == 3 and len(set(byes)) == 3
    rows = {row.name: row for row in standings(state)}
    for name in byes:
        assert rows[name].byes == 1 and rows[name].games == 2
    assert sum(row.points for row in rows.values()) == 3 * 2 + 3  # two tables a round, a bye

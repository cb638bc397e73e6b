"""Parchís with one die: the tricky cases of rules/parchis.md §7, the options and the errors."""

from __future__ import annotations

import msgspec
import pytest

from domain import parchis as rules
from domain.events import DiceRolled, GameFinished, MovePlayed, TurnPassed
from domain.model import BadSetup, Effect, GameOver, IllegalMove, NotYourTurn, Step
from tests.domain.race_positions import arrange, at, ids, play, rolling, throw

START3 = ["start", "start", "start"]


def test_case_01_five_must_leave_jail() -> None:
    state = arrange(rules, {"yellow": [*START3, "track:30"], "blue": ["track:5"]})
    state = throw(rules, state, 5)
    assert ids(rules, state) == {"5:start>track:5"}
    with pytest.raises(IllegalMove, match="must leave jail"):
        rules.decide(state, 0, "5:track:30>track:35")
    state = play(rules, state, "5:start>track:5")
    assert at(rules, state, "yellow") == ["start", "start", "track:30", "track:5"]
    assert at(rules, state, "blue") == ["home", "home", "home", "track:5"]
    assert rolling(rules, state, 1)


def test_case_02_exit_onto_full_exit_square_captures_latest_other() -> None:
    places = {
        "blue": ["track:5"],
        "red": ["track:5"],
        "yellow": ["start", "start", "track:40"],
    }
    state = throw(rules, arrange(rules, places), 5)
    assert ids(rules, state) == {"5:start>track:5"}
    [move] = rules.legal_moves(state, 0)
    assert move.steps == (Step("yellow-1", "start", "track:5"),)
    assert move.effects == (
        Effect("red-1", "track:5", "start", "captured by yellow-1: back to jail"),
    )
    state = play(rules, state, "5:start>track:5")
    assert at(rules, state, "red")[-1] == "start"
    assert at(rules, state, "blue")[-1] == "track:5"
    assert at(rules, state, "yellow") == ["home", "start", "track:40", "track:5"]


def test_case_02_with_capture_bonus_twenty() -> None:
    places = {"blue": ["track:5"], "red": ["track:5"], "yellow": ["start", "start", "track:40"]}
    state = arrange(rules, places, options={"capture_bonus": 20})
    state = play(rules, throw(rules, state, 5), "5:start>track:5")
    assert ids(rules, state) == {"bonus20:track:5>track:25", "bonus20:track:40>track:60"}
    assert rules.view(state, None).bonus_pending == [20]
    state = play(rules, state, "bonus20:track:40>track:60")
    assert at(rules, state, "yellow") == ["home", "start", "track:5", "track:60"]
    assert rolling(rules, state, 1)


def test_case_03_own_barrier_on_exit_square() -> None:
    state = arrange(rules, {"yellow": ["track:5", "track:5", "start", "track:40"]})
    state = throw(rules, state, 5)
    assert ids(rules, state) == {"5:track:5>track:10", "5:track:40>track:45"}
    state = play(rules, state, "5:track:5>track:10")
    assert at(rules, state, "yellow") == ["start", "track:10", "track:40", "track:5"]


@pytest.mark.parametrize(
    ("die", "legal"),
    [
        (1, {"1:track:8>track:9"}),
        (2, set()),
        (3, set()),
        (4, set()),
        (5, {"5:start>track:5"}),
        (6, set()),
    ],
)
def test_case_04_barrier_blocks_passing_and_landing(die: int, legal: set[str]) -> None:
    state = arrange(rules, {"blue": ["track:10", "track:10"], "yellow": ["track:8", *START3]})
    state = throw(rules, state, die)
    if legal:
        assert ids(rules, state) == legal
        state = play(rules, state, legal.pop())
    assert at(rules, state, "blue") == ["home", "home", "track:10", "track:10"]
    assert rolling(rules, state, 0 if die == 6 else 1)


def test_case_04_lost_throw_is_logged_with_its_reason() -> None:
    state = arrange(rules, {"blue": ["track:10", "track:10"], "yellow": ["track:8", *START3]})
    state = rules.apply(state, DiceRolled(0, (6,)))
    assert rules.to_act(state) == []
    assert rules.automatic(state) == [TurnPassed(0, "no legal move for a 6; throws again")]


def test_case_05_own_barrier_can_be_passed() -> None:
    state = arrange(rules, {"yellow": ["track:10", "track:10", "track:8"]})
    state = throw(rules, state, 3)
    assert ids(rules, state) == {"3:track:8>track:11", "3:track:10>track:13"}
    state = play(rules, state, "3:track:8>track:11")
    assert at(rules, state, "yellow") == ["home", "track:10", "track:10", "track:11"]


def test_case_06_safe_square_shares_other_square_captures() -> None:
    state = arrange(rules, {"yellow": ["track:9"], "red": ["track:12", "track:14"]})
    shared = throw(rules, state, 3)
    assert ids(rules, shared) == {"3:track:9>track:12"}
    shared = play(rules, shared, "3:track:9>track:12")
    assert at(rules, shared, "yellow")[-1] == "track:12"
    assert at(rules, shared, "red") == ["home", "home", "track:12", "track:14"]
    captured = throw(rules, state, 5)
    assert ids(rules, captured) == {"5:track:9>track:14"}
    captured = play(rules, captured, "5:track:9>track:14")
    assert at(rules, captured, "yellow")[-1] == "track:14"
    assert at(rules, captured, "red") == ["home", "home", "start", "track:12"]


def test_case_07_six_must_open_a_barrier() -> None:
    state = arrange(rules, {"yellow": ["track:20", "track:20", "track:30", "start"]})
    state = throw(rules, state, 6)
    assert ids(rules, state) == {"6:track:20>track:26"}
    with pytest.raises(IllegalMove, match="barrier must be opened"):
        rules.decide(state, 0, "6:track:30>track:36")
    state = play(rules, state, "6:track:20>track:26")
    assert at(rules, state, "yellow") == ["start", "track:20", "track:26", "track:30"]
    assert rolling(rules, state, 0)


def test_case_07_variant_blocked_barrier_frees_the_six() -> None:
    places = {
        "blue": ["track:26", "track:26"],
        "yellow": ["track:20", "track:20", "track:30", "start"],
    }
    state = throw(rules, arrange(rules, places), 6)
    assert ids(rules, state) == {"6:track:30>track:36"}
    state = play(rules, state, "6:track:30>track:36")
    assert at(rules, state, "yellow") == ["start", "track:20", "track:20", "track:36"]
    assert rolling(rules, state, 0)


def test_case_08_three_sixes_send_last_moved_piece_to_jail() -> None:
    state = arrange(rules, {"yellow": ["track:10", "track:30", "start", "start"]})
    state = throw(rules, state, 6)
    assert ids(rules, state) == {"6:track:10>track:16", "6:track:30>track:36"}
    state = throw(rules, play(rules, state, "6:track:10>track:16"), 6)
    assert ids(rules, state) == {"6:track:16>track:22", "6:track:30>track:36"}
    state = play(rules, state, "6:track:30>track:36")
    assert rules.view(state, None).sixes_in_a_row == 2
    third = rules.apply(state, DiceRolled(0, (6,)))
    why = "third 6 in a row: the last piece moved goes back to jail"
    effect = Effect("yellow-2", "track:36", "start", why)
    assert rules.automatic(third) == [MovePlayed(0, "three-sixes", (6,), (), (effect,), auto=True)]
    state = throw(rules, state, 6)
    assert at(rules, state, "yellow") == ["start", "start", "start", "track:16"]
    assert rolling(rules, state, 1)


def test_case_09_home_column_and_exact_count() -> None:
    state = throw(rules, arrange(rules, {"yellow": ["track:66"]}), 4)
    assert ids(rules, state) == {"4:track:66>lane:2"}
    [move] = rules.legal_moves(state, 0)
    assert move.steps == (Step("yellow-1", "track:66", "lane:2"),)
    near = arrange(rules, {"yellow": ["lane:5"]})
    assert rolling(rules, throw(rules, near, 4), 1)
    home = throw(rules, near, 3)
    assert ids(rules, home) == {"3:lane:5>home"}
    events = rules.decide(home, 0, "3:lane:5>home")
    assert events[-1] == GameFinished((0,), "all four pieces reached the goal")
    home = play(rules, home, "3:lane:5>home")
    assert home.finished and home.winners == (0,)
    assert rules.view(home, None).status == "finished"
    assert rules.to_act(home) == []


def test_case_10_other_colours_pass_the_yellow_entrance() -> None:
    state = throw(rules, arrange(rules, {"blue": ["track:66"]}, turn=1), 4)
    assert ids(rules, state) == {"4:track:66>track:2"}
    state = play(rules, state, "4:track:66>track:2")
    assert at(rules, state, "blue")[-1] == "track:2"


def test_case_11_home_bonus() -> None:
    state = arrange(rules, {"yellow": ["lane:5", "track:40"]}, options={"home_bonus": 10})
    state = throw(rules, state, 3)
    assert ids(rules, state) == {"3:lane:5>home", "3:track:40>track:43"}
    state = play(rules, state, "3:lane:5>home")
    assert ids(rules, state) == {"bonus10:track:40>track:50"}
    state = play(rules, state, "bonus10:track:40>track:50")
    assert at(rules, state, "yellow") == ["home", "home", "home", "track:50"]
    assert rolling(rules, state, 1)


def test_case_11_home_bonus_lost_behind_a_barrier() -> None:
    places = {"blue": ["track:45", "track:45"], "yellow": ["lane:5", "track:40"]}
    state = arrange(rules, places, options={"home_bonus": 10})
    state = play(rules, throw(rules, state, 3), "3:lane:5>home")
    assert at(rules, state, "yellow") == ["home", "home", "home", "track:40"]
    assert rolling(rules, state, 1)


def test_case_12_three_sixes_home_column_exemption() -> None:
    options = {"three_sixes_exempt_home_column": True}
    start = arrange(rules, {"yellow": ["track:66", "track:20"]}, options=options)
    state = throw(rules, start, 6)
    assert ids(rules, state) == {"6:track:66>lane:4", "6:track:20>track:26"}
    state = play(rules, state, "6:track:66>lane:4")
    state = play(rules, throw(rules, state, 6), "6:track:20>track:26")
    state = throw(rules, state, 6)
    assert at(rules, state, "yellow") == ["home", "home", "lane:4", "start"]
    assert rolling(rules, state, 1)
    state = play(rules, throw(rules, start, 6), "6:track:20>track:26")
    state = play(rules, throw(rules, state, 6), "6:track:66>lane:4")
    state = throw(rules, state, 6)
    assert at(rules, state, "yellow") == ["home", "home", "lane:4", "track:26"]
    assert rolling(rules, state, 1)


def test_three_sixes_without_exemption_return_a_home_column_piece() -> None:
    state = arrange(rules, {"yellow": ["track:66", "track:20"]})
    state = play(rules, throw(rules, state, 6), "6:track:20>track:26")
    state = play(rules, throw(rules, state, 6), "6:track:66>lane:4")
    state = throw(rules, state, 6)
    assert at(rules, state, "yellow") == ["home", "home", "start", "track:26"]


def test_option_six_counts_seven_when_no_piece_in_jail() -> None:
    options = {"six_counts_seven": True}
    out = throw(rules, arrange(rules, {"yellow": ["track:10"]}, options=options), 6)
    assert ids(rules, out) == {"6:track:10>track:17"}
    jailed = arrange(rules, {"yellow": ["track:10", "start"]}, options=options)
    assert ids(rules, throw(rules, jailed, 6)) == {"6:track:10>track:16"}


def test_option_capture_bonus_chains_a_further_capture() -> None:
    places = {"yellow": ["track:8"], "red": ["track:13", "track:33"]}
    state = arrange(rules, places, options={"capture_bonus": 20})
    state = play(rules, throw(rules, state, 5), "5:track:8>track:13")
    assert ids(rules, state) == {"bonus20:track:13>track:33"}
    state = play(rules, state, "bonus20:track:13>track:33")
    assert at(rules, state, "red") == ["home", "home", "start", "start"]
    assert ids(rules, state) == {"bonus20:track:33>track:53"}
    state = play(rules, state, "bonus20:track:33>track:53")
    assert at(rules, state, "yellow")[-1] == "track:53"
    assert rolling(rules, state, 1)


def test_options_are_validated() -> None:
    assert rules.setup({}, 2).colours == (0, 2)
    for bad in ({"capture_bonus": -1}, {"home_bonus": "10"}, {"six_counts_seven": 1}):
        with pytest.raises(
            BadSetup, match=r"parchis allows (an integer from 0 to 100|true or false)"
        ):
            rules.setup(bad, 4)
    with pytest.raises(BadSetup, match="unknown option 'bonus'"):
        rules.setup({"bonus": 20}, 4)
    with pytest.raises(BadSetup, match="2 to 4 players"):
        rules.setup({}, 5)


def test_two_players_are_yellow_and_red() -> None:
    pieces = rules.view(rules.setup({}, 2), None).pieces
    assert [p.id for p in pieces] == [f"{c}-{n}" for c in ("yellow", "red") for n in range(1, 5)]
    assert {p.at for p in pieces} == {"start"}


def test_errors_say_why() -> None:
    state = rules.setup({}, 2)
    with pytest.raises(NotYourTurn, match="seat 1's turn, not seat 2's"):
        rules.decide(state, 1, "roll")
    with pytest.raises(IllegalMove, match="must throw first"):
        rules.decide(state, 0, "5:start>track:5")
    rolled = throw(rules, state, 5)
    with pytest.raises(IllegalMove, match="'5:start>track:6' is not legal with a 5"):
        rules.decide(rolled, 0, "5:start>track:6")
    with pytest.raises(GameOver):
        rules.decide(rules.apply(state, GameFinished((0,))), 0, "roll")


def test_view_shows_the_throw_in_use() -> None:
    state = throw(rules, arrange(rules, {"yellow": ["track:10"]}), 3)
    view = msgspec.to_builtins(rules.view(state, None))
    assert view["chance"] == {"dice": [3]}
    assert view["status"] == "active"
    assert view["colours"] == ["yellow", "blue", "red", "green"]

"""Ludo: the tricky cases of rules/parchis.md §9.5, the options and the errors."""

from __future__ import annotations

from typing import Any

import pytest

from domain import ludo as rules
from domain import ludo_v1
from domain.events import DiceRolled, GameFinished, MovePlayed, TurnPassed
from domain.ludo import start_turn as ludo_start_turn
from domain.model import BadSetup, Effect, IllegalMove, Step
from domain.registry import find_ruleset
from tests.domain.race_positions import arrange, at, ids, play, rolling, throw

YARD = ["start"] * 4


def position(places: dict[str, list[str]], **options: str) -> rules.State:
    """Pieces not listed are in the yard (§9.5); no seat is on its first turn."""
    return arrange(rules, places, options=options, rest="start")  # type: ignore[no-any-return]


def test_case_01_first_turn_tries() -> None:
    state = rules.setup({}, 4)
    assert rules.view(state, None).tries_left == 2
    passed = rules.apply(state, DiceRolled(0, (2,)))
    assert rules.automatic(passed) == [TurnPassed(0, "no legal move for a 2; 2 more tries")]
    state = throw(rules, throw(rules, state, 2), 4)
    assert rolling(rules, state, 0)
    state = throw(rules, state, 6)
    assert ids(rules, state) == {"6:start>track:0"}
    state = play(rules, state, "6:start>track:0")
    assert rolling(rules, state, 0)
    state = throw(rules, state, 3)
    assert ids(rules, state) == {"3:track:0>track:3"}
    state = play(rules, state, "3:track:0>track:3")
    assert at(rules, state, "red") == ["start", "start", "start", "track:3"]
    assert rolling(rules, state, 1)


def test_case_01_three_failed_tries_end_the_turn() -> None:
    state = rules.setup({}, 4)
    state = throw(rules, throw(rules, throw(rules, state, 2), 4), 5)
    assert at(rules, state, "red") == YARD
    assert rolling(rules, state, 1)
    assert rolling(rules, throw(rules, state, 3), 1), "green's first turn has tries too"


def test_case_02_a_six_is_a_choice() -> None:
    state = throw(rules, position({"red": ["track:10"]}), 6)
    assert ids(rules, state) == {"6:start>track:0", "6:track:10>track:16"}
    assert rolling(rules, play(rules, state, "6:start>track:0"), 0)
    state = play(rules, state, "6:track:10>track:16")
    assert at(rules, state, "red") == ["start", "start", "start", "track:16"]
    assert rolling(rules, state, 0)


def test_case_03_own_piece_on_the_start_square() -> None:
    state = throw(rules, position({"red": ["track:0"]}), 6)
    assert ids(rules, state) == {"6:track:0>track:6"}


def test_case_04_no_sharing_with_own_pieces() -> None:
    state = throw(rules, position({"red": ["track:3", "track:5"]}), 2)
    assert ids(rules, state) == {"2:track:5>track:7"}
    with pytest.raises(IllegalMove, match="'2:track:3>track:5' is not legal with a 2"):
        rules.decide(state, 0, "2:track:3>track:5")


def test_case_05_capture_and_the_safe_square_option() -> None:
    places = {"red": ["track:3"], "green": ["track:7", "track:8"]}
    four = throw(rules, position(places), 4)
    assert ids(rules, four) == {"4:track:3>track:7"}
    [move] = rules.legal_moves(four, 0)
    assert move.steps == (Step("red-1", "track:3", "track:7"),)
    assert move.effects == (
        Effect("green-1", "track:7", "start", "captured by red-1: back to the yard"),
    )
    four = play(rules, four, "4:track:3>track:7")
    assert at(rules, four, "green") == ["start", "start", "start", "track:8"]
    five = throw(rules, position(places), 5)
    assert ids(rules, five) == {"5:track:3>track:8"}
    five = play(rules, five, "5:track:3>track:8")
    assert at(rules, five, "green") == ["start", "start", "start", "track:7"]
    starred = throw(rules, position(places, safe_squares="starts_and_stars"), 5)
    assert rolling(rules, starred, 1)
    assert at(rules, starred, "green") == ["start", "start", "track:7", "track:8"]


def test_case_06_passing_a_start_and_entering_the_home_column() -> None:
    green = throw(rules, arrange(rules, {"green": ["track:50"]}, turn=1, rest="start"), 3)
    assert ids(rules, green) == {"3:track:50>track:1"}
    assert at(rules, play(rules, green, "3:track:50>track:1"), "green")[-1] == "track:1"
    red = position({"red": ["track:48"]})
    assert ids(rules, throw(rules, red, 3)) == {"3:track:48>lane:1"}
    assert ids(rules, throw(rules, red, 6)) == {"6:start>track:0", "6:track:48>lane:4"}
    near = position({"red": ["lane:3"]})
    assert ids(rules, throw(rules, near, 3)) == {"3:lane:3>home"}
    assert rolling(rules, throw(rules, near, 4), 1)


def test_case_07_winning_by_the_home_column() -> None:
    places = {"red": ["lane:1", "lane:2", "lane:4", "track:49"]}
    three = throw(rules, position(places), 3)
    assert ids(rules, three) == {"3:lane:2>lane:5"}
    state = throw(rules, position(places), 4)
    assert ids(rules, state) == {"4:track:49>lane:3", "4:lane:1>lane:5", "4:lane:2>home"}
    events = rules.decide(state, 0, "4:track:49>lane:3")
    assert events[-1] == GameFinished((0,), "all four pieces in the home column")
    won = play(rules, state, "4:track:49>lane:3")
    assert won.winners == (0,) and rules.view(won, None).status == "finished"
    longer = throw(rules, position(places, win_condition="home"), 4)
    assert len(rules.decide(longer, 0, "4:track:49>lane:3")) == 1
    assert rolling(rules, play(rules, longer, "4:track:49>lane:3"), 1)


@pytest.mark.parametrize(
    ("option", "last"), [("return_last_piece", "start"), ("forfeit_turn", "track:22")]
)
def test_case_08_three_sixes(option: str, last: str) -> None:
    state = throw(rules, position({"red": ["track:10"]}, three_sixes=option), 6)
    assert ids(rules, state) == {"6:start>track:0", "6:track:10>track:16"}
    state = throw(rules, play(rules, state, "6:track:10>track:16"), 6)
    assert ids(rules, state) == {"6:start>track:0", "6:track:16>track:22"}
    state = throw(rules, play(rules, state, "6:track:16>track:22"), 6)
    assert at(rules, state, "red") == sorted(["start", "start", "start", last])
    assert rolling(rules, state, 1)


def test_option_three_tries_whenever_no_piece_out() -> None:
    options = {"three_tries": "whenever_no_piece_out"}
    later = rules.end_turn(rules.end_turn(arrange(rules, {}, seats=2, rest="start")))
    assert later.tries == 0
    state = arrange(rules, {}, seats=2, rest="start", options=options)
    state = rules.end_turn(rules.end_turn(state))
    assert state.turn == 0 and state.tries == 2
    out = arrange(rules, {"red": ["track:3"]}, seats=2, rest="start", options=options)
    assert rules.end_turn(rules.end_turn(out)).tries == 0


def test_option_safe_starts_block_leaving_the_yard() -> None:
    places = {"red": ["track:20"], "green": ["track:0"]}
    plain = throw(rules, position(places), 6)
    assert ids(rules, plain) == {"6:start>track:0", "6:track:20>track:26"}
    safe = throw(rules, position(places, safe_squares="starts"), 6)
    assert ids(rules, safe) == {"6:track:20>track:26"}


def test_options_are_validated_and_two_players_sit_opposite() -> None:
    with pytest.raises(BadSetup, match=r"win_condition: invalid value 'goal'; ludo allows one of"):
        rules.setup({"win_condition": "goal"}, 2)
    with pytest.raises(BadSetup, match="unknown option"):
        rules.setup({"capture_bonus": 20}, 2)
    pieces = rules.view(rules.setup({}, 2), None).pieces
    assert {p.id.split("-")[0] for p in pieces} == {"red", "yellow"}


# --- version 2: three tries are three throws, and only 6s in a row count ---

TRIES = {"three_tries": "whenever_no_piece_out", "safe_squares": "starts"}


def blocked_yard(rules: Any = rules) -> Any:
    """Red with every piece in the yard, its start square held (safe) by yellow: no 6 can be
    used; red's turn has its three tries."""
    state = arrange(rules, {"yellow": ["track:0"]}, seats=2, rest="start", options=TRIES)
    return ludo_start_turn(state, 0)


def passes(rules: Any, state: Any) -> list[str]:
    """The reasons of the automatic passes due now."""
    return [event.reason for event in rules.automatic(state) if isinstance(event, TurnPassed)]


def test_9_2_1_an_unusable_six_uses_up_a_try_and_the_third_throw_ends_the_turn() -> None:
    state = blocked_yard()
    assert rules.view(state, None).tries_left == 2
    state = throw(rules, state, 2)
    assert rules.view(state, None).tries_left == 1
    assert passes(rules, rules.apply(state, DiceRolled(0, (6,)))) == [
        "no legal move for a 6; 1 more try"
    ]
    state = throw(rules, state, 6)
    assert rules.view(state, None).tries_left == 0
    assert passes(rules, rules.apply(state, DiceRolled(0, (6,)))) == [
        "no legal move for a 6; no tries left"
    ]
    state = throw(rules, state, 6)
    assert at(rules, state, "red") == YARD
    assert rolling(rules, state, 1), "three throws, then yellow's turn"


def test_9_2_3_only_consecutive_sixes_count_towards_the_third() -> None:
    state = throw(rules, blocked_yard(), 6)
    assert rules.view(state, None).sixes_in_a_row == 1
    state = throw(rules, state, 2)
    assert rules.view(state, None).sixes_in_a_row == 0
    last = rules.apply(state, DiceRolled(0, (6,)))
    assert rules.view(last, None).sixes_in_a_row == 1
    assert passes(rules, last) == ["no legal move for a 6; no tries left"]


def test_9_2_3_three_sixes_in_a_row_after_a_six_played() -> None:
    state = throw(rules, position({"red": ["track:10"]}), 6)
    state = throw(rules, play(rules, state, "6:track:10>track:16"), 6)
    state = rules.apply(play(rules, state, "6:track:16>track:22"), DiceRolled(0, (6,)))
    assert rules.view(state, None).sixes_in_a_row == 3
    [penalty] = rules.automatic(state)
    assert isinstance(penalty, MovePlayed) and penalty.move == "three-sixes"


def test_version_1_kept_its_tries_and_its_count_of_sixes() -> None:
    assert find_ruleset("ludo") is rules and rules.VERSION == 2
    old = find_ruleset("ludo", 1)
    assert old is ludo_v1
    state = blocked_yard(old)
    for die in (2, 6, 6):
        state = throw(old, state, die)
    assert rolling(old, state, 0), "version 1: an unusable 6 throws again, no try used"
    assert old.view(state, None).tries_left == 1
    state = blocked_yard(old)
    for die in (6, 2, 6):
        state = throw(old, state, die)
    last = old.apply(state, DiceRolled(0, (6,)))
    assert passes(old, last) == ["third 6 in a row: not played, turn over"]

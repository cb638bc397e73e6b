"""Parchís with two dice: the tricky cases of rules/parchis.md §8.2 and the options."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import parchis_2dice as rules
from domain.events import DiceRolled, MovePlayed
from domain.model import BadSetup, Effect, IllegalMove, Pending, Roll
from domain.registry import find_ruleset
from tests.domain.playout import random_events
from tests.domain.race_positions import arrange, at, ids, play, rolling, throw

EXIT = "5:start>track:5"


def test_case_01_five_and_three_with_pieces_in_jail() -> None:
    state = arrange(rules, {"yellow": ["start", "start", "track:30"]})
    state = throw(rules, state, 5, 3)
    assert ids(rules, state) == {f"{EXIT},3:track:5>track:8", f"{EXIT},3:track:30>track:33"}
    state = play(rules, state, f"{EXIT},3:track:30>track:33")
    assert at(rules, state, "yellow") == ["home", "start", "track:33", "track:5"]
    assert rolling(rules, state, 1)


def test_case_02_sum_of_five_takes_a_piece_out() -> None:
    state = arrange(rules, {"yellow": ["start", "track:30"]})
    state = throw(rules, state, 1, 4)
    assert ids(rules, state) == {"1+4:start>track:5"}
    [move] = rules.legal_moves(state, 0)
    assert move.uses == (1, 4)
    state = play(rules, state, "1+4:start>track:5")
    assert at(rules, state, "yellow") == ["home", "home", "track:30", "track:5"]


def test_case_03_double_five_captures_on_the_second_exit() -> None:
    state = arrange(rules, {"yellow": ["start", "start", "start"], "blue": ["track:5"]})
    state = throw(rules, state, 5, 5)
    assert ids(rules, state) == {f"{EXIT},{EXIT}"}
    [move] = rules.legal_moves(state, 0)
    assert move.effects == (
        Effect("blue-1", "track:5", "start", "captured by yellow-2: back to jail"),
    )
    state = play(rules, state, f"{EXIT},{EXIT}")
    assert at(rules, state, "yellow") == ["home", "start", "track:5", "track:5"]
    assert at(rules, state, "blue") == ["home", "home", "home", "start"]
    assert rolling(rules, state, 0)


def test_case_04_double_six_must_open_the_barrier() -> None:
    state = arrange(rules, {"yellow": ["track:20", "track:20", "track:30"]})
    state = throw(rules, state, 6, 6)
    assert ids(rules, state) == {
        "6:track:20>track:26,6:track:26>track:32",
        "6:track:20>track:26,6:track:20>track:26",
        "6:track:20>track:26,6:track:30>track:36",
    }
    state = play(rules, state, "6:track:20>track:26,6:track:20>track:26")
    assert at(rules, state, "yellow") == ["home", "track:26", "track:26", "track:30"]
    assert rolling(rules, state, 0)


def test_case_05_only_one_die_can_be_used() -> None:
    state = arrange(rules, {"yellow": ["lane:5", "lane:6"]})
    state = throw(rules, state, 3, 4)
    assert ids(rules, state) == {"3:lane:5>home"}
    state = play(rules, state, "3:lane:5>home")
    assert at(rules, state, "yellow") == ["home", "home", "home", "lane:6"]
    assert rolling(rules, state, 1)


def test_case_06_intermediate_stop_captures() -> None:
    places = {"yellow": ["track:30", "start", "start", "start"], "red": ["track:32"]}
    state = throw(rules, arrange(rules, places), 2, 4)
    capture = "2:track:30>track:32,4:track:32>track:36"
    safe = "4:track:30>track:34,2:track:34>track:36"
    assert ids(rules, state) == {capture, safe}
    captured = play(rules, state, capture)
    assert at(rules, captured, "red") == ["home", "home", "home", "start"]
    assert at(rules, captured, "yellow")[-1] == "track:36"
    spared = play(rules, state, safe)
    assert at(rules, spared, "red") == ["home", "home", "home", "track:32"]
    assert at(rules, spared, "yellow")[-1] == "track:36"


def test_case_07_three_doubles() -> None:
    state = throw(rules, arrange(rules, {"yellow": ["track:10", "track:30"]}), 2, 2)
    assert ids(rules, state) == {
        "2:track:10>track:12,2:track:12>track:14",
        "2:track:10>track:12,2:track:30>track:32",
        "2:track:30>track:32,2:track:32>track:34",
    }
    state = play(rules, state, "2:track:10>track:12,2:track:12>track:14")
    state = throw(rules, state, 3, 3)
    assert ids(rules, state) == {
        "3:track:14>track:17,3:track:17>track:20",
        "3:track:14>track:17,3:track:30>track:33",
        "3:track:30>track:33,3:track:33>track:36",
    }
    state = play(rules, state, "3:track:30>track:33,3:track:33>track:36")
    third = rules.apply(state, DiceRolled(0, (4, 4)))
    why = "third doubles in a row: the last piece moved goes back to jail"
    effect = Effect("yellow-2", "track:36", "start", why)
    assert rules.automatic(third) == [
        MovePlayed(0, "three-doubles", (4, 4), (), (effect,), auto=True)
    ]
    state = throw(rules, state, 4, 4)
    assert at(rules, state, "yellow") == ["home", "home", "start", "track:14"]
    assert rolling(rules, state, 1)


def test_a_single_six_does_not_throw_again() -> None:
    state = throw(rules, arrange(rules, {"yellow": ["track:10"]}), 6, 1)
    assert ids(rules, state) == {"6:track:10>track:16,1:track:16>track:17"}
    assert rolling(rules, play(rules, state, "6:track:10>track:16,1:track:16>track:17"), 1)


def test_option_six_counts_seven_per_die() -> None:
    state = arrange(rules, {"yellow": ["track:10"]}, options={"six_counts_seven": True})
    assert ids(rules, throw(rules, state, 6, 1)) == {"6:track:10>track:17,1:track:17>track:18"}


def test_option_capture_bonus_comes_before_the_second_die() -> None:
    places = {"yellow": ["track:30"], "red": ["track:32"]}
    state = arrange(rules, places, options={"capture_bonus": 20})
    state = throw(rules, state, 2, 4)
    assert ids(rules, state) == {"2:track:30>track:32", "4:track:30>track:34,2:track:34>track:36"}
    state = play(rules, state, "2:track:30>track:32")
    assert ids(rules, state) == {"bonus20:track:32>track:52"}
    state = play(rules, state, "bonus20:track:32>track:52")
    assert rules.view(state, None).dice_left == [4]
    assert ids(rules, state) == {"4:track:52>track:56"}
    state = play(rules, state, "4:track:52>track:56")
    assert at(rules, state, "yellow")[-1] == "track:56"
    assert rolling(rules, state, 1)


def test_option_home_bonus() -> None:
    state = arrange(rules, {"yellow": ["lane:5", "track:40"]}, options={"home_bonus": 10})
    state = play(rules, throw(rules, state, 3, 1), "3:lane:5>home")
    assert ids(rules, state) == {"bonus10:track:40>track:50"}
    state = play(rules, state, "bonus10:track:40>track:50")
    assert ids(rules, state) == {"1:track:50>track:51"}


def test_option_three_sixes_exempt_home_column_applies_to_doubles() -> None:
    options = {"three_sixes_exempt_home_column": True}
    start = arrange(rules, {"yellow": ["track:66", "track:20"]}, options=options)
    state = play(rules, throw(rules, start, 1, 1), "1:track:20>track:21,1:track:21>track:22")
    state = play(rules, throw(rules, state, 2, 2), "2:track:66>track:68,2:track:68>lane:2")
    state = throw(rules, state, 3, 3)
    assert at(rules, state, "yellow") == ["home", "home", "lane:2", "track:22"]
    assert rolling(rules, state, 1)


def test_setup_throws_two_dice_and_validates_options() -> None:
    state = rules.setup({}, 3)
    assert rules.chance(state) == Roll(2)
    assert rules.view(state, None).colours == ["yellow", "blue", "red"]
    with pytest.raises(BadSetup, match=r"capture_bonus: expected `int`, got `float`"):
        rules.setup({"capture_bonus": 2.5}, 2)


# --- issue 21: the rules of the throw hold for the whole throw, wins and bonuses included ---

BONUSES = {"home_bonus": 10, "capture_bonus": 20}


def test_8_1_4_either_die_alone_when_no_order_uses_both_even_if_one_wins() -> None:
    state = throw(rules, arrange(rules, {"yellow": ["lane:6"]}), 2, 1)
    assert ids(rules, state) == {"2:lane:6>home", "1:lane:6>lane:7"}
    state = play(rules, state, "1:lane:6>lane:7")
    assert at(rules, state, "yellow") == ["home", "home", "home", "lane:7"]
    assert rolling(rules, state, 1)


def test_8_1_4_either_die_alone_when_the_goal_bonus_is_lost() -> None:
    places = {"green": ["lane:6", "lane:7"]}
    state = throw(rules, arrange(rules, places, turn=3, options=BONUSES), 1, 5)
    assert ids(rules, state) == {"1:lane:6>lane:7", "1:lane:7>home"}
    moved = play(rules, state, "1:lane:6>lane:7")
    assert at(rules, moved, "green") == ["home", "home", "lane:7", "lane:7"]
    assert rolling(rules, moved, 0)
    home = play(rules, state, "1:lane:7>home")
    assert at(rules, home, "green") == ["home", "home", "home", "lane:6"]
    assert rolling(rules, home, 0)


def test_5_6_a_compulsory_bonus_that_strands_the_other_die_uses_fewer_dice() -> None:
    places = {"yellow": ["track:65", "lane:6"]}
    state = throw(rules, arrange(rules, places, options=BONUSES), 2, 4)
    assert ids(rules, state) == {
        "2:track:65>track:67,4:track:67>lane:3",
        "4:track:65>lane:1,2:lane:6>home",
    }
    with pytest.raises(IllegalMove, match="not legal with \\(2, 4\\)"):
        rules.decide(state, 0, "2:lane:6>home")
    state = play(rules, state, "4:track:65>lane:1,2:lane:6>home")
    assert at(rules, state, "yellow") == ["home", "home", "home", "lane:1"]
    assert rolling(rules, state, 1)


def test_8_1_5_a_capture_and_its_bonus_may_come_before_the_die_that_opens_the_barrier() -> None:
    places = {"blue": ["track:24", "track:25", "track:25", "track:56"], "red": ["track:61"]}
    state = throw(rules, arrange(rules, places, turn=1, options=BONUSES), 5, 5)
    assert "5:track:56>track:61" in ids(rules, state)
    state = play(rules, state, "5:track:56>track:61")
    assert at(rules, state, "red") == ["home", "home", "home", "start"]
    # a bonus from the barrier would leave the second 5 no barrier to open
    assert ids(rules, state) == {"bonus20:track:24>track:44", "bonus20:track:61>track:13"}
    state = play(rules, state, "bonus20:track:24>track:44")
    assert ids(rules, state) == {"5:track:25>track:30"}
    state = play(rules, state, "5:track:25>track:30")
    assert at(rules, state, "blue") == ["track:25", "track:30", "track:44", "track:61"]
    assert rolling(rules, state, 1)


def test_8_1_2_a_five_left_after_a_bonus_moves_forward_instead_of_leaving_jail() -> None:
    places = {"yellow": ["start", "track:5", "track:5", "track:30"], "red": ["track:33"]}
    state = throw(rules, arrange(rules, places, options=BONUSES), 5, 3)
    assert "5:start>track:5" not in ids(rules, state)
    state = play(rules, state, "3:track:30>track:33")
    state = play(rules, state, "bonus20:track:5>track:25")
    assert ids(rules, state) == {"5:track:5>track:10", "5:track:25>track:30", "5:track:33>track:38"}


def test_8_1_5_the_barrier_duty_met_before_a_bonus_holds_for_the_rest_of_the_throw() -> None:
    places = {"yellow": ["track:30", "track:30", "track:50"], "red": ["track:32"]}
    state = throw(rules, arrange(rules, places, options=BONUSES), 2, 2)
    state = play(rules, state, "2:track:30>track:32")
    state = play(rules, state, "bonus20:track:30>track:50")
    # the barrier the bonus made on 50 was not there when the throw began
    assert ids(rules, state) == {"2:track:32>track:34", "2:track:50>track:52"}


def throw_outcomes(state: Any, limit: int = 500) -> set[tuple[int, int]]:
    """(dice used, exits) of every way the seat to move can play out its throw."""
    seat, outcomes = state.turn, set()
    stack: list[tuple[Any, int, int]] = [(state, 0, 0)]
    while stack and limit:
        state, dice, exits = stack.pop()
        if state.finished or state.turn != seat or not state.throw:
            outcomes.add((dice, exits))
            limit -= 1
            continue
        for move in rules.legal_moves(state, seat):
            used = len(move.uses) if isinstance(move.uses, tuple) else 0  # a bonus uses none
            out = sum(step.from_ == "start" for step in move.steps)
            stack.append((play(rules, state, move.id), dice + used, exits + out))
    return outcomes


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 4))
def test_8_1_every_way_through_a_throw_uses_as_many_dice_and_exits(seed: int, seats: int) -> None:
    """With bonus counts on, every throw of a random game can be played out only in ways that
    use the same number of dice and exits: the throw is one unit, whatever bonus comes."""
    start, throws = rules.setup(BONUSES, seats), 0
    for state, _ in random_events(rules, start, random.Random(seed)):
        if rules.to_act(state) == [Pending(state.turn, "move")] and not state.played:
            assert len(throw_outcomes(state)) == 1, (state.throw, state.pos)
            throws += 1
    assert throws > 0


# --- version 3: the barrier duty is judged once the exits are made, before an exit's bonus ---

DUTY_AFTER_EXIT = {"yellow": ["start", "track:5", "track:50", "lane:2"], "red": ["track:5"]}
"""Yellow throws (5, 5): the exit captures red on 5 and forms a barrier there (bonus 20)."""


def test_8_1_5_the_barrier_formed_by_the_exits_binds_the_die_left_after_the_exit_bonus() -> None:
    state = throw(rules, arrange(rules, DUTY_AFTER_EXIT, options=BONUSES), 5, 5)
    state = play(rules, state, EXIT)
    # a bonus from the barrier would leave the second 5 no barrier to open
    assert ids(rules, state) == {"bonus20:track:50>lane:2"}
    with pytest.raises(IllegalMove, match="a barrier must be opened"):
        rules.decide(state, 0, "bonus20:track:5>track:25")
    state = play(rules, state, "bonus20:track:50>lane:2")
    assert ids(rules, state) == {"5:track:5>track:10"}
    state = play(rules, state, "5:track:5>track:10")
    assert at(rules, state, "yellow") == ["lane:2", "lane:2", "track:10", "track:5"]
    assert rolling(rules, state, 0)


def test_version_2_judged_the_barrier_duty_after_the_exit_bonus() -> None:
    old = find_ruleset("parchis-2dice", 2)
    state = throw(old, arrange(old, DUTY_AFTER_EXIT, options=BONUSES), 5, 5)
    state = play(old, state, EXIT)
    assert ids(old, state) == {"bonus20:track:50>lane:2", "bonus20:track:5>track:25"}
    state = play(old, state, "bonus20:track:5>track:25")
    assert "5:track:50>track:55" in ids(old, state)

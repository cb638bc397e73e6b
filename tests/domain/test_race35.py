"""race35: every numbered tricky case of rules/race35.md section 7, plus the options."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from domain import race35
from domain.events import DiceRolled, GameFinished, MovePlayed, TurnPassed
from domain.model import BadSetup, Pending
from domain.replay import settle

A, B, C = 0, 1, 2


def game(*squares: int, **options: Any) -> race35.State:
    """Pawns A, B, C ... on these squares, A to throw."""
    state = race35.setup(options, len(squares))
    return replace(state, squares=tuple(squares))


def throw(state: race35.State, die: int) -> tuple[race35.State, list[Any]]:
    """The seat to act throws ``die``; the state and events after the throw plays itself."""
    assert race35.to_act(state) == [Pending(state.turn, "roll")]
    assert [m.id for m in race35.legal_moves(state, state.turn)] == ["roll"]
    return settle(race35, race35.apply(state, DiceRolled(state.turn, (die,))))


def squares(state: race35.State) -> tuple[int, ...]:
    return state.squares


def test_case_01_cannot_go_below_square_1() -> None:
    assert squares(throw(game(1, 10), 1)[0])[A] == 1
    assert squares(throw(game(3, 10), 5)[0])[A] == 1


def test_case_02_tricolour_forward_repeats_the_move() -> None:
    state, events = throw(game(3, 10), 2)
    assert squares(state)[A] == 7
    move = events[0]
    assert isinstance(move, MovePlayed) and move.auto
    assert [(s.from_, s.to) for s in move.steps] == [("track:3", "track:5"), ("track:5", "track:7")]


def test_case_03_tricolour_reached_backward_goes_back_again() -> None:
    assert squares(throw(game(10, 20), 5)[0])[A] == 1


def test_case_04_tricolour_into_red_restarts_the_whole_game() -> None:
    start = replace(game(10, 20, 30), skip=(False, True, False))
    state, events = throw(start, 2)
    assert squares(state) == (1, 1, 1)
    assert state.skip == (False, False, False) and state.waiting == (False, False, False)
    assert state.turn == B
    assert {e.piece for e in events[0].effects} == {"red-1", "blue-1", "yellow-1"}


def test_case_04_with_restart_player_only_the_lander_goes_back() -> None:
    state, _ = throw(game(10, 20, 30, red_square_effect="restart_player"), 2)
    assert squares(state) == (1, 20, 30)
    assert state.turn == B


def test_case_05_tricolour_into_green_misses_the_next_turn() -> None:
    state, _ = throw(game(6, 2), 6)
    assert squares(state)[A] == 18
    assert state.skip[A]


def test_case_06_landing_on_an_occupied_square_swaps() -> None:
    state, events = throw(game(10, 13), 3)
    assert squares(state) == (13, 10)
    assert [(e.piece, e.from_, e.to) for e in events[0].effects] == [
        ("blue-1", "track:13", "track:10")
    ]
    backward, _ = throw(game(16, 15), 1)
    assert squares(backward) == (15, 16)


def test_case_07_the_blue_square_holds_until_another_pawn_takes_it() -> None:
    state, _ = throw(game(17, 19, 2), 4)
    assert squares(state)[A] == 21 and state.waiting[A]
    state, _ = throw(state, 6)  # B: 19 -> 25
    state, events = throw(state, 2)  # C: 2 -> 4, then A's turn passes by itself
    assert isinstance(events[-1], TurnPassed) and events[-1].seat == A
    assert state.turn == B
    waiting = game(21, 19, 2)
    waiting = replace(waiting, waiting=(True, False, False))
    passed_state, events = settle(race35, waiting)
    assert isinstance(events[0], TurnPassed) and events[0].seat == A
    state, _ = throw(passed_state, 2)  # B from 19 to 21, taking A's place
    assert squares(state)[:2] == (19, 21)
    assert state.waiting[:2] == (False, True)


def test_case_08_bounce_at_the_end() -> None:
    assert squares(throw(game(31, 2), 6)[0])[A] == 33
    won, events = throw(game(33, 2), 2)
    assert won.finished and won.winners == (A,)
    assert isinstance(events[-1], GameFinished)
    assert squares(throw(game(33, 2), 4)[0])[A] == 33
    assert squares(throw(game(30, 2), 6)[0])[A] == 34


def test_case_09_tricolour_then_exact_goal() -> None:
    won, _ = throw(game(23, 2), 6)
    assert won.finished and won.winners == (A,)
    assert squares(throw(game(25, 2), 4)[0])[A] == 33


def test_case_10_at_most_one_repeat() -> None:
    assert squares(throw(game(34, 2), 5)[0])[A] == 24


def test_case_11_tricolour_into_red_near_the_end() -> None:
    assert squares(throw(game(26, 20, 30), 3)[0]) == (1, 1, 1)


def test_case_12_green_square_and_turn_order() -> None:
    state, _ = throw(game(7, 2, 2), 2)
    assert squares(state)[A] == 9 and state.skip[A]
    state, _ = throw(state, 4)  # B
    state, events = throw(state, 4)  # C; then A's turn passes by itself
    assert isinstance(events[-1], TurnPassed) and events[-1].seat == A
    assert state.turn == B and not state.skip[A]
    state, _ = throw(state, 4)  # B
    state, _ = throw(state, 4)  # C
    assert race35.to_act(state) == [Pending(A, "roll")]


def test_case_13_swap_onto_a_green_square() -> None:
    start = replace(game(7, 2, 9), skip=(False, False, True))  # B is seat 2 here
    state, _ = throw(start, 2)
    assert squares(state) == (9, 2, 7)
    assert state.skip == (True, False, True), "A misses its next turn; B keeps its status"


def test_case_14_square_1_is_never_a_swap() -> None:
    state, events = throw(game(6, 1, 1), 5)
    assert squares(state) == (1, 1, 1)
    assert events[0].effects == ()


def test_case_15_backward_landing_on_a_special_square() -> None:
    green, _ = throw(game(28, 2), 1)
    assert squares(green)[A] == 27 and green.skip[A]
    assert squares(throw(game(19, 20, 30), 5)[0]) == (1, 1, 1)
    assert squares(throw(game(30, 2), 5)[0])[A] == 25


def test_special_squares_are_configurable() -> None:
    state, _ = throw(game(3, 10, special_squares={"7": "red"}), 4)
    assert squares(state) == (1, 1)
    plain, _ = throw(game(3, 10, special_squares={}), 2)
    assert squares(plain)[A] == 5


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"special_squares": {"1": "green"}}, "'1'"),
        ({"special_squares": {"35": "red"}}, "'35'"),
        ({"special_squares": {"9": "purple"}}, "'purple'"),
        ({"red_square_effect": "sometimes"}, "'sometimes'"),
        ({"max_players": 9}, "max_players"),
        ({"speed": 2}, "'speed'"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], words: str) -> None:
    with pytest.raises(BadSetup, match=words):
        race35.setup(options, 2)


def test_max_players_bounds_the_seats() -> None:
    race35.setup({}, 6)
    with pytest.raises(BadSetup, match="2 to 3"):
        race35.setup({"max_players": 3}, 4)
    with pytest.raises(BadSetup):
        race35.setup({}, 1)

"""The analysis values pieces by their colour's path on the board, never by seat number: a
position and the same position turned round the board (each seat's pieces moved to the next
colour's side, the seat to act with them) get the same chances, turned round."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from analysis.model import chances
from analysis.pips import pip_counts, to_go
from analysis.selfplay import game
from domain.model import View
from domain.registry import find_ruleset

SYMMETRIC = [
    # (rule set, seats, squares of the track between one seat's side and the next's, the
    # track's first number and length); two seats sit opposite in ludo and parchis.
    ("ludo", 4, 13, 0, 52),
    ("ludo", 2, 26, 0, 52),
    ("parchis", 4, 17, 1, 68),
    ("parchis", 2, 34, 1, 68),
    ("parchis-2dice", 4, 17, 1, 68),
    ("parchis-2dice", 2, 34, 1, 68),
    ("sorry", 4, 15, 0, 60),
    ("sorry-hand", 4, 15, 0, 60),
    ("partners", 4, 15, 0, 60),
    ("race35", 2, 0, 1, 35),
    ("race35", 3, 0, 1, 35),
    ("race35", 5, 0, 1, 35),
]
"""The seatings whose rules look the same from every seat, turned round the board."""


def turned(shown: View, seats: int, shift: int, first: int, loop: int) -> View:
    """The position with each seat's pieces on the next seat's side (seat s becomes s + 1):
    each track square ``shift`` further on; start, lanes and home stay as they are."""

    def place(at: str) -> str:
        if shift == 0 or not at.startswith("track:"):
            return at
        return f"track:{(int(at[6:]) - first + shift) % loop + first}"

    pieces = [
        replace(piece, seat=(piece.seat + 1) % seats, at=place(piece.at)) for piece in shown.pieces
    ]
    to_act = [replace(one, seat=(one.seat + 1) % seats) for one in shown.to_act]
    changes: dict[str, Any] = {"pieces": pieces, "to_act": to_act}
    teams = getattr(shown, "teams", None)
    if teams:
        changes["teams"] = [[(seat + 1) % seats for seat in team] for team in teams]
    return replace(shown, **changes)


def reached(ruleset: str, seats: int, seed: int, steps: int) -> View | None:
    """The public view after ``steps`` random actions of a seeded game (None once it ended)."""
    rules = find_ruleset(ruleset)
    for number, (state, event) in enumerate(game(ruleset, seed, "random", None, seats)):
        if event is None:
            return None
        if number == steps:
            return rules.view(state, None)
    return None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(SYMMETRIC),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 400),
)
def test_a_position_turned_round_the_board_gets_the_same_chances_turned(
    case: tuple[str, int, int, int, int], seed: int, steps: int
) -> None:
    ruleset, seats, shift, first, loop = case
    shown = reached(ruleset, seats, seed, steps)
    if shown is None:
        return
    rules = find_ruleset(ruleset)
    before = chances(rules, None, shown=shown)
    after = chances(rules, None, shown=turned(shown, seats, shift, first, loop))
    for seat, chance in before.items():
        assert after[(seat + 1) % seats] == pytest.approx(chance, abs=1e-9)
    again = pip_counts(ruleset, turned(shown, seats, shift, first, loop))
    assert [again[(seat + 1) % seats] for seat in range(seats)] == list(
        pip_counts(ruleset, shown).values()
    )


@pytest.mark.parametrize(("ruleset", "seats"), [("ludo", 2), ("parchis", 2), ("sorry", 2)])
def test_every_colour_starts_with_its_whole_path_to_go(ruleset: str, seats: int) -> None:
    shown = reached(ruleset, seats, 1, 0)
    assert shown is not None
    counts = pip_counts(ruleset, shown)
    assert len(set(counts.values())) == 1 and len(counts) == seats


def test_a_red_piece_near_its_lane_in_two_seat_parchis_has_a_few_squares_to_go() -> None:
    shown = reached("parchis", 2, 1, 0)
    assert shown is not None
    squares = to_go("parchis", shown)
    # Red (seat 1 at two seats) enters its lane after track:34; yellow's is after track:68.
    assert squares(1, "track:34") == 8
    assert squares(0, "track:68") == 8
    assert squares(0, "track:34") == 8 + 34

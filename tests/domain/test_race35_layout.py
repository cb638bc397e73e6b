"""race35 refuses a layout whose game could never end, or would take far too long: with server
chance such a game plays itself whole when it is created (rules/race35.md, section "Choices
where the rules are silent")."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain import race35
from domain.model import BadSetup
from domain.race35_layout import MAX_MEAN_THROWS, mean_throws
from tests.domain.playout import random_events

EVERY_SQUARE_RED = {str(square): "red" for square in range(2, 35)}
FOUR_REDS = dict.fromkeys(("10", "11", "12", "20"), "red")
NINE_REDS = dict.fromkeys(("10", "11", "12", "13", "15", "16", "20", "22", "23"), "red")


def test_a_layout_no_pawn_can_cross_is_refused_as_never_ending() -> None:
    with pytest.raises(BadSetup, match="could never end"):
        race35.setup({"special_squares": EVERY_SQUARE_RED}, 2)
    wall = {str(square): "red" for square in range(8, 14)}  # six reds in a row: no throw passes
    with pytest.raises(BadSetup, match="from square 1 to 35"):
        race35.setup({"special_squares": wall, "red_square_effect": "restart_player"}, 3)


def test_a_blue_square_for_every_seat_is_refused_as_never_ending() -> None:
    two_blue = {"special_squares": {"3": "blue", "5": "blue"}}
    with pytest.raises(BadSetup, match="2 blue squares"):
        race35.setup(two_blue, 2)
    race35.setup(two_blue, 3)  # one pawn is always free to land on a waiting pawn's square


@pytest.mark.parametrize("restart", ["restart_game", "restart_player"])
def test_a_layout_whose_games_would_take_too_long_is_refused(restart: str) -> None:
    options = {"special_squares": NINE_REDS, "red_square_effect": restart}
    with pytest.raises(BadSetup, match="throws on average"):
        race35.setup(options, 6)


@pytest.mark.parametrize("seats", range(2, 7))
@pytest.mark.parametrize("restart", ["restart_game", "restart_player"])
def test_the_default_layout_is_taken_by_every_seat_count(seats: int, restart: str) -> None:
    race35.setup({"red_square_effect": restart}, seats)


def played_mean(options: dict[str, Any], seats: int, games: int) -> float:
    """The mean number of throws of ``games`` seeded random games."""
    throws = 0
    for game in range(games):
        state = race35.setup(options, seats)
        for _, events in random_events(race35, state, random.Random(game), limit=10**6):
            throws += sum(type(e).__name__ == "DiceRolled" for e in events)
    return throws / games


@pytest.mark.slow
@pytest.mark.parametrize(
    ("options", "seats"),
    [
        ({}, 6),
        ({"special_squares": FOUR_REDS}, 2),
        ({"special_squares": NINE_REDS, "red_square_effect": "restart_player"}, 2),
        ({"red_square_effect": "restart_player"}, 4),
    ],
)
def test_the_estimated_length_is_within_a_factor_of_two_of_played_games(
    options: dict[str, Any], seats: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    opts = race35.parse_options(race35.NAME, race35.Options, options)
    layout = race35.parse_layout(opts.special_squares)
    restart_game = opts.red_square_effect == "restart_game"
    estimate = mean_throws(layout, seats, restart_game)
    if estimate > MAX_MEAN_THROWS:  # refused at setup: played without the check
        monkeypatch.setattr(race35, "check", lambda *_: None)
    played = played_mean(options, seats, 200)
    assert played / 2 <= estimate <= played * 2, (estimate, played)

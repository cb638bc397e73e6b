"""``GreedyBot``: beats random bots, reads moves without rules knowledge, plays every rule set."""

from __future__ import annotations

import pytest
from tabula_client import Bot, Client, GameView, GreedyBot, Move, RandomBot, play_game
from tabula_client.bots import Board
from tabula_client.models import Effect, Piece, Step

from domain.registry import RULESETS
from tests.clients.inprocess import play, winners


def greedy_wins(ruleset: str, players: int, games: int) -> int:
    wins = 0
    for number in range(games):
        greedy = number % players
        bots: dict[int, Bot] = {
            seat: GreedyBot(number) if seat == greedy else RandomBot(f"{number}:{seat}")
            for seat in range(players)
        }
        wins += greedy in winners(ruleset, play(ruleset, players, bots, number))
    return wins


@pytest.mark.slow
def test_greedy_bot_beats_three_random_bots_at_sorry() -> None:
    games = 120
    wins = greedy_wins("sorry", 4, games)
    # A random seat wins 25%: 30 of 120, with a standard deviation under 5 games.
    assert wins >= 48, f"GreedyBot won {wins} of {games}"


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_greedy_bot_finishes_every_ruleset(ruleset: str) -> None:
    players = 4 if RULESETS[ruleset].MAX_PLAYERS >= 4 else 2
    bots: dict[int, Bot] = {seat: GreedyBot(seat) for seat in range(players)}
    assert winners(ruleset, play(ruleset, players, bots, seed=1))


def test_greedy_bot_is_reproducible_with_a_seed() -> None:
    def game() -> list[int]:
        bots: dict[int, Bot] = {0: GreedyBot(5), 1: RandomBot(6)}
        return winners("ludo", play("ludo", 2, bots, seed=3))

    assert game() == game()


def view(*pieces: Piece, raw: dict[str, object] | None = None) -> GameView:
    return GameView("g", "sorry", 1, "active", pieces=list(pieces), raw=raw or {})


def move(name: str, steps: list[Step], effects: list[Effect] | None = None) -> Move:
    return Move(name, 0, "7", steps, effects or [])


def test_greedy_bot_prefers_home_then_a_bump_then_leaving_start() -> None:
    pieces = (
        Piece("red-1", 0, "lane:4"),
        Piece("red-2", 0, "start"),
        Piece("red-3", 0, "track:10"),
        Piece("blue-1", 1, "track:15"),
    )
    home = move("home", [Step("red-1", "lane:4", "home")])
    bump = move(
        "bump",
        [Step("red-3", "track:10", "track:15")],
        [Effect("blue-1", "track:15", "start", "bumped")],
    )
    out = move("out", [Step("red-2", "start", "track:4")])
    bot = GreedyBot(0)
    assert bot.choose(view(*pieces), [out, bump, home]).id == "home"
    assert bot.choose(view(*pieces), [out, bump]).id == "bump"
    assert bot.choose(view(*pieces), [out, move("walk", [Step("red-3", "track:10", "track:11")])])


def test_greedy_bot_avoids_sending_its_own_piece_back_and_moving_backwards() -> None:
    pieces = (Piece("red-1", 0, "track:20"), Piece("red-2", 0, "track:30"))
    back = move(
        "slide-trap",
        [Step("red-1", "track:20", "track:27")],
        [Effect("red-1", "track:27", "start", "landed inside the slide")],
    )
    backwards = move("back", [Step("red-2", "track:30", "track:26")])
    forward = move("forward", [Step("red-2", "track:30", "track:31")])
    assert GreedyBot(0).choose(view(*pieces), [back, backwards, forward]).id == "forward"


def test_greedy_bot_does_not_bump_its_partner() -> None:
    pieces = (Piece("red-1", 0, "track:10"), Piece("blue-1", 2, "track:12"))
    partner = move(
        "bump-partner",
        [Step("red-1", "track:10", "track:12")],
        [Effect("blue-1", "track:12", "start", "captured")],
    )
    short = move("short", [Step("red-1", "track:10", "track:11")])
    teams = {"teams": [[0, 2], [1, 3]]}
    assert GreedyBot(0).choose(view(*pieces, raw=teams), [partner, short]).id == "short"


def test_board_reads_track_distances_across_the_wrap() -> None:
    board = Board([Piece("red-1", 0, "track:59"), Piece("red-2", 0, "track:0")], [], 60)
    assert board.distance("track:58", "track:2") == 4
    assert board.distance("track:2", "track:58") == -4
    assert board.distance("lane:1", "lane:3") == 2


def test_greedy_bot_plays_through_the_api(client: Client) -> None:
    final = play_game(client, "parchis-2dice", 2, bots={0: GreedyBot(1)}, seed=2)
    assert final.is_finished and final.winners

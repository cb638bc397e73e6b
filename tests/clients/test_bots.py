"""``GreedyBot``: beats random bots, reads moves without rules knowledge, plays every rule set."""

from __future__ import annotations

import pytest
from tabula_client import Bot, Client, GameView, GreedyBot, Move, RandomBot, play_game
from tabula_client.bots import Board
from tabula_client.models import Effect, Piece, Step
from tabula_client.wire import PartnersView, SorryView

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


def view(*pieces: Piece, teams: list[list[int]] | None = None) -> GameView:
    """A sorry view of ``pieces``, or a partners view when ``teams`` are given."""
    common = {"status": "active", "chance": None, "to_act": [], "winners": [], "turn": 0}
    cards = {"colours": [], "discard": [], "draw_pile": 40, **common}
    if teams is None:
        sorry = SorryView(pieces=list(pieces), **cards)  # type: ignore[arg-type]
        return sorry
    partners = {"dealer": 0, "deals": 1, "done": [], "exchange": None, "hands": [], "phase": "play"}
    return PartnersView(pieces=list(pieces), teams=teams, **partners, **cards)  # type: ignore[arg-type]


def move(name: str, steps: list[Step], effects: list[Effect] | None = None) -> Move:
    return Move(id=name, seat=0, uses="7", steps=steps, effects=effects or [])


def test_greedy_bot_prefers_home_then_a_bump_then_leaving_start() -> None:
    pieces = (
        Piece(id="red-1", seat=0, at="lane:4"),
        Piece(id="red-2", seat=0, at="start"),
        Piece(id="red-3", seat=0, at="track:10"),
        Piece(id="blue-1", seat=1, at="track:15"),
    )
    home = move("home", [Step(piece="red-1", from_="lane:4", to="home")])
    bump = move(
        "bump",
        [Step(piece="red-3", from_="track:10", to="track:15")],
        [Effect(piece="blue-1", from_="track:15", to="start", why="bumped")],
    )
    out = move("out", [Step(piece="red-2", from_="start", to="track:4")])
    bot = GreedyBot(0)
    assert bot.choose(view(*pieces), [out, bump, home]).id == "home"
    assert bot.choose(view(*pieces), [out, bump]).id == "bump"
    walk = move("walk", [Step(piece="red-3", from_="track:10", to="track:11")])
    assert bot.choose(view(*pieces), [out, walk])


def test_greedy_bot_avoids_sending_its_own_piece_back_and_moving_backwards() -> None:
    pieces = (Piece(id="red-1", seat=0, at="track:20"), Piece(id="red-2", seat=0, at="track:30"))
    back = move(
        "slide-trap",
        [Step(piece="red-1", from_="track:20", to="track:27")],
        [Effect(piece="red-1", from_="track:27", to="start", why="landed inside the slide")],
    )
    backwards = move("back", [Step(piece="red-2", from_="track:30", to="track:26")])
    forward = move("forward", [Step(piece="red-2", from_="track:30", to="track:31")])
    assert GreedyBot(0).choose(view(*pieces), [back, backwards, forward]).id == "forward"


def test_greedy_bot_does_not_bump_its_partner() -> None:
    pieces = (Piece(id="red-1", seat=0, at="track:10"), Piece(id="blue-1", seat=2, at="track:12"))
    partner = move(
        "bump-partner",
        [Step(piece="red-1", from_="track:10", to="track:12")],
        [Effect(piece="blue-1", from_="track:12", to="start", why="captured")],
    )
    short = move("short", [Step(piece="red-1", from_="track:10", to="track:11")])
    partnered = view(*pieces, teams=[[0, 2], [1, 3]])
    assert GreedyBot(0).choose(partnered, [partner, short]).id == "short"


def test_board_reads_track_distances_across_the_wrap() -> None:
    pieces = [Piece(id="red-1", seat=0, at="track:59"), Piece(id="red-2", seat=0, at="track:0")]
    board = Board(pieces, [], 60)
    assert board.distance("track:58", "track:2") == 4
    assert board.distance("track:2", "track:58") == -4
    assert board.distance("lane:1", "lane:3") == 2


def test_greedy_bot_plays_through_the_api(client: Client) -> None:
    final = play_game(client, "parchis-2dice", 2, bots={0: GreedyBot(1)}, seed=2)
    assert final.is_finished and final.winners

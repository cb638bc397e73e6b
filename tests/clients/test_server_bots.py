"""The Python client and its command line with the server's bots: levels listed, bot seats
created, a game played beside them, seats handed over and back."""

from __future__ import annotations

import pytest
from tabula_client import Client, bot_seat, play_game
from tabula_client.errors import TabulaError

from tests.clients.test_cli import run_cli
from tests.waiting import wait_until


def test_the_client_lists_the_bot_levels_weakest_first(client: Client) -> None:
    levels = client.bots()
    assert [level.name for level in levels][:3] == ["random", "greedy", "expert"]
    assert all("sorry" in level.rulesets and level.version >= 1 for level in levels)


def test_a_game_created_with_bot_seats_is_played_by_the_server(client: Client) -> None:
    created = client.create_game("sorry", [bot_seat("Robin", "greedy"), bot_seat("Rex", "random")])
    view = wait_until(lambda: (v := client.game(created.id)).is_finished and v, 60)
    assert [seat.bot for seat in view.seats] == ["greedy", "random"]


def test_play_game_plays_its_seats_beside_the_servers_bots(server_url: str) -> None:
    with Client(server_url) as client:
        final = play_game(client, "sorry", ["Ann", "Robin"], server_bots={1: "expert"}, seed=3)
        assert final.is_finished and final.seats[1].bot == "expert"
        events = client.with_token(None).events(final.game_id, limit=1000).events
        assert {e.by for e in events if getattr(e.data, "seat", None) == 1} <= {"bot", "server"}


def test_an_unknown_level_is_a_problem_naming_the_seat(client: Client) -> None:
    with pytest.raises(TabulaError) as raised:
        client.create_game("sorry", ["Ann", bot_seat("Robin", "nobody")])
    assert raised.value.status == 400 and "seats[1].bot" in str(raised.value)


def test_the_referee_hands_a_seat_to_a_bot_and_back(server_url: str) -> None:
    with Client(server_url) as anyone:
        created = anyone.create_game("sorry", ["Ann", "Bob"])
        referee = anyone.with_token(created.tokens.referee)
        handed = referee.hand_to_bot(created.id, 1, "random", "Bob left")
        assert handed.events[0].type == "SeatHandedOver"
        assert referee.game(created.id).seats[1].bot == "random"
        back = referee.hand_back(created.id, 1)
        assert back.events[0].type == "SeatHandedOver"
        assert referee.game(created.id).seats[1].bot is None


def test_the_command_line_lists_bots_and_seats_them(server_url: str) -> None:
    listed = run_cli("bots", "--url", server_url)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("random (v")
    done = run_cli(
        "play", "--ruleset", "sorry", "--names", "Ann,Robin", "--bot", "1=greedy",
        "--url", server_url, "--seed", "7",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith(("winner: ", "winners: "))
    refused = run_cli("play", "--ruleset", "sorry", "--players", "2", "--bot", "5=greedy")
    assert refused.returncode == 2 and "seats are numbered 0 to 1" in refused.stderr

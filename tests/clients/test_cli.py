"""``python -m tabula_client``: argument handling, output lines, and a whole game end to end."""

from __future__ import annotations

import subprocess
import sys

import msgspec
import pytest
from tabula_client import Client, play_game
from tabula_client.cli import describe_event, parse_options, player_names
from tabula_client.models import StoredEvent
from tabula_client.wire import MovePlayedEvent

from tests.clients.logs import whole_log
from tests.clients.test_follow import play_to_end


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tabula_client", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_play_prints_every_move_and_the_winner(server_url: str) -> None:
    names = "Ann,Bob,Cat"
    done = run_cli(
        "play", "--ruleset", "race35", "--names", names, "--url", server_url, "--seed", "5"
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "race35 game" in lines[0] and "Ann, Bob, Cat" in lines[0]
    moves = [line for line in lines if ": throw:" in line]
    assert moves and all(" uses " in line for line in moves)
    assert any(line.split()[1] == "Bob" for line in moves)
    last = lines[-1]
    assert last.startswith("winner: ") and last.split()[1] in names.split(",")


def test_play_with_a_count_names_default_seats(server_url: str) -> None:
    done = run_cli("play", "--ruleset", "race35", "--players", "2", "--url", server_url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].split()[1] in ("Ann", "Bob")


def test_server_errors_exit_1_with_the_problem(server_url: str) -> None:
    done = run_cli("play", "--ruleset", "race35", "--players", "1", "--url", server_url)
    assert done.returncode == 1
    assert "422 bad-setup" in done.stderr


def test_help_lists_the_play_options() -> None:
    done = run_cli("play", "--help")
    assert done.returncode == 0
    for option in ("--ruleset", "--players", "--url", "--seed", "--names"):
        assert option in done.stdout


def test_player_names_from_count_or_names() -> None:
    assert player_names(3, None) == ["Ann", "Bob", "Cat"]
    assert player_names(None, "Zed, Yan") == ["Zed", "Yan"]
    with pytest.raises(ValueError, match="--players 3 but 2 names"):
        player_names(3, "Zed,Yan")


def test_options_are_json_or_plain_strings() -> None:
    assert parse_options(["max_players=4", "red_square_effect=restart_player"]) == {
        "max_players": 4,
        "red_square_effect": "restart_player",
    }


def stored(version: int, kind: str, data: dict[str, object]) -> StoredEvent:
    """An event as the server sends it."""
    sent = {"game_id": "g", "version": version, "type": kind, "data": data, "by": "server"}
    sent.update(at="2026-01-01T00:00:00Z", prev_hash="00", hash="11")
    event: StoredEvent = msgspec.convert(sent, StoredEvent)
    return event


def test_a_move_line_shows_seat_move_uses_steps_and_effects() -> None:
    data = {
        "seat": 1,
        "move": "throw:3",
        "uses": [3],
        "steps": [{"piece": "blue-1", "from": "track:10", "to": "track:13"}],
        "effects": [{"piece": "red-1", "from": "track:13", "to": "track:10", "why": "displaced"}],
    }
    event = stored(8, "MovePlayed", data)
    assert describe_event(event, ["Ann", "Bob"]) == (
        "#8    Bob (seat 1): throw:3 uses 3: blue-1 track:10->track:13; "
        "red-1 track:13->track:10 (displaced)"
    )
    assert describe_event(stored(9, "DiceRolled", {"seat": 0, "dice": [2]}), ["Ann"]) is None


def test_watch_follows_a_live_game_to_its_end(client: Client, server_url: str) -> None:
    created = client.create_game("ludo", ["Ann", "Bob"], auto_chance=True, seed="watch")
    command = [sys.executable, "-m", "tabula_client", "watch", created.id, "--url", server_url]
    watcher = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert watcher.stdout is not None
        first = watcher.stdout.readline()  # the watcher is following before any move is made
        assert first.startswith("#1") and "ludo game" in first and "Ann, Bob" in first
        last = play_to_end(client, created)
        rest, errors = watcher.communicate(timeout=60)
    finally:
        watcher.kill()
    assert watcher.returncode == 0, errors
    lines = [first.rstrip("\n"), *rest.splitlines()]
    log = whole_log(client, created.id)
    moves = [
        f"#{e.version:<4} {('Ann', 'Bob')[e.data.seat]} (seat"
        for e in log
        if isinstance(e, MovePlayedEvent)
    ]
    assert [line[: len(m)] for line in lines for m in moves if line.startswith(m)] == moves
    assert lines[-2].startswith(f"#{last}") and "seed revealed" in lines[-2]
    assert lines[-1].startswith("winner: ")


def test_watch_after_n_starts_with_event_n_plus_one(client: Client, server_url: str) -> None:
    final = play_game(client, "race35", 2, seed=5)
    done = run_cli("watch", final.game_id, "--after", "3", "--url", server_url)
    assert done.returncode == 0, done.stderr
    numbers = [int(line.split()[0][1:]) for line in done.stdout.splitlines()[:-1]]
    assert numbers[0] > 3 and numbers[-1] == final.version


def test_watch_exits_1_for_an_unknown_game_and_2_for_a_negative_after(server_url: str) -> None:
    done = run_cli("watch", "no-such-game", "--url", server_url)
    assert done.returncode == 1 and "404 game-not-found" in done.stderr
    assert run_cli("watch", "g", "--after", "-1", "--url", server_url).returncode == 2

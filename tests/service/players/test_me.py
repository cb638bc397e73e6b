"""``GET /me``: the player's handle, ratings and games (running and finished), and what the
tournaments and the meeting place fill in."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.service.conftest import auth
from tests.service.players.conftest import refused, register, seated_game


def play_out(api: TestClient[Any], game: dict[str, Any], key: str) -> None:
    """Play a race35 game to its end: seat 0 with the player's key, seat 1 with its token."""
    callers = [key, game["tokens"]["seats"][1]]
    for _ in range(2000):
        state = api.get(f"/games/{game['id']}").json()
        if state["status"] == "finished":
            return
        caller = callers[state["to_act"][0]["seat"]]
        reply = api.post(f"/games/{game['id']}/moves", json={"move": "roll"}, headers=auth(caller))
        assert reply.status_code == 200, reply.text
    raise AssertionError("the game did not end")


def test_me_lists_the_players_games_running_and_finished(api: TestClient[Any]) -> None:
    key = register(api, "ann")["key"]
    finished, running = seated_game(api, "ann"), seated_game(api, "ann")
    seated_game(api, register(api, "bob")["handle"])  # a game without her
    play_out(api, finished, key)
    me = api.get("/me", headers=auth(key)).json()
    listed = [(game["id"], game["status"]) for game in me["games"]]
    assert listed == [(running["id"], "active"), (finished["id"], "finished")]  # newest first
    assert me["games"][1]["winners"]
    assert me["tournaments"] == [] and me["invitations"] == []


def test_me_takes_a_players_key_only(api: TestClient[Any]) -> None:
    game = seated_game(api, register(api, "ann")["handle"])
    assert refused(api.get("/me")) == (401, "unauthorized")
    assert refused(api.get("/me", headers=auth(game["tokens"]["referee"]))) == (403, "forbidden")

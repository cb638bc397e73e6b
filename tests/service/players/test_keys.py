"""A player's key against the real app: it acts for the player's seat; rotated, the old key is
refused at once on every route and the socket; a retired handle's key is refused and the
handle never registered again; every wrong key gets one answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from litestar.exceptions import WebSocketDisconnect
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.conftest import auth
from tests.service.players.conftest import refused, register, seated_game

ROUTES = [
    ("GET", "/me"),
    ("POST", "/me/keys"),
    ("DELETE", "/me"),
    ("GET", "/players/ann/record"),
    ("GET", "/games/{game}"),
    ("GET", "/games/{game}/legal-moves"),
    ("GET", "/games/{game}/events"),
    ("POST", "/games/{game}/moves"),
    ("POST", "/games/{game}/undo"),
]


def call(api: TestClient[Any], method: str, path: str, key: str) -> Any:
    """A request to a route with ``key``, with the body a write takes."""
    body = {"move": "roll"} if path.endswith("/moves") else {}
    if method == "POST":
        return api.post(path, json=body, headers=auth(key))
    return api.request(method, path, headers=auth(key))


def hello_closes_with(api: TestClient[Any], game_id: str, key: str) -> int:
    """The close code of a game socket whose hello shows ``key``."""
    with api.websocket_connect(f"/games/{game_id}/socket") as session:
        session.send_json({"type": "hello", "token": key, "after": 0})
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                session.receive_text()
    return closed.value.code


def test_a_players_key_plays_her_seat(api: TestClient[Any]) -> None:
    key = register(api, "ann")["key"]
    game = seated_game(api, "ann")
    assert game["tokens"]["seats"][0] is None  # no token for her seat: her key plays it
    played = api.post(f"/games/{game['id']}/moves", json={"move": "roll"}, headers=auth(key))
    assert played.status_code == 200, played.text
    assert played.json()["events"][0]["by"] == 0


def test_a_rotated_key_is_refused_at_once_on_every_route(api: TestClient[Any]) -> None:
    old = register(api, "ann")["key"]
    game = seated_game(api, "ann")["id"]
    assert api.get(f"/games/{game}/legal-moves", headers=auth(old)).status_code == 200
    rotated = api.post("/me/keys", headers=auth(old))
    assert rotated.status_code == 200, rotated.text
    new = rotated.json()["key"]
    for method, path in ROUTES:
        reply = call(api, method, path.format(game=game), old)
        assert refused(reply) == (401, "key-refused"), (method, path, reply.text)
    assert hello_closes_with(api, game, old) == 4401
    assert api.get("/me", headers=auth(new)).json()["handle"] == "ann"
    played = api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=auth(new))
    assert played.status_code == 200, played.text


def test_a_retired_handles_key_is_refused_and_the_handle_never_comes_back(
    api: TestClient[Any],
) -> None:
    key = register(api, "Ann")["key"]
    retired = api.delete("/me", headers=auth(key))
    assert retired.status_code == 204, retired.text
    assert refused(api.get("/me", headers=auth(key))) == (401, "key-refused")
    for again in ("Ann", "ann", "\uff21\uff4e\uff4e"):
        reply = api.post("/players", json={"handle": again})
        assert refused(reply) == (409, "handle-taken")
        assert "never registered again" in reply.json()["detail"]
    seats = [{"player": "Ann"}, {"name": "Bob"}]
    reply = api.post("/games", json={"ruleset": "race35", "seats": seats})
    assert refused(reply) == (422, "unknown-player")


def test_every_wrong_key_gets_one_answer(api: TestClient[Any]) -> None:
    rotated = register(api, "ann")["key"]
    api.post("/me/keys", headers=auth(rotated))
    retired = register(api, "bob")["key"]
    api.delete("/me", headers=auth(retired))
    secret = rotated.split("_", 3)[3]
    wrong = [
        rotated,
        retired,
        rotated[:-3] + ("AAA" if not rotated.endswith("AAA") else "BBB"),
        "tabula_pk_" + "0" * 24 + "_" + secret,
        "tabula_pk_malformed",
        "tabula_ak_nosuchapp_" + secret,
    ]
    replies = [api.get("/me", headers=auth(key)) for key in wrong]
    answers = {(r.status_code, r.json()["type"], r.json()["detail"]) for r in replies}
    assert len(answers) == 2  # one for a player's key, one for an app's
    assert {status for status, _, _ in answers} == {401}
    assert all(kind.endswith("/key-refused") for _, kind, _ in answers)


def test_a_game_token_still_plays_as_before(api: TestClient[Any]) -> None:
    register(api, "ann")
    game = seated_game(api, "ann")
    bob = game["tokens"]["seats"][1]
    key = register(api, "cid")["key"]
    api.post(f"/games/{game['id']}/moves", json={"move": "roll"}, headers=auth(bob))
    assert api.get(f"/games/{game['id']}/legal-moves", headers=auth(bob)).status_code == 200
    assert refused(api.get(f"/games/{game['id']}/legal-moves", headers=auth(key))) == (
        403,
        "forbidden",
    )  # a player with no seat in the game


def test_a_players_writes_spend_her_own_budget(tmp_path: Path) -> None:
    settings = Settings(
        database=str(tmp_path / "t.db"), log_level="warning", write_rate=0.001, write_burst=3
    )
    with TestClient(create_app(settings)) as api:
        book = api.app.state.players
        ann, bea = book.register("ann").key, book.register("bea").key
        seats = [{"player": "ann"}, {"player": "bea"}]
        body = {"ruleset": "race35", "seats": seats, "options": {"special_squares": {}}}
        game = api.post("/games", json=body).json()["id"]
        path = f"/games/{game}/moves"
        moves = [api.post(path, json={"move": "roll"}, headers=auth(k)) for k in (ann, bea) * 3]
        moves.append(api.post(path, json={"move": "roll"}, headers=auth(ann)))
    assert [reply.status_code for reply in moves[:6]] == [200] * 6  # two budgets of three
    assert refused(moves[6]) == (429, "rate-limited")

"""A game socket opened with a registered player's key, against the real app: the key welcomes
the player's seat and plays it; nobody else's token or key takes, plays or hands over her seat
over the socket; a key replaced or a handle retired closes every socket opened with the old
key at once (4401, ``key-revoked``), and a write message checks the key first (news of another
process's rotation may come late)."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.exceptions import WebSocketDisconnect
from litestar.testing import TestClient

from service.usecases.players.book import PlayerBook
from tests.service.conftest import auth, seed_for_test
from tests.service.games.test_player_seats import register, retire, rotate
from tests.service.live.test_socket import Socket, opened


def ann_and_bob(api: TestClient[Any]) -> tuple[str, dict[str, Any], str]:
    """Ann's key, a sorry game whose seat 0 is hers (seat 1 a free seat, Bob), and the key of
    Cid, a registered player with no seat in it."""
    key, cid = register(api, "ann", "cid")
    body = {"ruleset": "sorry", "seats": [{"player": "ann"}, {"name": "Bob"}]}
    reply = api.post("/games", json={**body, "seed": seed_for_test()})
    assert reply.status_code == 201, reply.text
    return key, reply.json(), cid


CLOSING_SECONDS = 10.0
"""How long a test waits for the server to close a socket (it closes at once)."""


def closed_with(session: Any) -> WebSocketDisconnect:
    """How the server closes the socket, after whatever it still sends (queue.Empty when it
    does not close within ``CLOSING_SECONDS``)."""
    with pytest.raises(WebSocketDisconnect) as closed:
        while True:
            session.receive_text(timeout=CLOSING_SECONDS)
    return closed.value


def test_a_players_key_welcomes_her_seat_and_plays_it(api: TestClient[Any]) -> None:
    key, created, _ = ann_and_bob(api)
    game_id = created["id"]
    with opened(api, game_id) as session:
        socket = Socket(session)
        assert socket.hello(key) == {"type": "welcome", "role": "seat", "seat": 0, "version": 1}
        socket.until(1)
        played = socket.play("r1", "draw", 1)
        assert played["type"] == "played", played
        assert played["events"][0]["by"] == 0  # `by` on her act is her seat


def test_nobody_else_plays_or_takes_her_seat_over_the_socket(api: TestClient[Any]) -> None:
    _, created, cid = ann_and_bob(api)
    game_id, referee, bob = (
        created["id"],
        created["tokens"]["referee"],
        created["tokens"]["seats"][1],
    )
    with opened(api, game_id) as session:
        session.send_text(f'{{"type": "hello", "token": "{cid}"}}')
        assert closed_with(session).code == 4401  # a player with no seat here
    for token, slug in [(referee, "forbidden"), (bob, "forbidden"), (None, "unauthorized")]:
        with opened(api, game_id) as session:
            socket = Socket(session)
            socket.hello(token)
            socket.until(1)
            refused = socket.play("r1", "draw", 1, seat=0)
            assert refused["type"] == "refused", refused
            assert refused["problem"]["type"].endswith("/" + slug), refused
    assert api.get(f"/games/{game_id}").json()["version"] == 1  # nothing was played


@pytest.mark.parametrize("change", ["rotate", "retire"])
def test_a_replaced_key_closes_every_socket_opened_with_it(
    api: TestClient[Any], change: str
) -> None:
    key, created, _ = ann_and_bob(api)
    game_id, referee = created["id"], created["tokens"]["referee"]
    with opened(api, game_id) as first, opened(api, game_id) as second:
        for session in (first, second):
            Socket(session).hello(key)
        with opened(api, game_id) as watching:
            Socket(watching).hello(referee)
            if change == "rotate":
                rotate(api, key)
            else:
                retire(api, key)
            for session in (first, second):
                closed = closed_with(session)
                assert (closed.code, closed.detail) == (4401, "key-revoked")
            socket = Socket(watching)  # a socket opened with another token stays open
            socket.send({"type": "ping", "ref": "still there?"})
            message = socket.receive()
            while message["type"] == "events":
                message = socket.receive()
            assert message == {"type": "pong", "ref": "still there?"}
    with opened(api, game_id) as session:
        session.send_text(f'{{"type": "hello", "token": "{key}"}}')
        assert closed_with(session).code == 4401  # the old key opens no socket


def test_a_write_checks_the_key_when_the_news_of_its_change_is_missed(
    api: TestClient[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    key, created, _ = ann_and_bob(api)
    game_id = created["id"]
    monkeypatch.setattr(PlayerBook, "watch", lambda self, player, changed: lambda: None)
    with opened(api, game_id) as session:
        socket = Socket(session)
        socket.hello(key)
        socket.until(1)
        rotate(api, key)  # as another process's rotation, its news lost
        socket.send({"type": "play", "ref": "r1", "move": "draw", "expected_version": 1})
        closed = closed_with(session)
        assert (closed.code, closed.detail) == (4401, "key-revoked")
    assert api.get(f"/games/{game_id}").json()["version"] == 1  # the move was not played


def test_the_new_key_opens_her_seat_again(api: TestClient[Any]) -> None:
    key, created, _ = ann_and_bob(api)
    new = rotate(api, key)
    with opened(api, created["id"]) as session:
        assert Socket(session).hello(new)["seat"] == 0
    assert api.get(f"/games/{created['id']}/legal-moves", headers=auth(new)).status_code == 200

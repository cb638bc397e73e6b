"""The feed socket keeps the game socket's rules: a player's key in the hello (4401 without
one that checks), a readable hello first (4400), a replaced key or a retired handle closing it
at once (4401 ``key-revoked``), pings answered, and a budget of messages (``refused``, then
4429). The stream takes the key in the Authorization header and ends when the key is
replaced."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.conftest import auth
from tests.service.feed.conftest import FeedSocket, duel, feed_of, register, rotate, streamed
from tests.service.live.test_socket_keys import closed_with


def test_a_replaced_key_closes_the_feed_with_4401(api: TestClient[Any]) -> None:
    ann = register(api, "ann")
    with feed_of(api) as session:
        assert FeedSocket(session).hello(ann)["type"] == "welcome"
        new = rotate(api, ann)
        closed = closed_with(session)
    assert (closed.code, closed.detail) == (4401, "key-revoked")
    with feed_of(api) as session:
        assert FeedSocket(session).hello(new) == {"type": "welcome", "handle": "ann"}
    with feed_of(api) as session:
        session.send_text(f'{{"type": "hello", "token": "{ann}"}}')
        assert closed_with(session).code == 4401  # the old key opens nothing


def test_a_retired_handle_closes_the_feed_with_4401(api: TestClient[Any]) -> None:
    ann = register(api, "ann")
    with feed_of(api) as session:
        FeedSocket(session).hello(ann)
        assert api.delete("/me", headers=auth(ann)).status_code == 204
        closed = closed_with(session)
    assert (closed.code, closed.detail) == (4401, "key-revoked")


def test_only_a_players_key_opens_a_feed(api: TestClient[Any]) -> None:
    register(api, "ann")
    game = api.post("/games", json={"ruleset": "race35", "seats": [{"name": "A"}, {"name": "B"}]})
    seat_token = game.json()["tokens"]["seats"][0]
    made_up = "tabula_pk_" + "0" * 24 + "_" + "x" * 43
    for token in (None, seat_token, made_up):
        with feed_of(api) as session:
            session.send_text(json.dumps({"type": "hello", "token": token}))
            assert closed_with(session).code == 4401, token


@pytest.mark.parametrize(
    "first",
    [
        '{"type": "ping"}',
        '{"type": "hello", "after": "yesterday"}',
        '{"type": "hello", "after": 3}',
        "not json",
    ],
)
def test_the_first_message_must_be_a_readable_hello(api: TestClient[Any], first: str) -> None:
    register(api, "ann")
    with feed_of(api) as session:
        session.send_text(first)
        assert closed_with(session).code == 4400


def test_pings_are_answered_and_a_second_hello_refused(api: TestClient[Any]) -> None:
    ann = register(api, "ann")
    with feed_of(api) as session:
        feed = FeedSocket(session)
        feed.hello(ann)
        feed.send({"type": "ping", "ref": "p1"})
        assert feed.receive() == {"type": "pong", "ref": "p1"}
        feed.send({"type": "hello", "token": ann, "after": None})
        refused = feed.receive()
    assert refused["type"] == "refused"
    assert refused["problem"]["type"].endswith("/malformed-request")


def test_a_socket_over_its_budget_is_refused_then_closed_4429(tmp_path: Path) -> None:
    settings = Settings(
        database=str(tmp_path / "t.db"),
        log_level="warning",
        socket_message_rate=1,
        socket_message_burst=3,
    )
    with TestClient(create_app(settings)) as api:
        ann = register(api, "ann")
        with feed_of(api) as session:
            feed = FeedSocket(session)
            feed.hello(ann)
            for _ in range(12):
                session.send_text('{"type": "ping", "ref": "f"}')
            answers = []
            closed = None
            try:
                while True:
                    answers.append(feed.receive())
            except Exception as error:  # the close
                closed = error
    kinds = [answer["type"] for answer in answers]
    assert kinds[0] == "pong" and "refused" in kinds
    refused = answers[kinds.index("refused")]
    assert refused["ref"] == "f" and refused["problem"]["type"].endswith("/rate-limited")
    assert getattr(closed, "code", None) == 4429


def test_the_stream_takes_a_players_key_and_a_note_id(api: TestClient[Any]) -> None:
    ann = register(api, "ann")
    assert api.get("/me/stream").status_code == 401
    game = api.post("/games", json={"ruleset": "race35", "seats": [{"name": "A"}, {"name": "B"}]})
    seat_token = game.json()["tokens"]["seats"][0]
    assert api.get("/me/stream", headers=auth(seat_token)).status_code == 403
    bad = api.get("/me/stream", headers={**auth(ann), "Last-Event-ID": "7"})
    assert bad.status_code == 400 and bad.json()["type"].endswith("/validation-failed")
    assert api.get("/me/stream", params={"after": "x"}, headers=auth(ann)).status_code == 400


def test_a_replaced_key_ends_the_stream(api: TestClient[Any]) -> None:
    ann, bob = register(api, "ann"), register(api, "bob")
    game = duel(api, "bob", "ann")
    with streamed(api, ann, "ann") as seen:
        rotate(api, ann)
    assert [(n["kind"], n["game_id"]) for n in seen] == [("game-started", game)]
    assert bob

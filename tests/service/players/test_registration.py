"""``POST /players`` against the real app: a handle and its key, the handle's rules (look-alikes,
format characters, reserved words), uniqueness regardless of case and width, and the budget of
registrations per client address."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.conftest import auth
from tests.service.players.conftest import refused, register


def test_registering_a_handle_gives_its_key_once(api: TestClient[Any]) -> None:
    registered = register(api, " Ann ")
    assert registered["handle"] == "Ann"  # kept as typed, trimmed
    assert registered["key"].startswith("tabula_pk_")
    me = api.get("/me", headers=auth(registered["key"]))
    assert me.status_code == 200, me.text
    assert me.json() == {
        "handle": "Ann",
        "ratings": [],
        "games": [],
        "tournaments": [],
        "invitations": [],
    }


def test_a_cyrillic_letter_in_a_latin_handle_is_refused(api: TestClient[Any]) -> None:
    reply = api.post("/players", json={"handle": "\u0430nn"})  # a Cyrillic a, then nn
    assert refused(reply) == (422, "bad-handle")
    assert "Cyrillic" in reply.json()["detail"]


def test_fullwidth_letters_meet_the_handle_they_look_like(api: TestClient[Any]) -> None:
    register(api, "ann")
    reply = api.post("/players", json={"handle": "\uff41\uff4e\uff4e"})
    assert refused(reply) == (409, "handle-taken")
    assert "`ann`" in reply.json()["detail"]


def test_a_handle_in_another_case_is_taken(api: TestClient[Any]) -> None:
    register(api, "Ann")
    assert refused(api.post("/players", json={"handle": "aNN"})) == (409, "handle-taken")


@pytest.mark.parametrize(
    "handle",
    ["an\u200bn", "ann\u202e", "a\u2060nn", "\u200dann"],
    ids=["zero-width-space", "right-to-left-override", "word-joiner", "zero-width-joiner"],
)
def test_format_characters_are_refused(api: TestClient[Any], handle: str) -> None:
    reply = api.post("/players", json={"handle": handle})
    assert refused(reply) == (422, "bad-handle")
    assert "format character" in reply.json()["detail"]


@pytest.mark.parametrize("handle", ["admin", "Referee", "SERVER", "me", "null", "Tabula"])
def test_reserved_words_are_refused(api: TestClient[Any], handle: str) -> None:
    reply = api.post("/players", json={"handle": handle})
    assert refused(reply) == (422, "bad-handle")
    assert "reserved" in reply.json()["detail"]


def test_a_colon_is_an_apps_alone(api: TestClient[Any]) -> None:
    reply = api.post("/players", json={"handle": "ludoclub:8812"})
    assert refused(reply) == (422, "bad-handle")


def test_a_thousand_registrations_from_one_address_are_refused_past_the_budget(
    tmp_path: Path,
) -> None:
    settings = Settings(database=str(tmp_path / "t.db"), log_level="warning", refusal_rate=0)
    started = time.monotonic()
    with TestClient(create_app(settings)) as api:
        replies = [api.post("/players", json={"handle": f"p{n}"}) for n in range(1000)]
    elapsed = time.monotonic() - started
    made = [r for r in replies if r.status_code == 201]
    assert len(made) <= settings.create_burst + settings.create_rate * elapsed + 1
    assert all(refused(r) == (429, "rate-limited") for r in replies if r.status_code != 201)
    assert "Retry-After" in next(r for r in replies if r.status_code == 429).headers


def test_a_players_stream_is_no_game(api: TestClient[Any]) -> None:
    register(api, "ann")
    listed = api.get("/games").json()["games"]
    assert listed == []
    stream = api.app.state.players.store.streams()[0].stream_id
    assert refused(api.get(f"/games/{stream}")) == (404, "game-not-found")
    assert refused(api.get(f"/tournaments/{stream}")) == (404, "tournament-not-found")

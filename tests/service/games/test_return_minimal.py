"""``Prefer: return=minimal`` (RFC 7240) on the writes that reply with the game: the reply
leaves out the state and says so; everything else in it is what a whole reply holds."""

from __future__ import annotations

import random
from typing import Any

from litestar.testing import TestClient

from tests.service.conftest import auth, create
from tests.service.games.test_undo import decide_once

MINIMAL = {"Prefer": "return=minimal"}


def roll(api: TestClient[Any], created: dict[str, Any], **headers: str) -> Any:
    return api.post(
        f"/games/{created['id']}/moves",
        json={"move": "roll", "seat": 0},
        headers=auth(created["tokens"]["referee"]) | headers,
    )


def test_a_minimal_reply_has_the_events_and_moves_but_no_state(api: TestClient[Any]) -> None:
    created = create(api, players=2)
    reply = roll(api, created, **MINIMAL)
    assert reply.status_code == 200
    assert reply.headers["Preference-Applied"] == "return=minimal"
    body = reply.json()
    assert set(body) == {"version", "events", "legal_moves"}
    whole = api.get(
        f"/games/{created['id']}/legal-moves", headers=auth(created["tokens"]["referee"])
    )
    assert body["legal_moves"] == whole.json()["moves"]
    assert body["version"] == whole.json()["version"]
    log = api.get(
        f"/games/{created['id']}/events",
        params={"after": created["version"]},
        headers=auth(created["tokens"]["referee"]),
    ).json()["events"]
    assert body["events"] == log


def test_without_the_preference_the_reply_holds_the_state(api: TestClient[Any]) -> None:
    created = create(api, players=2)
    reply = roll(api, created, Prefer="respond-async, wait=10")
    assert "Preference-Applied" not in reply.headers
    assert reply.json()["state"]["version"] == reply.json()["version"]


def test_the_preference_is_found_among_others_in_any_case(api: TestClient[Any]) -> None:
    created = create(api, players=2)
    reply = roll(api, created, Prefer="handling=strict, RETURN = Minimal; x=1")
    assert "state" not in reply.json()
    assert reply.headers["Preference-Applied"] == "return=minimal"


def test_undo_honours_it_too(api: TestClient[Any]) -> None:
    created = create(api, "sorry", players=2, auto_chance=True, seed="minimal")
    decide_once(api, created, random.Random(3))
    reply = api.post(
        f"/games/{created['id']}/undo",
        json={"reason": "misclick"},
        headers=auth(created["tokens"]["referee"]) | MINIMAL,
    )
    assert reply.status_code == 200, reply.text
    assert "state" not in reply.json()
    assert reply.json()["events"][0]["type"] == "MoveUndone"

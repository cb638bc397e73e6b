"""Players' names are kept in Unicode NFC and trimmed, refused when they hold a format
character (a zero-width space, a right-to-left override), and must differ in more than case
among a tournament's players (a game's seats may repeat a name: two bots called alike)."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest
from litestar.testing import TestClient

from tests.service.api.test_bad_input import expect_problem
from tests.service.conftest import auth
from tests.service.tournaments.test_tournaments import tournament

DECOMPOSED = unicodedata.normalize("NFD", "Zoë")


def register(api: TestClient[Any], *names: str) -> Any:
    body = {"name": "Club", "ruleset": "race35", "players": [{"name": n} for n in names]}
    return api.post("/tournaments", json=body)


@pytest.mark.parametrize(
    ("second", "why"),
    [
        ("ann", "registered twice"),
        ("Ann ", "registered twice"),
        ("  ANN", "registered twice"),
        ("An\u200bn", "U+200B"),
        ("\u202eAnn", "U+202E"),
    ],
)
def test_a_tournament_refuses_a_name_that_would_pass_for_another(
    api: TestClient[Any], second: str, why: str
) -> None:
    found = expect_problem(register(api, "Ann", second), 400, "validation-failed", why)
    assert found["pointer"] == "/players/1/name"
    assert api.get("/tournaments").json()["tournaments"] == []


def test_names_are_kept_trimmed_and_composed(api: TestClient[Any]) -> None:
    reply = register(api, f" {DECOMPOSED} ", "Bob")
    assert reply.status_code == 201, reply.text
    names = [p["name"] for p in reply.json()["tokens"]["players"]]
    assert names == ["Zoë", "Bob"] and names[0] == unicodedata.normalize("NFC", names[0])
    shown = api.get(f"/tournaments/{reply.json()['id']}").json()
    assert [p["name"] for p in shown["players"]] == ["Zoë", "Bob"]


def test_a_player_withdraws_by_name_whatever_its_case(api: TestClient[Any]) -> None:
    created = tournament(api, players=4)
    director = auth(created["tokens"]["director"])
    route = f"/tournaments/{created['id']}/withdrawals"
    reply = api.post(route, json={"player": " p2"}, headers=director)
    assert reply.status_code == 200, reply.text
    assert [p["withdrawn"] for p in reply.json()["players"]] == [False, False, True, False]


def test_a_game_keeps_seat_names_composed_and_refuses_format_characters(
    api: TestClient[Any],
) -> None:
    body = {"ruleset": "race35", "seats": [{"name": "Ann"}, {"name": "A\u2066nn"}]}
    found = expect_problem(api.post("/games", json=body), 400, "validation-failed", "U+2066")
    assert found["pointer"] == "/seats/1/name"
    body = {"ruleset": "race35", "seats": [{"name": f"{DECOMPOSED} "}, {}]}
    reply = api.post("/games", json=body)
    assert reply.status_code == 201, reply.text
    assert api.get(f"/games/{reply.json()['id']}").json()["seats"][0]["name"] == "Zoë"

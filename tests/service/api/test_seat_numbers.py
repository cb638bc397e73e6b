"""Seats in a problem's detail are numbered from 1, as people count and as the pages number
them; the wire's ``seat`` stays 0-based, and a detail about its value gives both counts
(docs/reference/problems.md, "Seats in details")."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.service.conftest import auth


def test_a_detail_numbers_seats_from_1_and_names_the_wires_range(api: TestClient[Any]) -> None:
    body = {"ruleset": "race35", "seats": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cat"}]}
    game = api.post("/games", json=body).json()
    moves = f"/games/{game['id']}/moves"
    early = api.post(moves, json={"move": "roll"}, headers=auth(game["tokens"]["seats"][1]))
    assert early.status_code == 409
    assert early.json()["detail"] == "it is not seat 2's turn: waiting for seat 1 (roll)"
    other = api.post(
        moves, json={"move": "roll", "seat": 2}, headers=auth(game["tokens"]["seats"][0])
    )
    assert other.json()["detail"] == "this token plays for seat 1, not seat 3"
    outside = api.post(
        moves, json={"move": "roll", "seat": 3}, headers=auth(game["tokens"]["referee"])
    )
    assert outside.status_code == 400 and outside.json()["pointer"] == "/seat"
    assert outside.json()["detail"] == "`seat`: a `seat` is 0 to 2 here (seats 1 to 3), not 3"

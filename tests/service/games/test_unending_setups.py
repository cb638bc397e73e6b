"""A setup whose automatic play cannot end is refused before anything is written, as a 422
``bad-setup`` that says why, wherever games are made (a race35 game with server chance and
``auto_chance`` plays itself whole when it is created); the referee's bound on automatic steps
is a 422 too, never a 500."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient

from service.core import referee
from tests.service.api.test_bad_input import expect_problem
from tests.service.games.test_records import rehash

ALL_RED = {"special_squares": {str(square): "red" for square in range(2, 35)}}
SEATS = [{"name": "A"}, {"name": "B"}, {"name": "C"}]


def a_game(**body: Any) -> dict[str, Any]:
    return {"ruleset": "race35", "seats": SEATS, "auto_chance": True, **body}


def test_a_game_that_could_never_end_is_refused_at_creation(api: TestClient[Any]) -> None:
    reply = api.post("/games", json=a_game(options=ALL_RED))
    expect_problem(reply, 422, "bad-setup", "could never end")
    reply = api.post("/games/batch", json={"games": [a_game(), a_game(options=ALL_RED)]})
    expect_problem(reply, 422, "bad-setup", "table 1", "could never end")
    assert api.get("/games").json()["games"] == []


def test_a_tournament_whose_tables_could_never_end_is_refused(api: TestClient[Any]) -> None:
    body = {
        "name": "Never",
        "ruleset": "race35",
        "options": {**ALL_RED, "auto_chance": True},
        "players": [{"name": f"P{i}"} for i in range(4)],
    }
    expect_problem(api.post("/tournaments", json=body), 422, "bad-setup", "could never end")
    assert api.get("/tournaments").json()["tournaments"] == []


def test_automatic_play_past_the_bound_is_a_422_and_writes_nothing(
    api: TestClient[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(referee, "MAX_AUTOMATIC", 20)
    reply = api.post("/games", json=a_game(options={"special_squares": {}}))
    expect_problem(reply, 422, "bad-setup", "did not settle within 20 steps")
    assert api.get("/games").json()["games"] == []


def test_an_imported_record_of_a_game_that_could_never_end_is_invalid(
    api: TestClient[Any],
) -> None:
    created = api.post("/games", json=a_game(options={"special_squares": {}})).json()
    record = api.get(f"/games/{created['id']}/export").json()
    record["events"] = record["events"][:1]
    record["events"][0]["data"]["options"] = record["options"] = ALL_RED
    reply = api.post("/games/import", json=rehash(record))
    expect_problem(reply, 422, "invalid-record", "event 1", "could never end")
    assert len(api.get("/games").json()["games"]) == 1

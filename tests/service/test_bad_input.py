"""Every kind of bad input gets its own 4xx problem and appends nothing."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient

from tests.service.conftest import auth, create

PROBLEM = "https://tabula.dev/problems/"


def expect_problem(reply: Any, status: int, slug: str, *words: str) -> dict[str, Any]:
    assert reply.status_code == status, reply.text
    assert reply.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = reply.json()
    assert body["type"] == PROBLEM + slug
    assert body["status"] == status
    for word in words:
        assert word in body["detail"]
    return body


def versions(api: TestClient[Any], game_id: str) -> int:
    version: int = api.get(f"/games/{game_id}").json()["version"]
    return version


def test_malformed_json_is_400(api: TestClient[Any]) -> None:
    reply = api.post(
        "/games", content=b'{"ruleset": ', headers={"content-type": "application/json"}
    )
    expect_problem(reply, 400, "malformed-request")
    assert api.get("/games").json()["games"] == []


def test_unknown_ruleset_names_the_known_ones(api: TestClient[Any]) -> None:
    reply = api.post("/games", json={"ruleset": "chess", "seats": [{}, {}]})
    expect_problem(reply, 400, "unknown-ruleset", "'chess'", "race35")


@pytest.mark.parametrize("players", [1, 7])
def test_wrong_player_count_is_422(api: TestClient[Any], players: int) -> None:
    reply = api.post("/games", json={"ruleset": "race35", "seats": [{}] * players})
    expect_problem(reply, 422, "bad-setup", str(players))
    assert api.get("/games").json()["games"] == []


def test_unknown_option_is_422(api: TestClient[Any]) -> None:
    body = {"ruleset": "race35", "seats": [{}, {}], "options": {"turbo": True}}
    expect_problem(api.post("/games", json=body), 422, "bad-setup", "'turbo'")


def test_bad_option_value_is_422(api: TestClient[Any]) -> None:
    body = {"ruleset": "race35", "seats": [{}, {}], "options": {"special_squares": {"35": "red"}}}
    expect_problem(api.post("/games", json=body), 422, "bad-setup", "'35'")


def test_unknown_field_is_400(api: TestClient[Any]) -> None:
    body = {"ruleset": "race35", "seats": [{}, {}], "colour": "red"}
    expect_problem(api.post("/games", json=body), 400, "validation-failed", "colour")


def test_unknown_game_is_404(api: TestClient[Any]) -> None:
    for path in ("/games/nope", "/games/nope/legal-moves", "/games/nope/events"):
        expect_problem(api.get(path), 404, "game-not-found", "'nope'")
    expect_problem(api.post("/games/nope/moves", json={"move": "roll"}), 404, "game-not-found")


def test_missing_token_is_401(api: TestClient[Any]) -> None:
    created = create(api)
    reply = api.post(f"/games/{created['id']}/moves", json={"move": "roll"})
    expect_problem(reply, 401, "unauthorized")
    assert versions(api, created["id"]) == created["version"]


def test_wrong_token_and_another_games_token_are_401(api: TestClient[Any]) -> None:
    created, other = create(api), create(api)
    for token in ("not-a-token", other["tokens"]["seats"][0], other["tokens"]["referee"]):
        reply = api.post(
            f"/games/{created['id']}/moves", json={"move": "roll"}, headers=auth(token)
        )
        expect_problem(reply, 401, "unauthorized")
    expect_problem(api.get(f"/games/{created['id']}", headers=auth("x")), 401, "unauthorized")
    assert versions(api, created["id"]) == created["version"]


def test_seat_acting_out_of_turn_is_409(api: TestClient[Any]) -> None:
    created = create(api)
    reply = api.post(
        f"/games/{created['id']}/moves",
        json={"move": "roll"},
        headers=auth(created["tokens"]["seats"][1]),
    )
    expect_problem(reply, 409, "not-your-turn", "seat 0 (roll)")
    assert versions(api, created["id"]) == created["version"]


def test_a_seat_cannot_play_for_another_seat(api: TestClient[Any]) -> None:
    created = create(api)
    body = {"move": "roll", "seat": 0}
    reply = api.post(
        f"/games/{created['id']}/moves", json=body, headers=auth(created["tokens"]["seats"][1])
    )
    expect_problem(reply, 403, "forbidden")


def test_unknown_move_says_why(api: TestClient[Any]) -> None:
    created = create(api)
    token = auth(created["tokens"]["seats"][0])
    reply = api.post(f"/games/{created['id']}/moves", json={"move": "fly:6"}, headers=token)
    expect_problem(reply, 422, "illegal-move", "'fly:6'", "roll")
    steps = {"steps": [{"piece": "red-1", "from": "track:1", "to": "track:7"}]}
    reply = api.post(f"/games/{created['id']}/moves", json=steps, headers=token)
    expect_problem(reply, 422, "illegal-move", "red-1 track:1>track:7")
    reply = api.post(f"/games/{created['id']}/moves", json={}, headers=token)
    expect_problem(reply, 400, "validation-failed", "exactly one")
    assert versions(api, created["id"]) == created["version"]


def test_stale_expected_version_is_409(api: TestClient[Any]) -> None:
    created = create(api)
    token = auth(created["tokens"]["seats"][0])
    body = {"move": "roll", "expected_version": created["version"] - 1 or 99}
    reply = api.post(f"/games/{created['id']}/moves", json=body, headers=token)
    problem = expect_problem(reply, 409, "version-conflict", "expected_version")
    assert problem["current_version"] == created["version"]
    assert versions(api, created["id"]) == created["version"]


def test_moves_on_a_finished_game_are_409(api: TestClient[Any]) -> None:
    created = create(api, auto_chance=True)
    reply = api.post(
        f"/games/{created['id']}/moves",
        json={"move": "roll"},
        headers=auth(created["tokens"]["referee"]),
    )
    expect_problem(reply, 409, "game-over")


def test_oversized_body_is_413(api: TestClient[Any]) -> None:
    body = b'{"ruleset": "race35", "seats": [' + b'{"name": "x"},' * 10_000 + b"{}]}"
    reply = api.post("/games", content=body, headers={"content-type": "application/json"})
    expect_problem(reply, 413, "payload-too-large")
    assert api.get("/games").json()["games"] == []


@pytest.mark.parametrize("at", [-1, 0, 10_000])
def test_state_at_out_of_range_is_400(api: TestClient[Any], at: int) -> None:
    created = create(api)
    reply = api.get(f"/games/{created['id']}/state", params={"at": at})
    expect_problem(reply, 400, "out-of-range", f"at={at}")


def test_negative_after_is_400(api: TestClient[Any]) -> None:
    created = create(api)
    reply = api.get(f"/games/{created['id']}/events", params={"after": -1})
    expect_problem(reply, 400, "validation-failed")


@pytest.mark.parametrize("route", ["events", "events/stream"])
@pytest.mark.parametrize("after", [2, 2**64 + 7])
def test_after_past_the_log_is_400(api: TestClient[Any], route: str, after: int) -> None:
    created = create(api)
    reply = api.get(f"/games/{created['id']}/{route}", params={"after": after})
    expect_problem(reply, 400, "out-of-range", f"after={after}", "version 1")


def test_last_event_id_past_the_log_is_400(api: TestClient[Any]) -> None:
    created = create(api)
    headers = {"Last-Event-ID": str(2**70)}
    reply = api.get(f"/games/{created['id']}/events/stream", headers=headers)
    expect_problem(reply, 400, "out-of-range", "past this game's version")


@pytest.mark.parametrize("seat", [3, 2**64 - 1, -1, -843])
def test_referee_naming_a_seat_that_does_not_exist_is_400(api: TestClient[Any], seat: int) -> None:
    created = create(api)
    body = {"move": "roll", "seat": seat}
    reply = api.post(
        f"/games/{created['id']}/moves", json=body, headers=auth(created["tokens"]["referee"])
    )
    expect_problem(reply, 400, "validation-failed", "seats are numbered 0 to 2")
    assert versions(api, created["id"]) == created["version"]


def test_malformed_authorization_header_is_401(api: TestClient[Any]) -> None:
    created = create(api)
    reply = api.post(
        f"/games/{created['id']}/moves",
        json={"move": "roll"},
        headers={"Authorization": "Basic abc"},
    )
    expect_problem(reply, 401, "unauthorized", "Bearer")


@pytest.mark.parametrize("games", [None, {}, "tables"])
def test_batch_whose_games_is_not_a_list_is_400(api: TestClient[Any], games: Any) -> None:
    # Litestar calls a bad body field named like a dependency ("games") a 500; found by fuzzing
    reply = api.post("/games/batch", json={"games": games})
    expect_problem(reply, 400, "validation-failed", "$.games")
    assert api.get("/games").json()["games"] == []

"""Every kind of bad input gets its own 4xx problem and appends nothing."""

from __future__ import annotations

from collections.abc import Iterator
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
    problem = expect_problem(reply, 400, "unknown-ruleset", "`chess`", "`race35`")
    assert problem["pointer"] == "/ruleset"
    assert "race35" in problem["allowed"] and "sorry-hand" in problem["allowed"]


@pytest.mark.parametrize("players", [1, 7])
def test_wrong_player_count_is_422(api: TestClient[Any], players: int) -> None:
    reply = api.post("/games", json={"ruleset": "race35", "seats": [{}] * players})
    expect_problem(reply, 422, "bad-setup", str(players))
    assert api.get("/games").json()["games"] == []


def test_unknown_option_is_400(api: TestClient[Any]) -> None:
    body = {"ruleset": "race35", "seats": [{}, {}], "options": {"turbo": True}}
    expect_problem(api.post("/games", json=body), 400, "validation-failed", "'turbo'")


def test_bad_option_value_is_400(api: TestClient[Any]) -> None:
    body = {"ruleset": "race35", "seats": [{}, {}], "options": {"special_squares": {"35": "red"}}}
    expect_problem(api.post("/games", json=body), 400, "validation-failed", "'35'")


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
    expect_problem(reply, 409, "not-your-turn", "seat 1 (roll)")
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
    expect_problem(reply, 400, "validation-failed", "a `seat` is 0 to 2 here (seats 1 to 3)")
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
    expect_problem(reply, 400, "validation-failed", "`games`")
    assert api.get("/games").json()["games"] == []


# --- bodies: JSON only, not too deep, no repeated keys (service/api/bodies.py) ----------------

JSON_HEADERS = {"content-type": "application/json"}


def write_routes(api: TestClient[Any]) -> list[tuple[str, dict[str, str]]]:
    """Every route that takes a JSON body, on a real game, with the referee's token."""
    created = create(api)
    referee = auth(created["tokens"]["referee"])
    game = f"/games/{created['id']}"
    routes = ["/games", "/games/batch", "/games/import"]
    routes += [f"{game}/{route}" for route in ("moves", "undo", "chance", "adjudicate")]
    return [(route, referee) for route in routes]


def nested(depth: int) -> bytes:
    """A JSON text nesting ``depth`` arrays and objects, alternately."""
    opening = b"".join(b"[" if level % 2 else b'{"a":' for level in range(depth))
    closing = b"".join(b"]" if level % 2 else b"}" for level in reversed(range(depth)))
    return opening + b"1" + closing


def stored_counts(api: TestClient[Any]) -> list[tuple[str, int]]:
    return [(game["id"], game["version"]) for game in api.get("/games").json()["games"]]


@pytest.mark.parametrize("depth", [65, 950, 10_000])
def test_too_deep_bodies_are_400_on_every_json_route(api: TestClient[Any], depth: int) -> None:
    routes = write_routes(api)
    before = stored_counts(api)
    for route, headers in routes:
        for body in (nested(depth), b"[" * depth + b"]" * depth):
            reply = api.post(route, content=body, headers=JSON_HEADERS | headers)
            expect_problem(reply, 400, "malformed-request", "deeper than 64 levels")
    assert stored_counts(api) == before


def test_64_levels_are_fine_and_brackets_in_strings_do_not_count(api: TestClient[Any]) -> None:
    options = b'{"ruleset": "race35", "seats": [{}, {}], "options": ' + nested(63) + b"}"
    reply = api.post("/games", content=options, headers=JSON_HEADERS)
    expect_problem(reply, 400, "validation-failed", "unknown option 'a'")  # decoded: 64 levels
    too_deep = b'{"ruleset": "race35", "seats": [{}, {}], "options": ' + nested(64) + b"}"
    reply = api.post("/games", content=too_deep, headers=JSON_HEADERS)
    expect_problem(reply, 400, "malformed-request", "deeper than 64 levels")
    note = '\\"[{' * 300 + "\\\\"  # brackets and escaped quotes inside a string
    body = '{"ruleset": "race35", "seats": [{}, {"name": "]}"}], "tags": {"n": "' + note + '"}}'
    reply = api.post("/games", content=body.encode(), headers=JSON_HEADERS)
    assert reply.status_code == 201, reply.text
    (game,) = api.get("/games").json()["games"]
    assert game["tags"]["n"] == '"[{' * 300 + "\\"


def test_unbalanced_brackets_are_400(api: TestClient[Any]) -> None:
    for body in (b"[" * 5000, b'{"a": ' + b"[" * 100 + b"]" * 99 + b"}"):
        reply = api.post("/games", content=body, headers=JSON_HEADERS)
        expect_problem(reply, 400, "malformed-request")
    assert api.get("/games").json()["games"] == []


@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonp",
        "text/json",
        "application/xml",
    ],
)
def test_writes_that_are_not_json_are_415(api: TestClient[Any], content_type: str | None) -> None:
    routes = write_routes(api)
    before = stored_counts(api)
    body = b'{"ruleset": "race35", "seats": [{}, {}]}'
    for route, headers in routes:
        if content_type is not None:
            headers = headers | {"content-type": content_type}
        reply = api.post(route, content=body, headers=headers)
        given = repr(content_type) if content_type else "none"
        expect_problem(reply, 415, "unsupported-media-type", "application/json", given)
    assert stored_counts(api) == before


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/problem+json",
        "application/vnd.tabula+json; version=1",
    ],
)
def test_json_content_types_are_taken(api: TestClient[Any], content_type: str) -> None:
    body = b'{"ruleset": "race35", "seats": [{}, {}]}'
    reply = api.post("/games", content=body, headers={"content-type": content_type})
    assert reply.status_code == 201, reply.text


def test_reads_need_no_content_type(api: TestClient[Any]) -> None:
    created = create(api)
    reply = api.get(f"/games/{created['id']}", headers={"content-type": "text/plain"})
    assert reply.status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        b'{"move": "fly", "move": "roll"}',
        b'{"move": "roll", "expected_version": 1, "expected_version": 1}',
        b'{"move": "roll", "mo\\u0076e": "roll"}',  # the same key, spelt with an escape
        b'{"steps": [{"piece": "red-1", "from": "track:1", "to": "track:2", "to": "x"}]}',
    ],
)
def test_repeated_keys_are_400(api: TestClient[Any], body: bytes) -> None:
    created = create(api)
    headers = JSON_HEADERS | auth(created["tokens"]["seats"][0])
    reply = api.post(f"/games/{created['id']}/moves", content=body, headers=headers)
    expect_problem(reply, 400, "malformed-request", "repeats the key")
    assert versions(api, created["id"]) == created["version"]


def test_a_repeated_key_is_named_and_siblings_may_share_keys(api: TestClient[Any]) -> None:
    body = b'{"ruleset": "race35", "seats": [{"name": "A"}, {"name": "B", "name": "C"}]}'
    reply = api.post("/games", content=body, headers=JSON_HEADERS)
    expect_problem(reply, 400, "malformed-request", "repeats the key 'name'")
    body = b'{"ruleset": "race35", "seats": [{"name": "A"}, {"name": "B"}], "tags": {"name": "x"}}'
    assert api.post("/games", content=body, headers=JSON_HEADERS).status_code == 201


def test_an_echoed_long_move_id_is_cut_short(api: TestClient[Any]) -> None:
    created = create(api)
    headers = auth(created["tokens"]["seats"][0])
    reply = api.post(f"/games/{created['id']}/moves", json={"move": "x" * 60_000}, headers=headers)
    problem = expect_problem(reply, 422, "illegal-move", "'" + "x" * 99 + "\u2026")
    assert len(problem["detail"]) < 400 and len(reply.content) < 1000
    spaced = "x " * 30_000
    reply = api.post(f"/games/{created['id']}/moves", json={"move": spaced}, headers=headers)
    problem = expect_problem(reply, 422, "illegal-move")
    assert len(problem["detail"]) <= 4001 and problem["detail"].endswith("\u2026")


@pytest.mark.parametrize("last_event_id", [b"1\xb2", b"\xd9\xa3", b"-1", b"1 2", b""])
def test_a_last_event_id_that_is_not_ascii_digits_is_400(
    api: TestClient[Any], last_event_id: bytes
) -> None:
    created = create(api)
    headers = {b"Last-Event-ID": last_event_id}  # raw bytes: sent as they are
    reply = api.get(f"/games/{created['id']}/events/stream", headers=headers)
    expect_problem(reply, 400, "validation-failed", "Last-Event-ID")


def test_a_body_streamed_without_a_length_is_held_to_the_limit(api: TestClient[Any]) -> None:
    def chunks(body: bytes) -> Iterator[bytes]:
        for start in range(0, len(body), 1000):
            yield body[start : start + 1000]

    big = b'{"ruleset": "race35", "seats": [' + b'{"name": "x"},' * 10_000 + b"{}]}"
    reply = api.post("/games", content=chunks(big), headers=JSON_HEADERS)
    expect_problem(reply, 413, "payload-too-large")
    assert api.get("/games").json()["games"] == []
    small = b'{"ruleset": "race35", "seats": [' + b'{"name": "x"},' * 4 + b"{}]}"
    assert api.post("/games", content=chunks(small), headers=JSON_HEADERS).status_code == 201

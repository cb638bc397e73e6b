"""The I/O-free base: requests built for each route, responses and problems parsed."""

from __future__ import annotations

import json
from typing import Any

import httpx
import msgspec
import pytest
from tabula_client import (
    BadRequest,
    BearerAuth,
    Call,
    Client,
    Conflict,
    Forbidden,
    Move,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    Routes,
    ServerError,
    Step,
    TabulaError,
    Unauthorized,
    Unprocessable,
)
from tabula_client.wire import Race35View

BASE = "https://tabula.example/api"
PROBLEM_HEADERS = {"content-type": "application/problem+json"}


def body(request: httpx.Request) -> Any:
    return json.loads(request.content)


def authorization(call: Call[Any]) -> str | None:
    """The Authorization header ``call`` is sent with (its ``httpx.Auth`` adds it)."""
    if call.auth is None:
        return None
    return next(call.auth.sync_auth_flow(call.request)).headers.get("authorization")


def problem_response(status: int, slug: str, detail: str, **extra: Any) -> httpx.Response:
    """A response shaped like the service's problems."""
    problem = {
        "type": f"https://tabula.dev/problems/{slug}",
        "title": slug.replace("-", " ").capitalize(),
        "status": status,
        "detail": detail,
        "instance": "/games/g1/moves",
        **extra,
    }
    return httpx.Response(status, content=json.dumps(problem).encode(), headers=PROBLEM_HEADERS)


def test_create_game_request_names_seats_and_options() -> None:
    call = Routes(BASE, token="t0").create_game(
        "race35", ["Ann", "Bob"], options={"max_players": 4}, seed="s", tags={"cup": "a"}
    )
    assert call.request.method == "POST"
    assert str(call.request.url) == BASE + "/games"
    assert isinstance(call.auth, BearerAuth)
    assert authorization(call) == "Bearer t0"
    assert call.request.headers["content-type"] == "application/json"
    assert body(call.request) == {
        "ruleset": "race35",
        "seats": [{"name": "Ann"}, {"name": "Bob"}],
        "options": {"max_players": 4},
        "chance": "server",
        "seed": "s",
        "auto_chance": False,
        "allow_undo": False,
        "tags": {"cup": "a"},
    }


def test_create_game_without_seed_sends_no_seed() -> None:
    assert "seed" not in body(Routes(BASE).create_game("race35", ["A", "B"]).request)


def test_a_misspelt_game_setting_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="alow_undo"):
        Routes(BASE).create_game("race35", ["A", "B"], alow_undo=True)  # type: ignore[call-arg]


def test_reads_without_token_send_no_authorization() -> None:
    call = Routes(BASE).game("g1")
    assert call.request.method == "GET"
    assert call.auth is None and "authorization" not in call.request.headers


def test_with_token_changes_only_the_token() -> None:
    routes = Routes(BASE + "/", timeout=3.0).with_token("seat-1")
    call = routes.legal_moves("g1")
    assert str(call.request.url) == BASE + "/games/g1/legal-moves"
    assert authorization(call) == "Bearer seat-1"
    assert call.request.extensions["timeout"]["read"] == 3.0


def test_game_id_is_quoted_into_the_path() -> None:
    assert Routes(BASE).game("a/b c").request.url.raw_path == b"/api/games/a%2Fb%20c"


def test_query_parameters_skip_missing_filters() -> None:
    assert Routes(BASE).list_games(tag="cup:a").request.url.params == httpx.QueryParams(
        {"tag": "cup:a"}
    )
    assert Routes(BASE).events("g1", after=5).request.url.params == httpx.QueryParams({"after": 5})
    assert Routes(BASE).events("g1", 5, 10).request.url.params["limit"] == "10"
    assert Routes(BASE).state("g1", 0).request.url.params["at"] == "0"


def test_play_with_a_move_object_sends_its_id_and_the_idempotency_key() -> None:
    move = Move(id="roll", seat=0)
    call = Routes(BASE, token="t").play("g1", move, expected_version=12, idempotency_key="k-1")
    assert call.request.url.path == "/api/games/g1/moves"
    assert call.request.headers["idempotency-key"] == "k-1"
    assert body(call.request) == {"move": "roll", "expected_version": 12}


def test_play_with_steps_and_referee_seat() -> None:
    steps = [Step(piece="red-1", from_="start", to="track:4")]
    call = Routes(BASE, token="ref").play("g1", steps=steps, seat=2)
    assert body(call.request) == {
        "steps": [{"piece": "red-1", "from": "start", "to": "track:4"}],
        "seat": 2,
    }
    assert "idempotency-key" not in call.request.headers


@pytest.mark.parametrize("move, steps", [(None, None), ("roll", [])])
def test_play_needs_exactly_one_of_move_and_steps(move: str | None, steps: list[Step]) -> None:
    with pytest.raises(ValueError, match="either a move id or its steps"):
        Routes(BASE).play("g1", move, steps=steps)


def test_state_view_decodes_as_its_rule_sets_variant() -> None:
    view = {
        "game_id": "g1",
        "ruleset": "race35",
        "version": 3,
        "status": "active",
        "seats": [{"seat": 0, "name": "Ann", "colour": "red"}],
        "pieces": [{"id": "red-1", "seat": 0, "at": "track:12"}],
        "to_act": [{"seat": 0, "kind": "roll"}],
        "chance": {"dice": [3, 5]},
        "winners": [],
        "statuses": [{"seat": 0, "skip_turns": 1, "waiting": False}],
        "from_a_newer_server": True,
    }
    parsed = Routes(BASE).game("g1").parse(httpx.Response(200, json=view))
    assert isinstance(parsed, Race35View)
    assert parsed.ruleset == "race35"
    assert parsed.pieces[0].at == "track:12"
    assert parsed.chance is not None and parsed.chance.dice == [3, 5]
    assert parsed.statuses[0].skip_turns == 1
    assert parsed.seat_name(0) == "Ann" and parsed.seat_name(3) == "seat 3"
    assert not parsed.is_finished


def test_an_unknown_rule_set_view_is_a_validation_error() -> None:
    view = {"ruleset": "chess", "status": "active", "chance": None, "pieces": [], "to_act": []}
    with pytest.raises(msgspec.ValidationError, match="Invalid value 'chess'"):
        Routes(BASE).game("g1").parse(httpx.Response(200, json=view))


def test_legal_moves_parse_steps_and_effects_with_from() -> None:
    reply = {
        "version": 12,
        "moves": [
            {
                "id": "m1",
                "seat": 0,
                "uses": "7",
                "steps": [{"piece": "red-1", "from": "track:3", "to": "track:10"}],
                "effects": [{"piece": "blue-2", "from": "track:10", "to": "start", "why": "bump"}],
                "novel": True,
            }
        ],
    }
    legal = Routes(BASE).legal_moves("g1").parse(httpx.Response(200, json=reply))
    move = legal.moves[0]
    assert (move.uses, move.steps[0].from_, move.effects[0].why) == ("7", "track:3", "bump")


@pytest.mark.parametrize(
    "status, slug, error",
    [
        (400, "validation-failed", BadRequest),
        (400, "unknown-ruleset", BadRequest),
        (401, "unauthorized", Unauthorized),
        (403, "forbidden", Forbidden),
        (404, "game-not-found", NotFound),
        (409, "not-your-turn", Conflict),
        (413, "payload-too-large", PayloadTooLarge),
        (422, "illegal-move", Unprocessable),
        (500, "internal-error", ServerError),
        (405, "method-not-allowed", TabulaError),
    ],
)
def test_problem_status_chooses_the_error_class(
    status: int, slug: str, error: type[TabulaError]
) -> None:
    call = Routes(BASE).play("g1", "roll")
    with pytest.raises(error) as raised:
        call.parse(problem_response(status, slug, "why it failed"))
    assert type(raised.value) is error
    assert raised.value.status == status
    assert raised.value.problem.slug == slug
    assert str(raised.value) == f"{status} {slug}: why it failed"


def test_version_conflict_keeps_extra_members() -> None:
    response = problem_response(409, "version-conflict", "expected 3, at 5", current_version=5)
    with pytest.raises(Conflict) as raised:
        Routes(BASE).play("g1", "roll", expected_version=3).parse(response)
    assert raised.value.problem.extra == {"current_version": 5}
    assert raised.value.problem.instance == "/games/g1/moves"
    assert raised.value.detail == "expected 3, at 5"


def test_rate_limited_reads_retry_after() -> None:
    response = problem_response(429, "rate-limited", "slow down")
    response.headers["Retry-After"] = "7"
    with pytest.raises(RateLimited) as raised:
        Routes(BASE).health().parse(response)
    assert raised.value.retry_after == 7.0
    from_member = problem_response(429, "rate-limited", "slow down", retry_after=2.5)
    with pytest.raises(RateLimited) as raised:
        Routes(BASE).health().parse(from_member)
    assert raised.value.retry_after == 2.5


def test_an_error_without_a_problem_body_still_raises_by_status() -> None:
    response = httpx.Response(502, text="<html>Bad Gateway</html>")
    with pytest.raises(ServerError) as raised:
        Routes(BASE).health().parse(response)
    assert raised.value.problem.title == "Bad Gateway"
    assert "Bad Gateway" in raised.value.detail


def test_client_and_its_token_clones_share_one_pool() -> None:
    seen: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("authorization"))
        return httpx.Response(200, json={"status": "ok"})

    with Client(BASE, transport=httpx.MockTransport(handler)) as client:
        seat = client.with_token("s0")
        assert client.health().status == "ok"
        assert seat.health().status == "ok"
        seat.close()  # a clone does not close the shared pool
        assert client.health().status == "ok"
    assert seen == [None, "Bearer s0", None]

"""Every 400 for a body or a query names the bad value's place: the detail starts with its
path (`` `seats[0]`: ``), ``pointer`` is its JSON Pointer in the body (``parameter`` names a
query parameter), ``allowed`` lists a fixed set's values; 413s name the limit and its setting
(issue 17, item 4). Run end to end against the real app."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from msgspec import inspect

from domain.registry import RULESETS
from service.app import create_app
from service.core.commands import (
    MAX_NAME,
    Adjudicate,
    CancelTable,
    CreateBatch,
    CreateGame,
    DeclineInvitation,
    JoinTable,
    LeaveTable,
    PlayMove,
    PostChance,
    SeatToBot,
    StartTable,
    Undo,
)
from service.core.fields import pointer, written
from service.settings import Settings
from service.usecases.games.records import GameRecord
from service.usecases.games.rematch import AskRematch
from service.usecases.players.wire import KeyRequest, Register
from service.usecases.seeks.wire import PostSeek
from service.usecases.tournaments.wire import CreateTournament, PairRound, Withdraw
from tests.service.api.test_bad_input import expect_problem
from tests.service.conftest import auth, create

REPR = re.compile(r"\{'|\['|\(ParamType|\$\.")  # a Python dict or list, or a raw msgspec path


@pytest.fixture
def api(tmp_path: Path) -> Iterator[TestClient[Any]]:
    """The app without the creation and import budgets (the sweep sends many bodies)."""
    settings = Settings(
        database=str(tmp_path / "tabula.db"), log_level="warning", create_rate=0, import_rate=0
    )
    with TestClient(create_app(settings)) as client:
        yield client


def refused(reply: Any, status: int, slug: str, path: str, point: str) -> dict[str, Any]:
    """The problem, checked to name ``path`` first in its detail and ``point`` as pointer."""
    problem = expect_problem(reply, status, slug)
    assert problem["detail"].startswith(f"`{path}`: "), problem
    assert problem["pointer"] == point, problem
    assert not REPR.search(problem["detail"]), problem
    return problem


def external(api: TestClient[Any], ruleset: str, players: int) -> tuple[str, dict[str, str]]:
    created = create(api, ruleset, players=players, chance="external")
    return f"/games/{created['id']}/chance", auth(created["tokens"]["referee"])


def versions(api: TestClient[Any], route: str) -> int:
    version: int = api.get(route.rsplit("/", 1)[0]).json()["version"]
    return version


# --- bodies -------------------------------------------------------------------------------


def test_a_seat_that_is_not_an_object_names_seats_0(api: TestClient[Any]) -> None:
    reply = api.post("/games", json={"ruleset": "race35", "seats": ["Ann", "Bob"]})
    problem = refused(reply, 400, "validation-failed", "seats[0]", "/seats/0")
    assert "expected `object`, got `str`" in problem["detail"]
    assert "allowed" not in problem


def test_a_seat_name_that_is_not_a_string_names_seats_1_name(api: TestClient[Any]) -> None:
    reply = api.post("/games", json={"ruleset": "race35", "seats": [{}, {"name": 7}]})
    refused(reply, 400, "validation-failed", "seats[1].name", "/seats/1/name")


def test_an_unknown_chance_mode_lists_server_and_external(api: TestClient[Any]) -> None:
    body = {"ruleset": "race35", "seats": [{}, {}], "chance": "dice"}
    problem = refused(api.post("/games", json=body), 400, "validation-failed", "chance", "/chance")
    assert sorted(problem["allowed"]) == ["external", "server"]
    assert "`server`" in problem["detail"] and "`external`" in problem["detail"]


def test_an_unknown_ruleset_lists_every_rule_set(api: TestClient[Any]) -> None:
    reply = api.post("/games", json={"ruleset": "chess", "seats": [{}, {}]})
    problem = refused(reply, 400, "unknown-ruleset", "ruleset", "/ruleset")
    assert problem["allowed"] == sorted(RULESETS)


def test_an_unknown_ruleset_in_a_batch_points_into_its_table(api: TestClient[Any]) -> None:
    good = {"ruleset": "race35", "seats": [{}, {}]}
    reply = api.post("/games/batch", json={"games": [good, {**good, "ruleset": "go"}]})
    problem = expect_problem(reply, 400, "unknown-ruleset", "table 1", "`go`")
    assert problem["pointer"] == "/games/1/ruleset"
    assert problem["allowed"] == sorted(RULESETS)
    assert api.get("/games").json()["games"] == []


def test_an_unknown_clock_consequence_lists_the_consequences(api: TestClient[Any]) -> None:
    clock = {"per_decision": 30, "on_timeout": "shrug"}
    body = {"ruleset": "race35", "seats": [{}, {}], "clock": clock}
    reply = api.post("/games", json=body)
    problem = refused(reply, 400, "validation-failed", "clock.on_timeout", "/clock/on_timeout")
    for consequence in ("`pass`", "`random_move`", "`forfeit`", "`bot:<level>`"):
        assert consequence in problem["detail"]


def test_an_unknown_adjudication_kind_lists_the_kinds(api: TestClient[Any]) -> None:
    created = create(api)
    route = f"/games/{created['id']}/adjudicate"
    reply = api.post(
        route, json={"kind": "win", "reason": "r"}, headers=auth(created["tokens"]["referee"])
    )
    problem = refused(reply, 400, "validation-failed", "kind", "/kind")
    assert sorted(problem["allowed"]) == ["agreement", "forfeit", "penalty"]


def test_a_tag_value_that_is_not_a_string_points_at_the_tags(api: TestClient[Any]) -> None:
    # msgspec does not say which key of a map: the detail says `tags[...]`, the pointer the map
    body = {"ruleset": "race35", "seats": [{}, {}], "tags": {"round": 1}}
    refused(api.post("/games", json=body), 400, "validation-failed", "tags[...]", "/tags")


def test_a_missing_field_is_named(api: TestClient[Any]) -> None:
    reply = api.post("/games", json={"seats": [{}, {}]})
    problem = refused(reply, 400, "validation-failed", "ruleset", "/ruleset")
    assert "missing" in problem["detail"]


def test_an_unknown_field_is_named_with_the_known_ones(api: TestClient[Any]) -> None:
    reply = api.post("/games", json={"ruleset": "race35", "seats": [{"nickname": "A"}, {}]})
    problem = refused(reply, 400, "validation-failed", "seats[0].nickname", "/seats/0/nickname")
    assert "`name`" in problem["detail"]


def test_a_body_that_is_not_an_object_is_the_body(api: TestClient[Any]) -> None:
    problem = expect_problem(api.post("/games", json=[1, 2]), 400, "validation-failed")
    assert problem["detail"].startswith("the body: expected `object`")
    assert problem["pointer"] == ""


@pytest.mark.parametrize("route", ["moves", "undo", "chance", "adjudicate"])
def test_expected_version_as_a_string_is_refused(api: TestClient[Any], route: str) -> None:
    created = create(api, chance="external")
    body: dict[str, Any] = {
        "moves": {"move": "roll"},
        "undo": {"reason": "r"},
        "chance": {"dice": [3]},
        "adjudicate": {"kind": "penalty", "reason": "r"},
    }[route]
    path = f"/games/{created['id']}/{route}"
    reply = api.post(
        path, json={**body, "expected_version": "1"}, headers=auth(created["tokens"]["referee"])
    )
    refused(reply, 400, "validation-failed", "expected_version", "/expected_version")
    assert versions(api, path) == created["version"]


def test_a_seat_name_over_64_characters_is_refused(api: TestClient[Any]) -> None:
    assert MAX_NAME == 64
    longest = {"ruleset": "race35", "seats": [{"name": "a" * 64}, {"name": "é" * 64}]}
    assert api.post("/games", json=longest).status_code == 201
    over = {"ruleset": "race35", "seats": [{}, {"name": "a" * 65}]}
    problem = refused(
        api.post("/games", json=over), 400, "validation-failed", "seats[1].name", "/seats/1/name"
    )
    assert "64" in problem["detail"]
    document = api.get("/schema/openapi.json").json()
    assert document["components"]["schemas"]["SeatSpec"]["properties"]["name"]["maxLength"] == 64


@pytest.mark.parametrize("name", ["a\x01b", "tab\there", "line\n", "del\x7f", "c1\x85"])
def test_a_name_with_a_control_character_is_refused(api: TestClient[Any], name: str) -> None:
    """A control character would make the board's SVG ill-formed XML (and a page odd)."""
    seats = {"ruleset": "race35", "seats": [{"name": name}, {"name": "Bob"}]}
    problem = refused(
        api.post("/games", json=seats), 400, "validation-failed", "seats[0].name", "/seats/0/name"
    )
    assert "control character" in problem["detail"], problem
    players = [{"name": "Ann"}, {"name": name}]
    tournament = {"name": "Cup", "ruleset": "race35", "players": players}
    refused(
        api.post("/tournaments", json=tournament),
        400,
        "validation-failed",
        "players[1].name",
        "/players/1/name",
    )
    assert api.get("/games").json()["games"] == []  # nothing was created
    printable = [{"name": "Zoë <&> ☃ 名"}, {"name": "Bob"}]
    created = api.post("/games", json={"ruleset": "race35", "seats": printable})
    assert created.status_code == 201
    board = api.get(f"/games/{created.json()['id']}/board.svg").text
    assert "Zoë &lt;&amp;&gt; ☃ 名" in board


# --- external chance ------------------------------------------------------------------------


def test_a_wrong_number_of_dice_is_400_naming_dice(api: TestClient[Any]) -> None:
    route, referee = external(api, "race35", 2)
    problem = refused(
        api.post(route, json={"dice": [1, 2]}, headers=referee),
        400,
        "validation-failed",
        "dice",
        "/dice",
    )
    assert "1 die" in problem["detail"] and "not 2" in problem["detail"]
    assert versions(api, route) == 1


def test_a_die_off_one_to_six_names_its_index(api: TestClient[Any]) -> None:
    route, referee = external(api, "race35", 2)
    problem = refused(
        api.post(route, json={"dice": [7]}, headers=referee),
        400,
        "validation-failed",
        "dice[0]",
        "/dice/0",
    )
    assert "1 to 6" in problem["detail"]


def test_a_card_for_a_dice_game_is_400_naming_dice(api: TestClient[Any]) -> None:
    route, referee = external(api, "parchis", 2)
    problem = refused(
        api.post(route, json={"card": "7"}, headers=referee),
        400,
        "validation-failed",
        "dice",
        "/dice",
    )
    assert "must roll" in problem["detail"]


def test_dice_for_a_card_game_is_400_naming_card(api: TestClient[Any]) -> None:
    route, referee = external(api, "sorry", 2)
    problem = refused(
        api.post(route, json={"dice": [3]}, headers=referee),
        400,
        "validation-failed",
        "card",
        "/card",
    )
    assert "1" in problem["allowed"] and "sorry" in problem["allowed"]


def test_a_card_not_in_the_pile_is_422_listing_the_pile(api: TestClient[Any]) -> None:
    route, referee = external(api, "sorry", 2)
    problem = refused(
        api.post(route, json={"card": "6"}, headers=referee), 422, "illegal-move", "card", "/card"
    )
    assert "6" not in problem["allowed"] and "1" in problem["allowed"]
    assert "`1`" in problem["detail"]


def test_a_wrong_number_of_hands_is_400_naming_hands(api: TestClient[Any]) -> None:
    route, referee = external(api, "partners", 4)
    problem = refused(
        api.post(route, json={"hands": [["N1"]]}, headers=referee),
        400,
        "validation-failed",
        "hands",
        "/hands",
    )
    assert "4 lists of 4 cards" in problem["detail"]
    short = [["N1"] * 4] * 3 + [["N1"]]
    refused(
        api.post(route, json={"hands": short}, headers=referee),
        400,
        "validation-failed",
        "hands[3]",
        "/hands/3",
    )


def test_a_dealt_card_not_in_the_pile_names_its_place(api: TestClient[Any]) -> None:
    route, referee = external(api, "partners", 4)
    hands = [["ZZ"] * 4] * 4
    refused(
        api.post(route, json={"hands": hands}, headers=referee),
        422,
        "illegal-move",
        "hands[0][0]",
        "/hands/0/0",
    )


# --- query parameters ---------------------------------------------------------------------


def parameter_problem(reply: Any, status: int, slug: str, name: str) -> dict[str, Any]:
    problem = expect_problem(reply, status, slug)
    assert problem["parameter"] == name, problem
    assert problem["detail"].startswith(f"`{name}`: ") or problem["detail"].startswith(
        f"{name}="
    ), problem
    assert not REPR.search(problem["detail"]), problem
    return problem


def test_at_that_is_not_a_number_is_named(api: TestClient[Any]) -> None:
    game = create(api)["id"]
    for route in ("state", "board.svg"):
        parameter_problem(api.get(f"/games/{game}/{route}?at=x"), 400, "validation-failed", "at")


def test_at_out_of_range_is_named(api: TestClient[Any]) -> None:
    game = create(api)["id"]
    parameter_problem(api.get(f"/games/{game}/state?at=99"), 400, "out-of-range", "at")


def test_limit_below_one_and_over_the_page_are_named(api: TestClient[Any]) -> None:
    game = create(api)["id"]
    problem = parameter_problem(
        api.get(f"/games/{game}/events?limit=0"), 400, "validation-failed", "limit"
    )
    assert ">= 1" in problem["detail"]
    parameter_problem(api.get(f"/games/{game}/events?limit=1001"), 400, "out-of-range", "limit")


def test_an_unknown_list_format_lists_json_and_ndjson(api: TestClient[Any]) -> None:
    problem = parameter_problem(api.get("/games?format=xml"), 400, "validation-failed", "format")
    assert sorted(problem["allowed"]) == ["json", "ndjson"]


# --- sizes ---------------------------------------------------------------------------------


def test_a_body_over_the_limit_names_the_limit_and_its_setting(tmp_path: Path) -> None:
    settings = Settings(database=str(tmp_path / "t.db"), log_level="warning", max_body_bytes=2000)
    with TestClient(create_app(settings)) as client:
        body = {"ruleset": "race35", "seats": [{}, {}], "tags": {"note": "x" * 3000}}
        problem = expect_problem(client.post("/games", json=body), 413, "payload-too-large")
    assert problem["limit"] == 2000
    assert problem["setting"] == "TABULA_MAX_BODY_BYTES"
    assert "2,000 bytes" in problem["detail"] and "TABULA_MAX_BODY_BYTES" in problem["detail"]


# --- the sweep: a wrong type in every field of every JSON body ----------------------------

GAME = {
    "ruleset": "race35",
    "seats": [  # each field, for the sweep
        {"name": "Ann", "bot": "random", "player": "ann", "open": False, "invite": "bob"},
        {},
    ],
    "options": {},
    "chance": "server",
    "seed": "s",
    "auto_chance": False,
    "allow_undo": False,
    "allow_hints": False,
    "tags": {"round": "1"},
    "clock": {"per_decision": 30.0, "total": 600.0, "increment": 1.0, "on_timeout": "pass"},
    "rated": True,
    "spectator_delay": {"seconds": 30, "moves": 2},  # both: one field each for the sweep
    "absent": {"after": 60.0, "then": "forfeit"},
    "unlisted": False,
}
EVENT = {
    "game_id": "g",
    "version": 1,
    "type": "GameCreated",
    "data": {},
    "by": "referee",
    "at": "2026-01-01T00:00:00Z",
    "prev_hash": "",
    "hash": "",
}
BODIES: dict[str, dict[str, Any]] = {
    "CreateGame": GAME,
    "CreateBatch": {"games": [GAME]},
    "GameRecord": {
        "game_id": "g",
        "ruleset": "race35",
        "ruleset_version": 1,
        "options": {},
        "seats": ["Ann", "Bob"],
        "chance": "server",
        "seed_commitment": "c",
        "events": [EVENT],
        "seed": None,
        "format": "tabula-game-record",
        "format_version": 1,
    },
    "PlayMove": {
        "move": "roll",
        "steps": [{"piece": "red-1", "from": "track:1", "to": "track:2"}],
        "expected_version": 1,
        "seat": 0,
    },
    "Undo": {"reason": "r", "expected_version": 1},
    "PostChance": {"card": "1", "dice": [1], "hands": [["1"]], "expected_version": 1},
    "Adjudicate": {
        "kind": "penalty",
        "reason": "r",
        "seat": 0,
        "winners": [0],
        "expected_version": 1,
    },
    "CreateTournament": {
        "name": "Club night",
        "ruleset": "race35",
        "players": [{"name": "Ann", "bot": "random", "player": "Ann"}, {"name": "Bob"}],
        "format": "swiss",
        "rounds": 1,
        "seats_per_table": 2,
        "options": {},
        "chance": "server",
        "clock": {"per_decision": 30.0, "total": 600.0, "increment": 1.0, "on_timeout": "pass"},
        "points": [1, 0],
        "bye_points": 0,
        "rated": True,
        "spectator_delay": {"seconds": 30, "moves": 2},  # both: one field each for the sweep
    },
    "PairRound": {"expected_version": 1},
    "SeatToBot": {"bot": "random", "reason": "r", "expected_version": 1},
    "Withdraw": {"player": "Ann", "reason": "r"},
    "Register": {"handle": "ann"},
    "KeyRequest": {},
    "JoinTable": {"seat": 1, "name": "Zed"},
    "LeaveTable": {"expected_version": 1},
    "DeclineInvitation": {"expected_version": 1},
    "StartTable": {"bots": "random", "expected_version": 1},
    "CancelTable": {"expected_version": 1},
    "PostSeek": {
        "ruleset": "ludo",
        "players": 4,
        "rated": False,
        "options": {},
        "bots_after": {"seconds": 30, "level": "greedy"},
        "name": "Zed",
    },
    "AskRematch": {},
}
"""A body of every type a route decodes, each field given, that decodes (a valid shape)."""

TYPES = {
    t.__name__: t
    for t in (
        CreateGame,
        CreateBatch,
        GameRecord,
        PlayMove,
        Undo,
        PostChance,
        Adjudicate,
        CreateTournament,
        PairRound,
        Withdraw,
        SeatToBot,
        Register,
        KeyRequest,
        JoinTable,
        LeaveTable,
        DeclineInvitation,
        StartTable,
        CancelTable,
        PostSeek,
        AskRematch,
    )
}
WRONG: list[Any] = [12345, "wrong", [], {}]
Where = tuple[str | int, ...]


def json_routes(app: Litestar) -> list[tuple[str, str]]:
    """Every route that takes a JSON body, with the name of its body type."""
    routes = []
    for route in app.routes:
        for handler in getattr(route, "route_handlers", []):
            data = handler.parsed_fn_signature.parameters.get("data")
            if data is not None:
                path = route.path.replace("{game_id:str}", "g0")
                path = path.replace("{tournament_id:str}", "t0").replace("{seat:int}", "0")
                path = path.replace("{handle:str}", "ann")
                routes.append((path, data.annotation.__name__))
    return sorted(routes)


def fields(info: inspect.Type, value: Any, path: Where = ()) -> Iterator[Where]:
    """Every field of a body, in nested objects and the first item of lists of objects too."""
    while isinstance(info, inspect.Metadata):
        info = info.type
    if isinstance(info, inspect.UnionType):
        inner = [t for t in info.types if not isinstance(t, inspect.NoneType)]
        if len(inner) == 1:
            yield from fields(inner[0], value, path)
    elif isinstance(info, inspect.StructType):
        for field in info.fields:
            yield (*path, field.encode_name)
            yield from fields(field.type, value[field.encode_name], (*path, field.encode_name))
    elif isinstance(info, inspect.ListType) and value:
        yield from fields(info.item_type, value[0], (*path, 0))


def replaced(body: dict[str, Any], path: Where, value: Any) -> dict[str, Any]:
    """``body`` with ``value`` at ``path``."""
    changed = copy.deepcopy(body)
    place: Any = changed
    for step in path[:-1]:
        place = place[step]
    place[path[-1]] = value
    return changed


def wrong_at(name: str, path: Where) -> dict[str, Any]:
    """The body of type ``name`` with a value at ``path`` of a type that field does not take."""
    for candidate in WRONG:
        body = replaced(BODIES[name], path, candidate)
        try:
            msgspec.convert(body, TYPES[name], strict=True)
        except msgspec.ValidationError:
            return body
    raise AssertionError(f"{name}: every value fits {written(path)}")


SWEEP = [
    (name, path)
    for name in sorted(BODIES)
    for path in fields(inspect.type_info(TYPES[name]), BODIES[name])
]


def test_the_sweep_covers_every_json_route(api: TestClient[Any]) -> None:
    routes = json_routes(api.app)
    assert len(routes) >= 7
    assert {name for _, name in routes} == set(BODIES)  # a new body type needs its body here
    for name, body in BODIES.items():
        msgspec.convert(body, TYPES[name], strict=True)  # each base body is right as it is
    assert len(SWEEP) > 50


@pytest.mark.parametrize(("name", "path"), SWEEP, ids=[f"{n}.{written(p)}" for n, p in SWEEP])
def test_a_wrong_type_in_any_body_field_is_a_400_naming_it(
    api: TestClient[Any], name: str, path: Where
) -> None:
    body = wrong_at(name, path)
    routes = [route for route, taken in json_routes(api.app) if taken == name]
    for route in routes:
        reply = api.post(route, json=body)
        refused(reply, 400, "validation-failed", written(path), pointer(path))
    assert api.get("/games").json()["games"] == []


DOCUMENT = json.loads((Path(__file__).parents[3] / "openapi" / "openapi.json").read_text())
VALID = {"ruleset": "race35"}
"""A right value of each required query parameter, so the one swept is the only one wrong."""


def required(route: str) -> dict[str, str]:
    """The required query parameters of ``route``'s GET, each with its right value."""
    parameters = DOCUMENT["paths"][route]["get"].get("parameters", [])
    return {p["name"]: VALID[p["name"]] for p in parameters if p["in"] == "query" and p["required"]}


def query_parameters() -> list[tuple[str, str, list[Any] | None]]:
    """Every query parameter of the document that takes numbers or a fixed set: (path, name,
    its values if a fixed set)."""
    found = []
    for route, operations in DOCUMENT["paths"].items():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                schema = json.dumps(parameter.get("schema", {}))
                if parameter["in"] == "query" and ('"integer"' in schema or '"enum"' in schema):
                    values = re.search(r'"enum": (\[[^\]]*\])', schema)
                    allowed = json.loads(values[1]) if values else None
                    if allowed is not None:  # null in an optional filter's enum: no filter
                        allowed = [value for value in allowed if value is not None]
                    found.append((route, parameter["name"], allowed))
    return sorted(found)


QUERIES = query_parameters()


def test_the_query_sweep_finds_the_parameters() -> None:
    names = {(route.rsplit("/", 1)[-1], name) for route, name, _ in QUERIES}
    assert {("state", "at"), ("events", "limit"), ("events", "after"), ("games", "format")} <= names


@pytest.mark.parametrize(
    ("route", "name", "allowed"), QUERIES, ids=[f"{r} {n}" for r, n, _ in QUERIES]
)
def test_a_wrong_query_parameter_is_a_400_naming_it(
    api: TestClient[Any], route: str, name: str, allowed: list[Any] | None
) -> None:
    game = create(api)["id"]
    params = {**required(route), name: "wrong"}
    reply = api.get(route.replace("{game_id}", game), params=params)
    problem = parameter_problem(reply, 400, "validation-failed", name)
    if allowed is not None:
        assert sorted(problem["allowed"]) == sorted(allowed)

"""``GET /rulesets/{name}`` and the typed options: every rule set serves its rules text and a
JSON Schema of its options, every allowed value of every option sets up a game that plays, and
a value outside the schema is a 400 that names the option and what it allows."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from domain.model import options_schema
from domain.registry import RULESETS
from tests.service.api.test_bad_input import expect_problem
from tests.service.conftest import auth, create

DOCS = Path(__file__).parents[3] / "docs" / "rules"

OBJECT_VALUES: dict[tuple[str, str], Any] = {
    ("race35", "special_squares"): {"7": "red", "20": "tricolour", "30": "blue"},
    ("partners", "deck_counts"): {"N2": 8, "N3": 8, "START": 8, "SEVEN": 4, "SWAP": 4},
}
"""A non-default value of each option whose values are objects (the schema cannot pick one)."""


def schema_of(api: TestClient[Any], ruleset: str) -> dict[str, Any]:
    reply = api.get(f"/rulesets/{ruleset}")
    assert reply.status_code == 200, reply.text
    schema: dict[str, Any] = reply.json()["options_schema"]
    return schema


def other_values(ruleset: str, option: str, prop: dict[str, Any]) -> list[Any]:
    """Every allowed value of an option but its default (one of each kind for numbers)."""
    default = prop["default"]
    if "enum" in prop:
        return [value for value in prop["enum"] if value != default]
    if prop["type"] == "boolean":
        return [not default]
    if prop["type"] == "integer":
        low, high = prop["minimum"], prop.get("maximum", default + 20)
        return sorted({low, high} - {default})
    return [OBJECT_VALUES[ruleset, option]]


def option_values() -> list[tuple[str, str, Any]]:
    """(rule set, option, a non-default allowed value) for every option of every rule set."""
    cases = []
    for name in RULESETS:
        for option, prop in options_schema(name, RULESETS[name].Options)["properties"].items():
            cases.extend((name, option, value) for value in other_values(name, option, prop))
    return cases


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_ruleset_serves_its_rules_text_and_options_schema(
    api: TestClient[Any], ruleset: str
) -> None:
    reply = api.get(f"/rulesets/{ruleset}")
    assert reply.status_code == 200, reply.text
    body = reply.json()
    listed = next(r for r in api.get("/rulesets").json()["rulesets"] if r["name"] == ruleset)
    assert {k: body[k] for k in listed} == listed
    assert body["rules"] == (DOCS / f"{ruleset}.md").read_text(encoding="utf-8")
    assert body["rules"].startswith("# ") and f"`{ruleset}`" in body["rules"]
    schema = body["options_schema"]
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert set(schema["properties"]) == set(body["options"])
    for option, prop in schema["properties"].items():
        assert prop["default"] == body["options"][option], option
        assert prop["description"], option
        assert option in body["rules"], f"docs/rules/{ruleset}.md does not explain {option}"


def test_unknown_ruleset_is_404(api: TestClient[Any]) -> None:
    reply = api.get("/rulesets/chess")
    expect_problem(reply, 404, "ruleset-not-found", "`chess`", "`race35`")
    assert reply.json()["allowed"] == sorted(RULESETS)


@pytest.mark.parametrize(("ruleset", "option", "value"), option_values())
def test_every_allowed_option_value_sets_up_a_game_that_plays(
    api: TestClient[Any], ruleset: str, option: str, value: Any
) -> None:
    rules = RULESETS[ruleset]
    players = rules.MIN_PLAYERS if option != "first_player" else rules.MAX_PLAYERS
    created = create(api, ruleset, players, options={option: value}, auto_chance=True)
    game, referee = created["id"], auth(created["tokens"]["referee"])
    assert api.get(f"/games/{game}").json()["options"][option] == value
    rng = random.Random(f"{ruleset}{option}{value}")
    for _ in range(30):
        moves = api.get(f"/games/{game}/legal-moves", headers=referee).json()["moves"]
        if not moves:
            break
        move = rng.choice(moves)
        body = {"move": move["id"], "seat": move["seat"]}
        reply = api.post(f"/games/{game}/moves", json=body, headers=referee)
        assert reply.status_code == 200, reply.text


BAD_VALUES: dict[str, Any] = {"boolean": "yes", "integer": -1, "object": ["not", "an", "object"]}


def bad_value_cases() -> list[tuple[str, str, Any, list[str]]]:
    """(rule set, option, a value the schema refuses, words the detail must hold)."""
    cases = []
    for name in RULESETS:
        for option, prop in options_schema(name, RULESETS[name].Options)["properties"].items():
            if "enum" in prop:
                words = [json.dumps(value) for value in prop["enum"]]
                cases.append((name, option, "nonsense", words))
            elif prop["type"] == "integer":
                bounds = [str(prop["minimum"])] + (
                    [str(prop["maximum"])] if "maximum" in prop else []
                )
                cases.append((name, option, prop["minimum"] - 1, bounds))
                cases.append((name, option, "1", bounds))
            else:
                words = ["true or false"] if prop["type"] == "boolean" else ["an object"]
                cases.append((name, option, BAD_VALUES[prop["type"]], words))
    return cases


@pytest.mark.parametrize(("ruleset", "option", "value", "allowed"), bad_value_cases())
def test_bad_option_value_is_400_naming_the_option_and_its_allowed_values(
    api: TestClient[Any], ruleset: str, option: str, value: Any, allowed: list[str]
) -> None:
    seats = [{}] * RULESETS[ruleset].MIN_PLAYERS
    body = {"ruleset": ruleset, "seats": seats, "options": {option: value}}
    expect_problem(
        api.post("/games", json=body), 400, "validation-failed", f"options.{option}", *allowed
    )
    batch = {"games": [{"ruleset": "race35", "seats": [{}, {}]}, body]}
    expect_problem(api.post("/games/batch", json=batch), 400, "validation-failed", "table 1")
    assert api.get("/games").json()["games"] == []


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_unknown_option_is_400_listing_the_known_ones(api: TestClient[Any], ruleset: str) -> None:
    seats = [{}] * RULESETS[ruleset].MIN_PLAYERS
    body = {"ruleset": ruleset, "seats": seats, "options": {"turbo": True}}
    known = list(RULESETS[ruleset].OPTIONS)
    expect_problem(api.post("/games", json=body), 400, "validation-failed", "'turbo'", *known)


def test_a_seat_the_game_does_not_have_is_still_a_bad_setup(api: TestClient[Any]) -> None:
    body = {"ruleset": "sorry", "seats": [{}, {}], "options": {"first_player": 3}}
    expect_problem(api.post("/games", json=body), 422, "bad-setup", "first_player", "0 to 1")


def unbounded(schema: dict[str, Any], where: str) -> list[str]:
    """Where a JSON Schema lets a value grow without bound: a number with no maximum, an array
    with no maxItems, an object whose keys are free and whose size is not capped (the values
    of a mapping are walked too)."""
    found = []
    kind = schema.get("type")
    if kind in ("integer", "number") and "maximum" not in schema:
        found.append(f"{where}: a number with no maximum")
    if kind == "array":
        if "maxItems" not in schema:
            found.append(f"{where}: an array with no maxItems")
        found += unbounded(schema.get("items", {}), f"{where}[]")
    if kind == "object":
        keys = schema.get("propertyNames", {})
        free = schema.get("additionalProperties") and "enum" not in keys
        if free and "maxProperties" not in schema:
            found.append(f"{where}: an object with free keys and no maxProperties")
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            found += unbounded(extra, f"{where}.*")
        for name, prop in schema.get("properties", {}).items():
            found += unbounded(prop, f"{where}.{name}")
    for alternative in schema.get("anyOf", []):
        found += unbounded(alternative, where)
    return found


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_numeric_option_has_a_maximum(api: TestClient[Any], ruleset: str) -> None:
    schema = schema_of(api, ruleset)
    assert "$ref" not in json.dumps(schema), "the walk reads inline schemas only"
    assert unbounded(schema, "options") == [], f"{ruleset}'s options can grow without bound"


@pytest.mark.parametrize("count", [65, 100_000_000, int("9" * 4300)])
def test_a_deck_count_past_the_maximum_is_a_problem(api: TestClient[Any], count: int) -> None:
    seats = [{"name": f"P{i}"} for i in range(4)]
    body = {"ruleset": "partners", "seats": seats, "options": {"deck_counts": {"N2": count}}}
    reply = api.post("/games", json=body)
    assert reply.status_code in (400, 422), reply.text
    problem = expect_problem(reply, reply.status_code, "validation-failed", "deck_counts")
    assert "0 to 64" in problem["detail"]
    assert api.get("/games").json()["games"] == []

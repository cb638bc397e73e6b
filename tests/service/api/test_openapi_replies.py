"""The document describes what is sent: real replies of random games of every rule set are
valid against openapi/openapi.json's own schemas (state, legal moves, events, write replies,
audit, export), so the document cannot drift from the wire."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from litestar.testing import TestClient

from domain.registry import RULESETS
from tests.service.conftest import auth, create

DOCUMENT = json.loads((Path(__file__).parents[3] / "openapi" / "openapi.json").read_text())


def reply_schema(path: str, method: str, status: int) -> dict[str, Any]:
    """The JSON schema of a route's reply, with the document's components to resolve $refs."""
    content = DOCUMENT["paths"][path][method]["responses"][str(status)]["content"]
    schema: dict[str, Any] = content["application/json"]["schema"]
    return {**schema, "components": DOCUMENT["components"]}


def check(reply: Any, path: str, method: str = "get") -> dict[str, Any]:
    """Validate a reply against its route's schema; its JSON."""
    assert reply.status_code < 300, reply.text
    body: dict[str, Any] = reply.json()
    validator = jsonschema_rs.validator_for(reply_schema(path, method, reply.status_code))
    errors = [f"{e.instance_path}: {e.message}" for e in validator.iter_errors(body)]
    assert not errors, (path, errors[:5])
    return body


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_replies_of_a_random_game_match_the_document(api: TestClient[Any], ruleset: str) -> None:
    players = RULESETS[ruleset].MIN_PLAYERS
    created = create(api, ruleset, players=players, auto_chance=True)
    game, referee = created["id"], auth(created["tokens"]["referee"])
    seat = auth(created["tokens"]["seats"][0])
    rng = random.Random(ruleset)
    for _ in range(60):
        for headers in (referee, seat, {}):
            check(api.get(f"/games/{game}", headers=headers), "/games/{game_id}")
        moves = check(
            api.get(f"/games/{game}/legal-moves", headers=referee), "/games/{game_id}/legal-moves"
        )["moves"]
        if not moves:
            break
        move = rng.choice(moves)
        body = {"move": move["id"], "seat": move["seat"]}
        played = api.post(f"/games/{game}/moves", json=body, headers=referee)
        check(played, "/games/{game_id}/moves", "post")
    check(api.get(f"/games/{game}/state", params={"at": 2}), "/games/{game_id}/state")
    for headers in (referee, seat, {}):
        check(api.get(f"/games/{game}/events", headers=headers), "/games/{game_id}/events")
    check(api.get(f"/games/{game}/audit", headers=referee), "/games/{game_id}/audit")
    check(api.get(f"/games/{game}/export", headers=referee), "/games/{game_id}/export")


def test_ruleset_replies_match_the_document(api: TestClient[Any]) -> None:
    check(api.get("/rulesets"), "/rulesets")
    for name in sorted(RULESETS):
        body = check(api.get(f"/rulesets/{name}"), "/rulesets/{name}")
        jsonschema_rs.validator_for(body["options_schema"])  # itself a valid JSON Schema
        assert jsonschema_rs.is_valid(body["options_schema"], body["options"])


def test_no_json_reply_is_a_bare_object() -> None:
    bare = []
    for path, operations in DOCUMENT["paths"].items():
        for method, operation in operations.items():
            for status, response in operation.get("responses", {}).items():
                schema = response.get("content", {}).get("application/json", {}).get("schema")
                if status.startswith("2") and schema is not None and is_bare(schema):
                    bare.append(f"{method.upper()} {path} {status}")
    assert not bare


def is_bare(schema: dict[str, Any]) -> bool:
    """An object schema that says nothing about its fields."""
    return schema.get("type") == "object" and not (
        schema.get("properties") or schema.get("oneOf") or schema.get("$ref")
    )

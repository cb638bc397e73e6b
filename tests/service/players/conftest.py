"""What the players' tests share: registering over HTTP, and a game with a player's seat."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.service.conftest import auth, seed_for_test


def register(api: TestClient[Any], handle: str, key: str | None = None) -> dict[str, Any]:
    """Register ``handle`` (with an app's ``key``, in its namespace); the reply's body."""
    reply = api.post("/players", json={"handle": handle}, headers=auth(key) if key else {})
    assert reply.status_code == 201, reply.text
    registered: dict[str, Any] = reply.json()
    return registered


def refused(reply: Any) -> tuple[int, str]:
    """A refusal's status and problem slug."""
    return reply.status_code, reply.json()["type"].rsplit("/", 1)[1]


def seated_game(api: TestClient[Any], handle: str, ruleset: str = "race35") -> dict[str, Any]:
    """A two-seat game whose seat 0 belongs to ``handle`` (seat 1 is Guest, a free name)."""
    seats = [{"player": handle}, {"name": "Guest"}]
    body: dict[str, Any] = {"ruleset": ruleset, "seats": seats, "seed": seed_for_test()}
    if ruleset == "race35":
        body["options"] = {"special_squares": {}}
    reply = api.post("/games", json=body)
    assert reply.status_code == 201, reply.text
    created: dict[str, Any] = reply.json()
    return created

"""The real app over a temporary SQLite file, driven through Litestar's test client."""

from __future__ import annotations

import os
import socket
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.clocks import ManualClock


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(database=str(tmp_path / "tabula.db"), log_level="warning")


@pytest.fixture
def api(settings: Settings) -> Iterator[TestClient[Any]]:
    with TestClient(create_app(settings)) as client:
        yield client


@pytest.fixture
def clock() -> ManualClock:
    """The clock of ``clocked``, which the test moves by hand."""
    return ManualClock()


@pytest.fixture
def clocked(settings: Settings, clock: ManualClock) -> Iterator[TestClient[Any]]:
    """The app on ``clock`` (its store's times too): a test moves time instead of sleeping."""
    with TestClient(create_app(settings, clock=clock)) as client:
        yield client


def free_port() -> int:
    """A loopback TCP port nobody listens on now (for a server started as a process)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


SEEDS: Counter[str] = Counter()


def seed_for_test() -> str:
    """A seed made from the running test's name and how many games it has created, so a test
    draws the same cards and dice on every run: CI judges the change, not the draw."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "")
    SEEDS[test] += 1
    return f"{test}#{SEEDS[test]}"


def create(
    api: TestClient[Any], ruleset: str = "race35", players: int = 3, **body: Any
) -> dict[str, Any]:
    """Create a game and return the creation reply (seeded by ``seed_for_test`` if no seed)."""
    body.setdefault("seed", seed_for_test())
    seats = [{"name": f"P{i}"} for i in range(players)]
    reply = api.post("/games", json={"ruleset": ruleset, "seats": seats, **body})
    assert reply.status_code == 201, reply.text
    created: dict[str, Any] = reply.json()
    return created


def play_to_end(api: TestClient[Any], created: dict[str, Any], limit: int = 5000) -> dict[str, Any]:
    """Play the first legal move of whoever is to act until the game ends; the final state."""
    game_id, seats = created["id"], created["tokens"]["seats"]
    for _ in range(limit):
        state: dict[str, Any] = api.get(f"/games/{game_id}").json()
        if state["status"] == "finished":
            return state
        seat = state["to_act"][0]["seat"]
        moves = api.get(f"/games/{game_id}/legal-moves", headers=auth(seats[seat])).json()
        body = {"move": moves["moves"][0]["id"], "expected_version": moves["version"]}
        reply = api.post(f"/games/{game_id}/moves", json=body, headers=auth(seats[seat]))
        assert reply.status_code == 200, reply.text
    raise AssertionError("the game did not end")

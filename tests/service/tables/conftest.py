"""What the tables' tests share: registering players, creating a table with open or invited
seats, joining it, reading its state, and waiting for the server's clock to sweep."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.clocks import ManualClock
from tests.service.conftest import auth, seed_for_test
from tests.waiting import wait_until


def register(api: TestClient[Any], handle: str) -> str:
    """Register ``handle``; her key."""
    reply = api.post("/players", json={"handle": handle})
    assert reply.status_code == 201, reply.text
    key: str = reply.json()["key"]
    return key


def table(
    api: TestClient[Any], seats: list[dict[str, Any]], ruleset: str = "ludo", **body: Any
) -> dict[str, Any]:
    """Create a game of ``seats`` (some open or invited); the creation reply."""
    body.setdefault("seed", seed_for_test())
    body.setdefault("rated", False)
    reply = api.post("/games", json={"ruleset": ruleset, "seats": seats, **body})
    assert reply.status_code == 201, reply.text
    created: dict[str, Any] = reply.json()
    return created


def join(api: TestClient[Any], game_id: str, key: str | None = None, **body: Any) -> dict[str, Any]:
    """Join ``game_id`` (with a player's ``key``, else as a guest); the reply's body."""
    reply = api.post(f"/games/{game_id}/join", json=body, headers=auth(key) if key else {})
    assert reply.status_code == 200, reply.text
    joined: dict[str, Any] = reply.json()
    return joined


def state(api: TestClient[Any], game_id: str, token: str | None = None) -> dict[str, Any]:
    """The game's state as ``token``'s holder sees it."""
    reply = api.get(f"/games/{game_id}", headers=auth(token) if token else {})
    assert reply.status_code == 200, reply.text
    view: dict[str, Any] = reply.json()
    return view


def types(api: TestClient[Any], game_id: str) -> list[str]:
    """The types of the game's events so far, in order (as a spectator reads them)."""
    return [e["type"] for e in api.get(f"/games/{game_id}/events").json()["events"]]


def refused(reply: Any) -> tuple[int, str]:
    """A refusal's status and problem slug."""
    return reply.status_code, reply.json()["type"].rsplit("/", 1)[1]


def swept(api: TestClient[Any], clock: ManualClock) -> None:
    """Wait until the server's sweeper has ended a sweep begun at the time ``clock`` shows
    now: every deadline due by then has been enforced."""
    sweeper, now = api.app.state.workers.sweeper, clock()
    wait_until(
        lambda: sweeper.swept is not None and sweeper.swept >= now,
        message=f"no sweep at {now}",
    )

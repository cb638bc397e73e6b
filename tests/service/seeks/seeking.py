"""What the seeks' tests share: registering players, posting a seek (with a player's key, or
as a guest), reading it, and playing a matched table's first moves with each seat's key or
secret."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.clocks import ManualClock
from tests.service.conftest import auth
from tests.waiting import wait_until

Api = TestClient[Any]
LUDO4 = {"ruleset": "ludo", "players": 4}


def register(api: Api, handle: str) -> str:
    """Register ``handle``; her key."""
    reply = api.post("/players", json={"handle": handle})
    assert reply.status_code == 201, reply.text
    key: str = reply.json()["key"]
    return key


def seek(api: Api, key: str | None = None, **body: Any) -> dict[str, Any]:
    """Post a seek (``LUDO4`` unless ``body`` says otherwise) with a player's ``key``, else as
    a guest; the reply (``id``, and a guest's ``secret``)."""
    reply = api.post("/seeks", json=LUDO4 | body, headers=auth(key) if key else {})
    assert reply.status_code == 201, reply.text
    posted: dict[str, Any] = reply.json()
    assert (posted["secret"] is None) == (key is not None)
    return posted


def read(api: Api, seek_id: str, credential: str) -> dict[str, Any]:
    """The seek as its owner (her key or secret) reads it."""
    reply = api.get(f"/seeks/{seek_id}", headers=auth(credential))
    assert reply.status_code == 200, reply.text
    view: dict[str, Any] = reply.json()
    return view


def created(api: Api, game_id: str) -> dict[str, Any]:
    """The game's ``GameCreated`` (its data), as a spectator reads it."""
    data: dict[str, Any] = api.get(f"/games/{game_id}/events").json()["events"][0]["data"]
    return data


def is_rated(api: Api, game_id: str) -> bool:
    """Whether the game is rated (``GameCreated`` leaves ``rated`` out when it is)."""
    return bool(created(api, game_id).get("rated", True))


def refused(reply: Any) -> tuple[int, str]:
    """A refusal's status and problem slug."""
    return reply.status_code, reply.json()["type"].rsplit("/", 1)[1]


def play_round(api: Api, game_id: str, credentials: dict[int, str]) -> list[int]:
    """Play the first legal move of whoever is to act, with that seat's credential, until
    every seat of ``credentials`` has played once (or the game ended); the seats in the
    order they played."""
    played: list[int] = []
    while set(played) != set(credentials):
        state = api.get(f"/games/{game_id}").json()
        if state["status"] != "active":
            break
        seat = state["to_act"][0]["seat"]
        headers = auth(credentials[seat])
        legal = api.get(f"/games/{game_id}/legal-moves", headers=headers).json()
        body = {"move": legal["moves"][0]["id"], "expected_version": legal["version"]}
        reply = api.post(f"/games/{game_id}/moves", json=body, headers=headers)
        assert reply.status_code == 200, reply.text
        played.append(seat)
    return played


def swept(api: Api, clock: ManualClock) -> None:
    """Wait until the server's sweeper has ended a sweep begun at the time ``clock`` shows
    now: every deadline due by then (the seeks' too) has been met."""
    sweeper, now = api.app.state.workers.sweeper, clock()
    wait_until(
        lambda: sweeper.swept is not None and sweeper.swept >= now, message=f"no sweep at {now}"
    )

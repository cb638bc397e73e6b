"""Checks of a served game's whole log: it folds, its chain verifies, its audit passes."""

from __future__ import annotations

from typing import Any

import httpx

from domain.events import parse_event
from domain.replay import fold
from eventstore import StoredEvent, verify_chain


def read_log(client: httpx.Client, game_id: str, token: str | None = None) -> list[dict[str, Any]]:
    """Every event of a game, a page at a time, as the token's holder sees them."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    events: list[dict[str, Any]] = []
    while True:
        reply = client.get(f"/games/{game_id}/events?after={len(events)}", headers=headers)
        assert reply.status_code == 200, reply.text
        page = reply.json()["events"]
        if not page:
            return events
        events += page


def stored(events: list[dict[str, Any]]) -> list[StoredEvent]:
    """Events from the API as the store's events (``game_id`` becomes ``stream_id``)."""
    return [
        StoredEvent(stream_id=e["game_id"], **{k: v for k, v in e.items() if k != "game_id"})
        for e in events
    ]


def check_log(client: httpx.Client, game_id: str, referee: str | None) -> list[dict[str, Any]]:
    """Assert a game's log is whole: versions without gaps, the chain verifies, it folds, its
    state rebuilds, and (with the referee's token) the audit verifies it; returns the log."""
    events = read_log(client, game_id, referee)
    assert [e["version"] for e in events] == list(range(1, len(events) + 1)), game_id
    assert verify_chain(stored(events)) is None, game_id
    replay = fold((e["version"], parse_event(e["type"], e["data"])) for e in events)
    assert replay.version == len(events)
    state = client.get(f"/games/{game_id}")
    assert state.status_code == 200 and state.json()["version"] == len(events), state.text
    if referee is not None:
        audit = client.get(
            f"/games/{game_id}/audit", headers={"Authorization": f"Bearer {referee}"}
        )
        assert audit.status_code == 200, audit.text
        assert audit.json()["verification"]["valid"], (game_id, audit.json()["verification"])
    return events

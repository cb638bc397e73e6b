"""The live event stream: Server-Sent Events, resumable with Last-Event-ID."""

from __future__ import annotations

import json
import threading
from typing import Any

from litestar.testing import TestClient

from tests.service.conftest import auth, create, play_to_end


def read_stream(
    api: TestClient[Any], path: str, headers: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Every event of a stream that ends (a finished game)."""
    messages: list[dict[str, Any]] = []
    with api.stream("GET", path, headers=headers or {}) as reply:
        assert reply.headers["content-type"].startswith("text/event-stream")
        fields: dict[str, str] = {}
        for line in reply.iter_lines():
            if not line:
                if "data" in fields:
                    messages.append({**fields, "data": json.loads(fields["data"])})
                fields = {}
                continue
            key, _, value = line.partition(": ")
            fields[key] = value
    return messages


def whole_log(api: TestClient[Any], game: str) -> list[dict[str, Any]]:
    """Every event of a game, page by page."""
    events: list[dict[str, Any]] = []
    while page := api.get(f"/games/{game}/events", params={"after": len(events)}).json()["events"]:
        events.extend(page)
    return events


def test_stream_of_a_finished_game_sends_every_event_once_then_ends(api: TestClient[Any]) -> None:
    created = create(api, auto_chance=True)
    messages = read_stream(api, f"/games/{created['id']}/events/stream")
    log = whole_log(api, created["id"])
    assert [m["data"] for m in messages] == log
    assert [int(m["id"]) for m in messages] == [e["version"] for e in log]
    assert [m["event"] for m in messages] == [e["type"] for e in log]


def test_last_event_id_resumes_after_that_event(api: TestClient[Any]) -> None:
    created = create(api, auto_chance=True)
    messages = read_stream(api, f"/games/{created['id']}/events/stream", {"Last-Event-ID": "5"})
    assert int(messages[0]["id"]) == 6


def test_stream_follows_a_live_game(api: TestClient[Any]) -> None:
    created = create(api, players=2)
    seen: list[dict[str, Any]] = []
    reader = threading.Thread(
        target=lambda: seen.extend(read_stream(api, f"/games/{created['id']}/events/stream"))
    )
    reader.start()
    final = play_to_end(api, created)
    reader.join(timeout=30)
    assert not reader.is_alive()
    assert [int(m["id"]) for m in seen] == list(range(1, final["version"] + 1))


def test_stream_refuses_a_wrong_token(api: TestClient[Any]) -> None:
    created = create(api)
    reply = api.get(f"/games/{created['id']}/events/stream", headers=auth("wrong"))
    assert reply.status_code == 401

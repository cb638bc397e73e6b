"""Listings are everyone's, so a filter by status sees exactly what the unfiltered listing
shows a spectator: a game finished within its delay in seconds is active to every filter, and
a listing's page cursor is sealed (unreadable, unforgeable), naming no game it did not list."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from litestar.testing import TestClient

from tests.service.api.test_bad_input import expect_problem
from tests.service.conftest import create

QUICK = {"special_squares": {}}


def listed(api: TestClient[Any], query: str) -> dict[str, Any]:
    reply = api.get(f"/games?{query}")
    assert reply.status_code == 200, reply.text
    page: dict[str, Any] = reply.json()
    return page


def ids(page: dict[str, Any]) -> list[str]:
    return [game["id"] for game in page["games"]]


def test_a_game_finished_within_its_delay_is_active_to_every_filter(api: TestClient[Any]) -> None:
    delayed = create(
        api, players=2, auto_chance=True, tags={"t": "d"}, options=QUICK,
        spectator_delay={"seconds": 60},
    )  # fmt: skip
    assert api.get(f"/games/{delayed['id']}").json()["status"] == "active"
    plain = create(api, players=2, auto_chance=True, tags={"t": "d"}, options=QUICK)
    assert [g["status"] for g in listed(api, "tag=t:d")["games"]] == ["active", "finished"]
    assert ids(listed(api, "tag=t:d&status=active")) == [delayed["id"]]
    assert ids(listed(api, "tag=t:d&status=finished")) == [plain["id"]]
    first = listed(api, "tag=t:d&status=finished&limit=1")
    assert ids(first) == [plain["id"]] and first["next"] is None


def unsealed(cursor: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except binascii.Error:
        return b""


def test_a_page_cursor_is_sealed(api: TestClient[Any]) -> None:
    games = [create(api, players=2, tags={"t": "c"}) for _ in range(3)]
    page = listed(api, "tag=t:c&limit=1")
    cursor = page["next"].split("cursor=")[1].split("&")[0]
    raw = unsealed(cursor)
    assert all(game["id"].encode() not in raw for game in games)
    try:
        json.loads(raw)
        readable = True
    except ValueError:
        readable = False
    assert not readable, raw
    assert ids(listed(api, f"tag=t:c&limit=1&cursor={cursor}")) == [games[1]["id"]]
    forged = base64.urlsafe_b64encode(json.dumps(["2000", games[0]["id"]]).encode()).decode()
    expect_problem(api.get(f"/games?cursor={forged}"), 400, "validation-failed", "cursor")
    flipped = cursor[:-2] + ("A" if cursor[-2] != "A" else "B") + cursor[-1]
    expect_problem(api.get(f"/games?cursor={flipped}"), 400, "validation-failed", "cursor")

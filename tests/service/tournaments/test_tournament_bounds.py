"""A tournament's settings are bounded in their types: points per place and a bye's points are
at most 1,000, so standings summed over every round always serialise (an unbounded integer
once made ``GET /tournaments/{id}/standings`` a 500 for good)."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient

from tests.service.tournaments.test_tournaments import pair, play_round, problem, tournament

HUGE = int("9" * 4300)
MAX_POINTS = 1000
"""The documented bound (docs/operations/limits-hardening.md)."""


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"points": [HUGE, 1, 0, 0]}, "/points/0"),
        ({"points": [3, MAX_POINTS + 1]}, "/points/1"),
        ({"bye_points": HUGE}, "/bye_points"),
        ({"bye_points": MAX_POINTS + 1}, "/bye_points"),
    ],
)
def test_points_past_the_maximum_are_refused_at_creation(
    api: TestClient[Any], change: dict[str, Any], pointer: str
) -> None:
    body = {"name": "x", "ruleset": "race35", "players": [{"name": "A"}, {"name": "B"}]}
    found = problem(api.post("/tournaments", json=body | change), 400, "validation-failed")
    assert found["pointer"] == pointer
    assert api.get("/tournaments").json()["tournaments"] == []


def test_the_largest_points_keep_standings_readable(api: TestClient[Any]) -> None:
    created = tournament(api, players=5, points=[MAX_POINTS] * 4, bye_points=MAX_POINTS)
    for _ in range(2):
        play_round(api, created, pair(api, created)["tables"])
    reply = api.get(f"/tournaments/{created['id']}/standings")
    assert reply.status_code == 200, reply.text
    assert {row["points"] for row in reply.json()["standings"]} == {2 * MAX_POINTS}

"""A write whose body type has a default for every field may be sent with no body at all
(``curl -X POST`` with only a token): it is read as ``{}``. A route whose body has required
fields still answers a bodiless write 415, and a body sent with no Content-Type is 415."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.service.api.test_bad_input import expect_problem
from tests.service.conftest import auth
from tests.service.tournaments.test_tournaments import tournament


def test_a_bodiless_post_pairs_a_round(api: TestClient[Any]) -> None:
    created = tournament(api, players=4)
    director = auth(created["tokens"]["director"])
    reply = api.post(f"/tournaments/{created['id']}/rounds", headers=director)
    assert reply.status_code == 201, reply.text
    assert reply.json()["round"]["round"] == 1


def test_a_bodiless_post_to_a_route_that_needs_a_body_is_415(api: TestClient[Any]) -> None:
    expect_problem(api.post("/games"), 415, "unsupported-media-type", "none")
    created = tournament(api, players=4)
    director = auth(created["tokens"]["director"])
    route = f"/tournaments/{created['id']}/withdrawals"
    expect_problem(api.post(route, headers=director), 415, "unsupported-media-type")
    reply = api.post(f"/tournaments/{created['id']}/rounds", content=b"{}", headers=director)
    expect_problem(reply, 415, "unsupported-media-type", "none")

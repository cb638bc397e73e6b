"""The tarpit (service/api/tarpit.py): a client's refusals past its budget are answered late;
its successes and its version conflicts never are."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from service.api import limits
from service.api.limits import Slots
from service.app import create_app
from service.settings import Settings
from tests.service.conftest import auth, create

DELAY = 0.5  # REFUSAL_DELAY for these tests
BURST = 3


@pytest.fixture
def api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(limits, "REFUSAL_DELAY", DELAY)
    settings = Settings(
        database=str(tmp_path / "tarpit.db"),
        log_level="warning",
        refusal_rate=0.001,  # no refill within a test
        refusal_burst=BURST,
    )
    with TestClient(create_app(settings)) as client:
        yield client


def timed(call: Any) -> tuple[Any, float]:
    began = time.monotonic()
    reply = call()
    return reply, time.monotonic() - began


def bogus_move(api: TestClient[Any], game_id: str) -> Any:
    return api.post(f"/games/{game_id}/moves", json={"move": "roll"}, headers=auth("junk"))


def test_refusals_past_the_budget_are_answered_a_delay_late(api: TestClient[Any]) -> None:
    game = create(api, players=2)
    for _ in range(BURST):
        reply, seconds = timed(lambda: bogus_move(api, game["id"]))
        assert reply.status_code == 401 and seconds < DELAY
    reply, seconds = timed(lambda: bogus_move(api, game["id"]))
    assert reply.status_code == 401  # the same answer, only later
    assert seconds >= DELAY


def test_successes_are_never_slowed_once_the_budget_is_spent(api: TestClient[Any]) -> None:
    game = create(api, players=2)
    for _ in range(BURST + 1):
        bogus_move(api, game["id"])
    reply, seconds = timed(lambda: api.get(f"/games/{game['id']}"))
    assert reply.status_code == 200 and seconds < DELAY
    reply, seconds = timed(lambda: api.get("/health"))
    assert reply.status_code == 200 and seconds < DELAY


def test_version_conflicts_do_not_spend_the_budget(api: TestClient[Any]) -> None:
    game = create(api, players=2)
    seat = game["tokens"]["seats"][0]
    for _ in range(BURST + 2):
        reply = api.post(
            f"/games/{game['id']}/moves",
            json={"move": "roll", "expected_version": 999},
            headers=auth(seat),
        )
        assert reply.status_code == 409
    reply, seconds = timed(lambda: bogus_move(api, game["id"]))
    assert reply.status_code == 401 and seconds < DELAY


def test_unknown_paths_and_bad_bodies_count_as_refusals(api: TestClient[Any]) -> None:
    for _ in range(BURST - 1):
        assert api.get("/no/such/path").status_code == 404
    broken = api.post("/games", content=b"{", headers={"content-type": "application/json"})
    assert broken.status_code == 400
    reply, seconds = timed(lambda: api.get("/no/such/path"))
    assert reply.status_code == 404 and seconds >= DELAY


def test_past_the_refusals_held_at_once_a_refusal_is_answered_at_once_and_closes(
    api: TestClient[Any],
) -> None:
    limits = api.app.state.limits
    limits.refusing = limits.refusing_small = Slots(0)  # as if every slot were waiting already
    for _ in range(BURST):
        assert "close" not in api.get("/no/such/path").headers.get("connection", "")
    reply, seconds = timed(lambda: api.get("/no/such/path"))
    assert reply.status_code == 404 and seconds < DELAY
    assert reply.headers["connection"] == "close"


def test_the_tarpit_is_off_at_a_rate_of_zero(tmp_path: Path) -> None:
    settings = Settings(database=str(tmp_path / "off.db"), log_level="warning", refusal_rate=0)
    with TestClient(create_app(settings)) as api:
        assert api.app.state.limits.refusals.rate == 0
        for _ in range(Settings().refusal_burst + 5):
            reply, seconds = timed(lambda: api.get("/no/such/path"))
            assert reply.status_code == 404 and seconds < 0.5


def test_a_small_refusal_waits_though_the_large_ones_fill_their_slots(
    api: TestClient[Any],
) -> None:
    api.app.state.limits.refusing = Slots(0)  # as if REFUSALS_DELAYED large bodies waited
    for _ in range(BURST):
        api.get("/no/such/path")
    reply, seconds = timed(lambda: api.get("/no/such/path"))
    assert reply.status_code == 404 and seconds >= DELAY
    assert "close" not in reply.headers.get("connection", "")
    big = b'{"ruleset": "race35", "seats": ' + b" " * 5000 + b"[]}"
    reply, seconds = timed(
        lambda: api.post("/games", content=big, headers={"content-type": "application/json"})
    )
    assert reply.status_code == 422 and seconds < DELAY  # race35 takes 2 to 6 seats
    assert reply.headers["connection"] == "close"

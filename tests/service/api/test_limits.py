"""Abuse limits (page size, write rate, open streams) and CORS, each set in Settings."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient

from service.api.limits import TokenBucket
from service.api.streams import StreamSlots
from service.app import create_app
from service.core.refusal import Refusal
from service.settings import Settings
from tests.live import serving
from tests.service.api.test_bad_input import expect_problem
from tests.service.conftest import auth, create
from tests.waiting import wait_until

ORIGIN = "https://board.example"


def client(tmp_path: Path, **limits: Any) -> TestClient[Any]:
    """A test client of the app with some settings changed."""
    settings = Settings(database=str(tmp_path / "limits.db"), log_level="warning", **limits)
    return TestClient(create_app(settings))


def test_page_size_is_capped_by_max_page(tmp_path: Path) -> None:
    with client(tmp_path, max_page=2) as api:
        game = create(api, auto_chance=True)["id"]
        assert len(api.get(f"/games/{game}/events").json()["events"]) == 2
        assert len(api.get(f"/games/{game}/events?limit=1").json()["events"]) == 1
        reply = api.get(f"/games/{game}/events?limit=3")
        expect_problem(reply, 400, "out-of-range", "limit=3", "2")


def test_writes_over_the_rate_limit_are_429_with_retry_after(tmp_path: Path) -> None:
    with client(tmp_path, write_rate=0.01, write_burst=2) as api:
        created = create(api)
        game, referee = created["id"], auth(created["tokens"]["referee"])
        moves = [api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=referee)]
        moves.append(api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=referee))
        moves.append(api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=referee))
        assert [m.status_code for m in moves[:2]] == [200, 200]
        problem = expect_problem(moves[2], 429, "rate-limited", "too many writes")
        assert int(moves[2].headers["retry-after"]) == problem["retry_after"] >= 1
        assert api.get(f"/games/{game}").json()["version"] == moves[1].json()["version"]
        seat = auth(created["tokens"]["seats"][0])
        other = api.post(f"/games/{game}/undo", json={}, headers=seat)
        assert other.status_code != 429  # another token has its own bucket


def test_rate_limit_is_off_by_default(api: TestClient[Any]) -> None:
    created = create(api)
    game, referee = created["id"], auth(created["tokens"]["referee"])
    statuses = {api.post(f"/games/{game}/undo", json={}, headers=referee).status_code}
    for _ in range(100):
        statuses.add(
            api.post(f"/games/{game}/moves", json={"move": "x"}, headers=referee).status_code
        )
    assert 429 not in statuses  # (creating games has a budget of its own: test_costs.py)


def test_token_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=2, burst=2, clock=lambda: now[0])
    assert [bucket.take("a"), bucket.take("a")] == [0, 0]
    assert bucket.take("a") == pytest.approx(0.5)
    assert bucket.take("b") == 0
    now[0] = 0.5
    assert bucket.take("a") == 0
    now[0] = 100.0
    assert [bucket.take("a"), bucket.take("a"), bucket.take("a") > 0] == [0, 0, True]


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """A served app allowing two open streams per client, and a running game."""
    settings = Settings(
        database=str(tmp_path / "s.db"), log_level="warning", max_streams_per_client=2
    )
    with serving(create_app(settings)) as url:
        seats = [{"name": "A"}, {"name": "B"}]
        game = httpx.post(f"{url}/games", json={"ruleset": "race35", "seats": seats}).json()
        yield url, game


def test_open_streams_per_client_are_capped(live: tuple[str, dict[str, Any]]) -> None:
    url, game = live
    path = f"{url}/games/{game['id']}/events/stream"
    with httpx.Client(timeout=10) as http, ExitStack() as open_streams:
        for _ in range(2):
            reply = open_streams.enter_context(http.stream("GET", path))
            assert reply.status_code == 200
        refused = http.get(path)
        expect_problem(refused, 429, "rate-limited", "2 open event streams")
        assert refused.headers["retry-after"] == "1"
    # the server frees slots as it sees the closes
    wait_until(lambda: opens(path), message="closed streams did not give their slots back")


def opens(path: str) -> bool:
    """Whether a stream opens now."""
    with httpx.Client(timeout=10) as http, http.stream("GET", path) as reply:
        return reply.status_code == 200


def test_stream_slots_cap_each_client_and_the_total() -> None:
    slots = StreamSlots(per_client=2, total=3)
    slots.acquire("a")
    slots.acquire("a")
    with pytest.raises(Refusal, match="2 open event streams per client") as mine:
        slots.acquire("a")
    slots.acquire("b")
    with pytest.raises(Refusal, match=r"most open event streams \(3\)") as full:
        slots.acquire("c")
    assert (mine.value.extra["retry_after"], full.value.extra["retry_after"]) == (1, 5)
    assert (slots.count("a"), slots.count("b"), slots.count()) == (2, 1, 3)
    slots.release("a")
    slots.release("nobody")  # a slot never taken gives nothing back
    slots.acquire("c")
    assert (slots.count("a"), slots.count("c"), slots.count()) == (1, 1, 3)


def test_no_cors_headers_by_default(api: TestClient[Any]) -> None:
    reply = api.get("/health", headers={"Origin": ORIGIN})
    assert "access-control-allow-origin" not in reply.headers
    preflight = api.options("/games", headers=preflight_headers(ORIGIN))
    assert "access-control-allow-origin" not in preflight.headers


def test_cors_allows_configured_origins_only(tmp_path: Path) -> None:
    origins = f"{ORIGIN}, https://other.example"
    with client(tmp_path, cors_origins=origins) as api:
        simple = api.get("/health", headers={"Origin": ORIGIN})
        assert simple.headers["access-control-allow-origin"] == ORIGIN
        assert "x-request-id" in simple.headers["access-control-expose-headers"].lower()
        preflight = api.options("/games", headers=preflight_headers(ORIGIN))
        assert preflight.status_code in (200, 204)
        assert preflight.headers["access-control-allow-origin"] == ORIGIN
        allowed = preflight.headers["access-control-allow-headers"].lower()
        assert "authorization" in allowed and "idempotency-key" in allowed
        refused = api.get("/health", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in refused.headers
        bad = api.options("/games", headers=preflight_headers("https://evil.example"))
        assert bad.status_code >= 400
        assert "access-control-allow-origin" not in bad.headers


def test_cors_origins_come_from_the_environment() -> None:
    env = {"TABULA_CORS_ORIGINS": "https://a.example,https://b.example", "TABULA_WRITE_RATE": "5"}
    settings = Settings.from_env(env)
    assert settings.cors_origins == "https://a.example,https://b.example"
    assert settings.write_rate == 5.0


def preflight_headers(origin: str) -> dict[str, str]:
    """A browser's preflight for a POST with a token."""
    return {
        "Origin": origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
    }

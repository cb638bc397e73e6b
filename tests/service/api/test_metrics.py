"""GET /metrics: the Prometheus text format, for the holder of the metrics token only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient
from prometheus_client.parser import text_string_to_metric_families

from eventstore import SqliteEventStore
from service.app import create_app
from service.settings import Settings
from tests.clocks import ManualClock
from tests.live import serving
from tests.service.api.test_bad_input import expect_problem
from tests.service.conftest import auth, create
from tests.waiting import wait_until

TOKEN = "metrics-secret-for-tests"
MOVES_ROUTE = {"method": "POST", "route": "/games/{game_id}/moves", "status": "2xx"}
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(http: httpx.Client) -> tuple[Samples, str]:
    """Every sample of /metrics by name and labels, parsed by prometheus-client, and the text."""
    reply = http.get("/metrics", headers=auth(TOKEN))
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    samples = {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(reply.text)
        for sample in family.samples
    }
    return samples, reply.text


def value(samples: Samples, name: str, **labels: str) -> float:
    """One sample's value, 0 when it is absent (a series not yet observed)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def settings(tmp_path: Path, **changes: Any) -> Settings:
    return Settings(database=str(tmp_path / "metrics.db"), log_level="warning", **changes)


@pytest.fixture
def http(tmp_path: Path) -> Iterator[httpx.Client]:
    """An HTTP client of the real app served by uvicorn (the sweeper runs), with metrics."""
    with (
        serving(create_app(settings(tmp_path, metrics_token=TOKEN))) as url,
        httpx.Client(base_url=url, timeout=10) as client,
    ):
        yield client


def play(http: httpx.Client, created: dict[str, Any], moves: int) -> None:
    """Play ``moves`` first legal moves as the referee, for whichever seat is pending."""
    game_id, referee = created["id"], auth(created["tokens"]["referee"])
    for _ in range(moves):
        legal = http.get(f"/games/{game_id}/legal-moves", headers=referee).json()
        body = {"move": legal["moves"][0]["id"], "expected_version": legal["version"]}
        reply = http.post(f"/games/{game_id}/moves", json=body, headers=referee)
        assert reply.status_code == 200, reply.text


def test_metrics_count_moves_time_routes_and_see_the_games(http: httpx.Client) -> None:
    before, _ = scrape(http)
    race = create(http, "race35", players=2)
    timed = create(http, "sorry", players=2, clock={"total": 600})
    play(http, race, 7)  # on the event loop (untimed)
    play(http, timed, 4)  # on a worker thread, its clock enforced first
    referee = auth(race["tokens"]["referee"]) | {"Idempotency-Key": "once"}
    legal = http.get(f"/games/{race['id']}/legal-moves", headers=referee).json()
    for _ in range(2):  # the retry replays the first reply: one move
        body = {"move": legal["moves"][0]["id"]}
        assert http.post(f"/games/{race['id']}/moves", json=body, headers=referee).is_success
    reply = http.post(  # a refused move counts as no move
        f"/games/{race['id']}/moves",
        json={"move": "nonsense"},
        headers=auth(race["tokens"]["referee"]),
    )
    assert reply.status_code == 422
    after, text = scrape(http)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("tabula_moves_total", ruleset="race35") == 7 + 1
    assert grew("tabula_moves_total", ruleset="sorry") == 4
    assert value(after, "tabula_moves_total", ruleset="ludo") == 0
    assert grew("tabula_request_duration_seconds_count", **MOVES_ROUTE) == 7 + 4 + 2
    refused = MOVES_ROUTE | {"status": "4xx"}
    assert grew("tabula_request_duration_seconds_count", **refused) == 1
    assert value(after, "tabula_request_duration_seconds_bucket", le="+Inf", **MOVES_ROUTE) == 13
    assert value(after, "tabula_games_in_memory") == 2
    logged = sum(http.get(f"/games/{g['id']}").json()["version"] for g in (race, timed))
    assert grew("tabula_store_commit_events_sum") == logged  # every event, in some commit
    assert 1 <= grew("tabula_store_commit_events_count") <= logged
    assert value(after, "tabula_sweeper_lag_seconds") == 0  # nothing due: the sweeper keeps up
    for secret in (race["id"], timed["id"], race["tokens"]["referee"], TOKEN):
        assert secret not in text


def test_unknown_paths_and_methods_are_one_series_whatever_they_are(http: httpx.Client) -> None:
    for n in range(5):
        assert http.get(f"/no/such/{n}").status_code == 404
        assert http.request(("PURGE", "PROPFIND")[n % 2], "/health").is_client_error
    samples, text = scrape(http)
    unmatched = {"method": "GET", "route": "unmatched", "status": "4xx"}
    assert value(samples, "tabula_request_duration_seconds_count", **unmatched) == 5
    methods = {
        labels for name, labels in samples if name == "tabula_request_duration_seconds_count"
    }
    assert {dict(labels)["method"] for labels in methods} == {"GET", "other"}
    assert "/no/such" not in text and "PURGE" not in text


def test_open_streams_are_counted_until_they_close(http: httpx.Client) -> None:
    created = create(http, players=2)
    opened = http.stream("GET", f"/games/{created['id']}/events/stream")
    with opened as reply:
        assert reply.status_code == 200
        assert value(scrape(http)[0], "tabula_streams_open") == 1
    wait_until(
        lambda: value(scrape(http)[0], "tabula_streams_open") == 0,
        message="a closed stream still counted as open",
    )


def test_the_sweeper_lag_is_how_late_an_overdue_clock_is(tmp_path: Path) -> None:
    clock = ManualClock()
    store = SqliteEventStore(tmp_path / "lag.db", clock=clock)
    app = create_app(settings(tmp_path, metrics_token=TOKEN), store, clock)
    try:
        api = TestClient(app)  # no lifespan: no sweeper runs, so the deadline passes unenforced
        assert value(scrape(api)[0], "tabula_sweeper_lag_seconds") == 0
        created = create(
            api, "sorry", players=2, clock={"per_decision": 0.2, "on_timeout": "forfeit"}
        )
        clock.advance(0.5)
        lag = value(scrape(api)[0], "tabula_sweeper_lag_seconds")
        assert lag == pytest.approx(0.5 - 0.2)
        body = {"move": "draw"}  # a write enforces the game's clock first: it forfeits
        seat = auth(created["tokens"]["seats"][0])
        assert api.post(f"/games/{created['id']}/moves", json=body, headers=seat).status_code == 409
        assert api.get(f"/games/{created['id']}").json()["status"] == "finished"
        assert value(scrape(api)[0], "tabula_sweeper_lag_seconds") == 0
    finally:
        store.close()


def test_metrics_need_the_metrics_token(http: httpx.Client) -> None:
    expect_problem(http.get("/metrics"), 401, "unauthorized", "metrics token")
    expect_problem(http.get("/metrics", headers=auth("wrong")), 401, "unauthorized")
    expect_problem(http.get("/metrics", headers={"Authorization": "Basic x"}), 401, "unauthorized")


def test_without_a_token_there_are_no_metrics(api: TestClient[Any]) -> None:
    expect_problem(api.get("/metrics"), 404, "not-found")


def test_metrics_are_not_in_the_openapi_document(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path, metrics_token=TOKEN))
    assert not any("metrics" in path for path in app.openapi_schema.paths or {})

"""PostgreSQL stopped under playing clients (issue 27.2): nothing waits for it on the event
loop, so ``/health`` stays quick; every write and read that needs it gets a 503
``store-unavailable`` at once (within ``store_timeout`` at worst); once it is back, writes
are taken within a second, with nothing lost or applied twice and no restart.

A private cluster (``machine.Cluster``) is stopped as a crash would stop it (``immediate``),
for an outage of ``OUTAGE`` seconds.
"""

from __future__ import annotations

import json
import time
import uuid

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from service.app import create_app
from service.settings import Settings
from tests.faults.load import Probe, playing, reckon
from tests.faults.machine import cluster
from tests.live import serving
from tests.waiting import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.slow]  # the outage lasts OUTAGE seconds

PLAYERS = 4
OUTAGE = 3.0
HEALTH_BOUND = 1.0
FIRST_WRITE_BOUND = 2.0
"""Seconds, loose for a loaded machine shared by the test runs of others (the targets are
0.1 s and 1 s: bench/faults.py measures both). Before, /health took up to 30 s while the
database was down, and writes came back 6-9 s after it (the pool's reconnection backoff)."""


def test_a_stopped_postgres_costs_no_liveness_and_writes_resume_within_a_second() -> None:
    with cluster() as postgres:
        settings = Settings(
            database_url=postgres.url, store_timeout=2.0, log_level="critical", create_rate=0
        )
        with serving(create_app(settings)) as url:
            with playing(url, PLAYERS, timeout=20) as players:
                game, referee = next(iter(players[0].referees.items()))
                with Probe(url) as probe:
                    postgres.stop()
                    began = time.monotonic()
                    keyed = keyed_move(url, game, referee)
                    assert time.monotonic() - began < settings.store_timeout + 1
                    assert_unavailable(keyed)
                    ready = httpx.get(f"{url}/ready", timeout=10)
                    assert (
                        ready.status_code == 503
                        and ready.json()["checks"]["database"] == "unreachable"
                    )
                    time.sleep(OUTAGE)
                    postgres.start()
                    back = time.monotonic()
                    wait_until(
                        lambda: any(t > back for p in players for t in p.acked_at), timeout=10
                    )
            first = min(t for p in players for t in p.acked_at if t > back) - back
            assert first < FIRST_WRITE_BOUND, (
                f"the first write after PostgreSQL came back took {first:.2f} s"
            )
            assert probe.failed == 0 and probe.longest < HEALTH_BOUND, probe.longest
            assert [p.failure for p in players] == [None] * PLAYERS
            figures = reckon(url, players)
            assert (figures.lost, figures.duplicated, figures.audits_failed) == (0, 0, 0)
            assert set(figures.errors) <= {"503 store-unavailable"}, figures.errors
            assert httpx.get(f"{url}/ready", timeout=10).status_code == 200


def test_a_socket_that_finds_postgres_down_is_closed_with_1011_to_connect_again() -> None:
    with cluster() as postgres:
        settings = Settings(database_url=postgres.url, store_timeout=2.0, log_level="critical")
        with serving(create_app(settings)) as url:
            created = httpx.post(f"{url}/games", json={"ruleset": "sorry", "seats": [{}, {}]})
            postgres.stop()
            socket_url = url.replace("http", "ws", 1) + f"/games/{created.json()['id']}/socket"
            with connect(socket_url, open_timeout=10) as socket:
                socket.send(json.dumps({"type": "hello", "token": None, "after": 0}))
                with pytest.raises(ConnectionClosed) as closed:
                    socket.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1011


def test_a_feed_that_finds_postgres_down_is_closed_with_1011_to_connect_again() -> None:
    with cluster() as postgres:
        settings = Settings(database_url=postgres.url, store_timeout=2.0, log_level="critical")
        with serving(create_app(settings)) as url:
            key = httpx.post(f"{url}/players", json={"handle": "ann"}).json()["key"]
            postgres.stop()
            with connect(url.replace("http", "ws", 1) + "/me/socket", open_timeout=10) as feed:
                feed.send(json.dumps({"type": "hello", "token": key, "after": None}))
                with pytest.raises(ConnectionClosed) as closed:
                    while True:  # a welcome may come first, from what the process holds
                        feed.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1011


def keyed_move(url: str, game: str, referee: str) -> httpx.Response:
    """A move with an Idempotency-Key (its key is looked up in the store before anything)."""
    headers = {"Authorization": f"Bearer {referee}", "Idempotency-Key": uuid.uuid4().hex}
    body = {"move": "nothing", "seat": 0}
    return httpx.post(f"{url}/games/{game}/moves", json=body, headers=headers, timeout=30)


def assert_unavailable(reply: httpx.Response) -> None:
    """A 503 store-unavailable that says the database cannot be reached, and nothing more."""
    assert reply.status_code == 503, reply.text
    problem = reply.json()
    assert problem["type"].endswith("/store-unavailable") and problem["fault"] == "unreachable"
    assert int(reply.headers["Retry-After"]) >= 1
    assert "postgresql://" not in reply.text and "SELECT" not in reply.text

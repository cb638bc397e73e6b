"""Several service processes over one PostgreSQL database: each sees the others' writes.

Two apps built by ``create_app`` over the same database stand for two processes (each has
its own store, connection pool and in-memory projections); one test also runs a real
``python -m service`` subprocess configured by TABULA_DATABASE_URL.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient

from eventstore import StoredEvent
from eventstore.postgres import PostgresEventStore
from service.app import create_app
from service.settings import Settings
from service.store import open_store
from service.usecases.live.stream import ANNOUNCED_POLL_SECONDS
from tests.live import serving
from tests.postgres import postgres_schema
from tests.service.conftest import auth
from tests.waiting import wait_until

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[3]
Api = TestClient[Any]


@pytest.fixture
def url() -> Iterator[str]:
    with postgres_schema("service") as url:
        yield url


def settings(url: str) -> Settings:
    return Settings(database_url=url, log_level="warning")


@pytest.fixture
def apps(url: str) -> Iterator[tuple[Api, Api]]:
    with TestClient(create_app(settings(url))) as a, TestClient(create_app(settings(url))) as b:
        yield a, b


def create(api: Api | httpx.Client, players: int = 2) -> dict[str, Any]:
    seats = [{"name": f"P{i}"} for i in range(players)]
    reply = api.post("/games", json={"ruleset": "race35", "seats": seats})
    assert reply.status_code == 201, reply.text
    created: dict[str, Any] = reply.json()
    return created


def next_move(api: Api | httpx.Client, created: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The token of the seat to act and a body playing its first legal move."""
    state = api.get(f"/games/{created['id']}").json()
    token = created["tokens"]["seats"][state["to_act"][0]["seat"]]
    legal = api.get(f"/games/{created['id']}/legal-moves", headers=auth(token)).json()
    return token, {"move": legal["moves"][0]["id"], "expected_version": legal["version"]}


def play(api: Api | httpx.Client, created: dict[str, Any]) -> dict[str, Any]:
    """Play the next move; the reply."""
    token, body = next_move(api, created)
    reply = api.post(f"/games/{created['id']}/moves", json=body, headers=auth(token))
    assert reply.status_code == 200, reply.text
    played: dict[str, Any] = reply.json()
    return played


def test_database_url_selects_postgres(url: str) -> None:
    store = open_store("unused.db", "FULL", url)
    try:
        assert isinstance(store, PostgresEventStore)
    finally:
        store.close()
    assert Settings.from_env({"TABULA_DATABASE_URL": url}).database_url == url


def test_a_move_through_one_process_is_read_through_another(apps: tuple[Api, Api]) -> None:
    a, b = apps
    created = create(a)
    assert b.get(f"/games/{created['id']}").json()["version"] == created["version"]
    for _ in range(3):
        played = play(a, created)
        seen = b.get(f"/games/{created['id']}").json()
        assert seen["version"] == played["version"]
        assert seen["pieces"] == played["state"]["pieces"]
    events = b.get(f"/games/{created['id']}/events").json()
    assert [e["version"] for e in events["events"]][-1] == played["version"]


def test_stale_expected_version_through_another_process_conflicts(
    apps: tuple[Api, Api],
) -> None:
    a, b = apps
    created = create(a)
    token, body = next_move(b, created)  # B has now seen the game at this version
    play(a, created)
    reply = b.post(f"/games/{created['id']}/moves", json=body, headers=auth(token))
    assert reply.status_code == 409, reply.text
    assert reply.headers["content-type"].startswith("application/problem+json")


def test_each_process_continues_from_the_others_moves(apps: tuple[Api, Api]) -> None:
    a, b = apps
    created = create(a)
    versions = [play((a, b)[turn % 2], created)["version"] for turn in range(8)]
    assert versions == sorted(set(versions))
    audit = b.get(f"/games/{created['id']}/audit", headers=auth(created["tokens"]["referee"]))
    assert audit.status_code == 200 and audit.json()["verification"]["valid"]


def test_racing_moves_through_two_processes_one_wins(apps: tuple[Api, Api]) -> None:
    created = create(apps[0])
    token, body = next_move(apps[0], created)
    statuses: list[int] = []
    start = threading.Barrier(2)

    def post(api: Api) -> None:
        start.wait()
        reply = api.post(f"/games/{created['id']}/moves", json=body, headers=auth(token))
        statuses.append(reply.status_code)

    workers = [threading.Thread(target=post, args=(api,)) for api in apps]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(statuses) == [200, 409]


class ListeningStore(PostgresEventStore):
    """The store of a process whose live stream a test waits on: ``waiting`` is set once a
    subscriber has been woken by the listening connection (so LISTEN is in effect) and the log
    has been read after that, so the stream has seen the log and waits for news."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.heard = threading.Event()
        self.waiting = threading.Event()

    def subscribe(self, stream_id: str, wake: Callable[[int | None], None]) -> Callable[[], None]:
        def heard(version: int | None) -> None:
            self.heard.set()
            wake(version)

        return super().subscribe(stream_id, heard)

    def read(self, *args: Any, **kwargs: Any) -> list[StoredEvent]:
        heard = self.heard.is_set()
        events = super().read(*args, **kwargs)
        if heard:
            self.waiting.set()
        return events


def first_event_after(base: str, game_id: str, after: int, seen: list[float]) -> None:
    """Follow a game's stream and note when the first event after ``after`` arrives."""
    headers = {"Last-Event-ID": str(after)}
    path = f"{base}/games/{game_id}/events/stream"
    with httpx.stream("GET", path, headers=headers, timeout=30) as reply:
        for line in reply.iter_lines():
            if line.startswith("data:"):
                seen.append(time.monotonic())
                return


def test_a_stream_on_one_process_gets_another_process_moves_promptly(url: str) -> None:
    seen: list[float] = []
    store_b = ListeningStore(url)
    with (
        serving(create_app(settings(url))) as base_a,
        serving(create_app(settings(url), store_b)) as base_b,
        httpx.Client(base_url=base_a) as a,
    ):
        created = create(a)
        reader = threading.Thread(
            target=first_event_after, args=(base_b, created["id"], created["version"], seen)
        )
        reader.start()
        wait_until(store_b.waiting.is_set, message="the stream on B never waited for news")
        began = time.monotonic()
        play(a, created)
        reader.join(timeout=20)
    assert seen, "the stream on B never showed A's move"
    assert seen[0] - began < ANNOUNCED_POLL_SECONDS / 2  # woken by NOTIFY, not by polling


def test_a_service_subprocess_configured_by_database_url_shares_the_log(
    url: str, apps: tuple[Api, Api]
) -> None:
    a, _ = apps
    created = create(a)
    with service_process(url) as base, httpx.Client(base_url=base) as other:
        token, body = next_move(other, created)
        play(a, created)
        stale = other.post(f"/games/{created['id']}/moves", json=body, headers=auth(token))
        assert stale.status_code == 409
        played = play(other, created)
    assert a.get(f"/games/{created['id']}").json()["version"] == played["version"]


def unused_port() -> int:
    """A loopback TCP port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def service_process(url: str) -> Iterator[str]:
    """``python -m service`` on a free port, configured by TABULA_DATABASE_URL; its URL."""
    port = unused_port()
    env = os.environ | {"TABULA_DATABASE_URL": url, "TABULA_LOG_LEVEL": "warning"}
    command = [sys.executable, "-m", "service", "--port", str(port)]
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


def wait_until_up(base: str, process: subprocess.Popen[bytes]) -> None:
    """Poll /health until the service answers."""

    def up() -> bool:
        assert process.poll() is None, f"the service exited with {process.returncode}"
        try:
            return httpx.get(f"{base}/health", timeout=1).status_code == 200
        except httpx.TransportError:
            return False

    wait_until(up, timeout=20, message=f"the service at {base} did not come up")

"""Seeks posted at once through two service processes over one PostgreSQL database (two apps
built by ``create_app``, each with its own store, pool and memory, served by uvicorn): every
seek is matched once or still waits, none is seated twice, none is lost, and each table is
complete and played with its seekers' secrets."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from eventstore.postgres import PostgresEventStore
from service.app import create_app
from service.settings import Settings
from tests.live import serving
from tests.postgres import postgres_schema
from tests.service.conftest import auth
from tests.service.seeks.seeking import LUDO4

pytestmark = pytest.mark.postgres

CLIENTS = 6  # threads posting at once, half through each process
SEEKS = 9  # each


@pytest.fixture
def url() -> Iterator[str]:
    with postgres_schema("seeks") as url:
        yield url


def post_many(base: str, start: threading.Barrier, posted: list[dict[str, Any]]) -> None:
    """Post ``SEEKS`` guests' seeks through ``base`` as fast as it answers, once all start."""
    with httpx.Client(base_url=base, timeout=60) as client:
        start.wait()
        for _ in range(SEEKS):
            reply = client.post("/seeks", json=LUDO4)
            assert reply.status_code == 201, reply.text
            posted.append(reply.json())


def test_seeks_racing_through_two_processes_are_each_seated_once_or_wait(url: str) -> None:
    settings = Settings(database_url=url, log_level="warning")
    posted: list[dict[str, Any]] = []
    with serving(create_app(settings)) as a, serving(create_app(settings)) as b:
        start = threading.Barrier(CLIENTS)
        bases = [(a, b)[n % 2] for n in range(CLIENTS)]
        threads = [threading.Thread(target=post_many, args=(x, start, posted)) for x in bases]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(posted) == CLIENTS * SEEKS
        with httpx.Client(base_url=a) as client:
            views = [read(client, p) for p in posted]
            tables = seated(views)
            secrets = {p["id"]: p["secret"] for p in posted}
            for game_id, seats in tables.items():
                play_first(client, game_id, {v["seat"]: secrets[v["id"]] for v in seats})
    waiting = [view for view in views if view["status"] == "waiting"]
    assert len(waiting) == len(posted) % 4 and len(tables) == len(posted) // 4
    assert_matched_once(url, posted)


def read(client: httpx.Client, posted: dict[str, Any]) -> dict[str, Any]:
    reply = client.get(f"/seeks/{posted['id']}", headers=auth(posted["secret"]))
    assert reply.status_code == 200, reply.text
    view: dict[str, Any] = reply.json()
    assert view["status"] in ("matched", "waiting"), view
    return view


def seated(views: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The matched seeks by table; each table's seats 0 to 3, each once."""
    tables: dict[str, list[dict[str, Any]]] = {}
    for view in views:
        if view["status"] == "matched":
            tables.setdefault(view["game_id"], []).append(view)
    for seats in tables.values():
        assert sorted(view["seat"] for view in seats) == [0, 1, 2, 3]
    return tables


def play_first(client: httpx.Client, game_id: str, secrets: dict[int, str]) -> None:
    """The seat to act plays its first legal move with its seeker's secret."""
    state = client.get(f"/games/{game_id}").json()
    assert len(state["seats"]) == 4 and state["status"] == "active"
    headers = auth(secrets[state["to_act"][0]["seat"]])
    legal = client.get(f"/games/{game_id}/legal-moves", headers=headers).json()
    body = {"move": legal["moves"][0]["id"], "expected_version": legal["version"]}
    reply = client.post(f"/games/{game_id}/moves", json=body, headers=headers)
    assert reply.status_code == 200, reply.text


def assert_matched_once(url: str, posted: list[dict[str, Any]]) -> None:
    """The shape's log posts each seek once and matches each at most once."""
    store = PostgresEventStore(url)
    try:
        stream = "seeks-" + posted[0]["id"].rsplit("-", 1)[0]
        events = store.read(stream)
    finally:
        store.close()
    posts = Counter(e.data["seek"] for e in events if e.type == "SeekPosted")
    matches = Counter(s for e in events if e.type == "SeeksMatched" for s in e.data["seeks"])
    assert set(posts) == {p["id"] for p in posted} and set(posts.values()) == {1}
    assert set(matches.values()) == {1} and len(matches) == len(posted) // 4 * 4

"""SIGKILL the real server in the middle of creating many games at once: a batch of tables
(``POST /games/batch``) and a tournament round (``POST /tournaments/{id}/rounds``) are each
one transaction, so after the restart either all of their games are stored or none is.

Each kill comes at a random moment within the time such a request takes (measured first on
the same server), while the request is in flight; the test counts the kills that cut a
request off (no reply) and fails unless most did, since kills between requests would prove
nothing. Then, on the restarted server: every batch's tag lists 0 or all of its tables, and
every tournament is either unpaired with no games tagged with it, or paired with exactly its
round's tables as games (and ``python -m service verify``'s checks hold on its record).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.service.processes.test_crashes import ROOT, Server
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

KILLS = 6
TABLES = 60
PLAYERS = 120  # a round of 60 tables of two
QUICK = {"special_squares": {}}


class Generous(Server):
    """The crash tests' server, with creation budgets no batch here runs into (and a minute
    to start on a loaded machine)."""

    def start(self) -> None:
        command = [sys.executable, "-m", "service", "--database", str(self.database)]
        budgets = {"TABULA_CREATE_BURST": "100000", "TABULA_CREATE_RATE": "100000"}
        env = {**os.environ, "TABULA_LOG_LEVEL": "warning", **budgets}
        self.process = subprocess.Popen(
            [*command, "--port", str(self.port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(self.healthy, timeout=60, message="the server did not answer /health")


def batch_body(tag: str) -> dict[str, Any]:
    seats = [{"name": "A"}, {"name": "B"}]
    game = {"ruleset": "race35", "seats": seats, "options": QUICK, "tags": {"batch": tag}}
    return {"games": [game] * TABLES}


def new_tournament(client: httpx.Client) -> tuple[str, str]:
    body = {
        "name": "Kill night",
        "ruleset": "race35",
        "format": "swiss",
        "rounds": 1,
        "seats_per_table": 2,
        "options": QUICK,
        "players": [{"name": f"P{i}"} for i in range(PLAYERS)],
    }
    reply = client.post("/tournaments", json=body)
    assert reply.status_code == 201, reply.text
    created = reply.json()
    return created["id"], created["tokens"]["director"]


def tagged(client: httpx.Client, key: str, value: str) -> int:
    """How many games list ``key:value`` (every page)."""
    count, url = 0, f"/games?tag={key}:{value}&limit=100"
    while url:
        page = client.get(url).json()
        count += len(page["games"])
        url = page.get("next") or ""
    return count


def cut_off(server: Server, send: Any, within: float, rng: random.Random) -> bool:
    """Send a request on a thread and SIGKILL the server at a random moment within
    ``within`` seconds; whether the request was still waiting for its reply."""
    answered = threading.Event()

    def run() -> None:
        try:
            send()
            answered.set()
        except httpx.TransportError:
            pass

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(rng.uniform(0.05, 0.95) * within)
    cut = not answered.is_set()
    server.kill()
    thread.join(timeout=30)
    return cut


def timed(send: Any) -> float:
    start = time.monotonic()
    send()
    return time.monotonic() - start


def test_a_batch_and_a_round_killed_midway_store_all_or_nothing(tmp_path: Path) -> None:
    rng = random.Random(20261201)
    server = Generous(tmp_path / "kills.db")
    server.start()
    batches: list[str] = []
    tournaments: list[str] = []
    cuts = 0
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            tag = uuid.uuid4().hex
            batch_time = timed(lambda: client.post("/games/batch", json=batch_body(tag)))
            tid, director = new_tournament(client)
            path, auth = f"/tournaments/{tid}/rounds", {"Authorization": f"Bearer {director}"}
            pair_time = timed(lambda: client.post(path, json={}, headers=auth))
        for _ in range(KILLS):
            with httpx.Client(base_url=server.url, timeout=60) as client:
                tag = uuid.uuid4().hex
                batches.append(tag)
                send = partial(client.post, "/games/batch", json=batch_body(tag))
                cuts += cut_off(server, send, batch_time, rng)
            server.start()
            with httpx.Client(base_url=server.url, timeout=60) as client:
                tid, director = new_tournament(client)
                tournaments.append(tid)
                path, auth = f"/tournaments/{tid}/rounds", {"Authorization": f"Bearer {director}"}
                send = partial(client.post, path, json={}, headers=auth)
                cuts += cut_off(server, send, pair_time, rng)
            server.start()
        with httpx.Client(base_url=server.url, timeout=60) as client:
            for tag in batches:
                assert tagged(client, "batch", tag) in (0, TABLES), tag
            for tid in tournaments:
                rounds = client.get(f"/tournaments/{tid}").json()["rounds"]
                tables = sum(len(r["tables"]) for r in rounds)
                assert tables in (0, PLAYERS // 2)
                assert tagged(client, "tournament", tid) == tables, tid
    finally:
        server.kill()
    print(f"{2 * KILLS} kills, {cuts} cut a request off")
    assert cuts >= KILLS, f"only {cuts} of {2 * KILLS} kills came while a request was in flight"

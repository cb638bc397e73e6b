"""SIGKILL the real server again and again under writers: no acknowledged write is lost, no
write is half stored, every chain verifies and every game rebuilds.

Each kill comes once the restarted server has acknowledged a random number of writes, at a
moment when a writer is waiting for a write's reply. The test counts the writes each kill cut
off (sent, no reply) and fails unless two thirds of the kills cut one off: kills between
writes would prove nothing about crashes mid-write. A move cut off is sent again with its key
and must then be acknowledged.

``pytest -s`` prints the kills survived, the writes cut off and acknowledged and the games
played.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.service.conftest import free_port
from tests.service.logcheck import check_log
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[3]
KILLS = 21
WRITERS = 4
WRITES_BEFORE_A_KILL = (1, 30)
"""A kill comes after this many (at random, inclusive) writes acknowledged since the start."""
RULESETS = ["race35", "sorry", "parchis"]
Acknowledged = dict[str, dict[int, str]]  # game id -> version -> event type


class Server:
    """``python -m service`` as a child process that can be killed and started again."""

    def __init__(self, database: Path) -> None:
        self.database, self.port = database, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "service", "--database", str(self.database)]
        env = {**os.environ, "TABULA_LOG_LEVEL": "warning"}
        self.process = subprocess.Popen(
            [*command, "--port", str(self.port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,  # uvicorn's own startup lines
        )
        wait_until(self.healthy, timeout=20, message="the server did not answer /health")

    def healthy(self) -> bool:
        assert self.process is not None and self.process.poll() is None, "the server exited"
        try:
            return httpx.get(f"{self.url}/health", timeout=1).status_code == 200
        except httpx.TransportError:
            return False

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()  # SIGKILL: no shutdown hook runs
        self.process.wait()


@contextmanager
def running(database: Path) -> Iterator[Server]:
    server = Server(database)
    server.start()
    try:
        yield server
    finally:
        server.kill()


class Writer:
    """A client playing its own games: creates them, then plays legal moves as the referee,
    each with an Idempotency-Key and the version it read, retrying through crashes."""

    def __init__(self, url: str, seed: int, stop: threading.Event) -> None:
        self.client = httpx.Client(base_url=url, timeout=10)
        self.random, self.stop = random.Random(seed), stop
        self.acknowledged: Acknowledged = {}
        self.referees: dict[str, str] = {}
        self.game: str | None = None
        self.writes = 0
        self.cut = 0  # writes sent whose reply a kill cut off
        self.posting = False  # waiting for a write's reply now
        self.retried = 0  # of those, moves acknowledged on a retry with the same key

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.step()
            except httpx.TransportError:
                time.sleep(0.02)  # the server is down: try again once it is back

    def step(self) -> None:
        if self.game is None:
            self.create()
            return
        state = self.client.get(f"/games/{self.game}").json()
        if state["status"] == "finished":
            self.game = None
            return
        referee = {"Authorization": f"Bearer {self.referees[self.game]}"}
        moves = self.client.get(f"/games/{self.game}/legal-moves", headers=referee).json()
        move = self.random.choice(moves["moves"])
        body = {"move": move["id"], "seat": move["seat"], "expected_version": moves["version"]}
        headers = {**referee, "Idempotency-Key": uuid.uuid4().hex}
        self.send(f"/games/{self.game}/moves", body, headers)

    def post(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
        """POST once; a transport error other than a refused connection means the request
        went out and a kill cut off its reply: counted in ``cut``."""
        self.posting = True
        try:
            return self.client.post(path, json=body, headers=headers)
        except (httpx.ConnectError, httpx.ConnectTimeout):
            raise  # the server is down: nothing was sent
        except httpx.TransportError:
            self.cut += 1
            raise
        finally:
            self.posting = False

    def send(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        """Post until a reply comes (the same key every time); record it if it is a 2xx.

        Only this writer plays its games, so a move cut off by a kill and sent again with its
        key must be acknowledged: stored before the kill, the retry replays it; lost, the
        retry plays it."""
        cut = False
        while True:
            try:
                reply = self.post(path, body, headers)
                break
            except httpx.TransportError as error:
                cut = cut or not isinstance(error, httpx.ConnectError | httpx.ConnectTimeout)
                if self.stop.is_set():
                    return
                time.sleep(0.02)
        assert reply.status_code < 500, reply.text
        if cut:
            assert reply.is_success, f"a retried move was refused: {reply.text}"
            self.retried += 1
        if reply.is_success:
            assert self.game is not None
            self.writes += 1
            for event in reply.json()["events"]:
                self.acknowledged[self.game][event["version"]] = event["type"]

    def create(self) -> None:
        body = {"ruleset": self.random.choice(RULESETS), "seats": [{}, {}], "auto_chance": True}
        reply = self.post("/games", body, {})  # lost in a crash: no reply, not counted
        assert reply.status_code == 201, reply.text
        created = reply.json()
        self.game = created["id"]
        self.referees[created["id"]] = created["tokens"]["referee"]
        self.acknowledged[created["id"]] = {1: "GameCreated"}
        self.writes += 1


def test_acknowledged_writes_survive_repeated_sigkill(tmp_path: Path) -> None:
    stop, chooser = threading.Event(), random.Random(9)
    with running(tmp_path / "crash.db") as server:
        writers = [Writer(server.url, seed, stop) for seed in range(WRITERS)]
        threads = [threading.Thread(target=w.run, daemon=True) for w in writers]
        for thread in threads:
            thread.start()
        cut_by_kill = []
        for kill in range(KILLS + 1):
            writes_after_start(writers, chooser.randint(*WRITES_BEFORE_A_KILL), kill)
            if kill == KILLS:
                break  # the last restart took writes too: stop the writers, then kill
            wait_until(
                lambda: any(w.posting for w in writers),
                interval=0.0005,
                message="no writer is sending a write",
            )
            cut = sum(w.cut for w in writers)
            server.kill()
            server.start()  # a cut-off reply fails at once, well before the server is back
            cut_by_kill.append(sum(w.cut for w in writers) - cut)
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
            assert not thread.is_alive(), "a writer did not stop"
        server.kill()
        server.start()
        summary = check_everything(server.url, writers)
    cut_kills = sum(1 for cut in cut_by_kill if cut)
    print(
        f"\ncrashes: {len(cut_by_kill)} SIGKILLs survived, {cut_kills} of them cut off writes "
        f"({sum(cut_by_kill)} cut off, {sum(w.retried for w in writers)} moves acknowledged "
        f"on a retry), {summary}"
    )
    assert cut_kills >= KILLS * 2 // 3, f"only {cut_kills} of {KILLS} kills cut off a write"


def writes_after_start(writers: list[Writer], count: int, kill: int) -> None:
    """Wait until the writers have had ``count`` more writes acknowledged."""
    target = sum(w.writes for w in writers) + count
    wait_until(
        lambda: sum(w.writes for w in writers) >= target,
        timeout=30,
        message=f"the server (started {kill + 1} times) did not acknowledge {count} more writes",
    )


def check_everything(url: str, writers: list[Writer]) -> str:
    """Every acknowledged write is in the log as acknowledged and every game's log is whole."""
    acknowledged: Acknowledged = {g: v for w in writers for g, v in w.acknowledged.items()}
    referees = {g: t for w in writers for g, t in w.referees.items()}
    with httpx.Client(base_url=url, timeout=30) as client:
        listed = [g["id"] for g in client.get("/games").json()["games"]]
        assert set(acknowledged) <= set(listed)
        for game_id in listed:
            log = check_log(client, game_id, referees.get(game_id))
            for version, kind in acknowledged.get(game_id, {}).items():
                assert version <= len(log), (game_id, version, "lost")
                assert log[version - 1]["type"] == kind, (game_id, version)
    writes = sum(w.writes for w in writers)
    events = sum(len(versions) for versions in acknowledged.values())
    return (
        f"{writes} acknowledged writes ({events} events) in {len(acknowledged)} games "
        f"of {len(listed)} stored"
    )

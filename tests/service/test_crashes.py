"""SIGKILL the real server again and again under writers: no acknowledged write is lost, no
write is half stored, every chain verifies and every game rebuilds.

``pytest -s`` prints the kills survived, the writes acknowledged and the games played.
"""

from __future__ import annotations

import os
import random
import socket
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

from tests.service.logcheck import check_log

ROOT = Path(__file__).parents[2]
KILLS = 21
WRITERS = 4
RULESETS = ["race35", "sorry", "parchis"]
Acknowledged = dict[str, dict[int, str]]  # game id -> version -> event type


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


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
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "the server exited"
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.05)
        raise AssertionError("the server did not answer /health")

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

    def send(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        """Post until a reply comes (the same key every time); record it if it is a 2xx."""
        while True:
            try:
                reply = self.client.post(path, json=body, headers=headers)
                break
            except httpx.TransportError:
                if self.stop.is_set():
                    return
                time.sleep(0.02)
        assert reply.status_code < 500, reply.text
        if reply.is_success:
            assert self.game is not None
            self.writes += 1
            for event in reply.json()["events"]:
                self.acknowledged[self.game][event["version"]] = event["type"]

    def create(self) -> None:
        body = {"ruleset": self.random.choice(RULESETS), "seats": [{}, {}], "auto_chance": True}
        reply = self.client.post("/games", json=body)  # lost in a crash: no reply, not counted
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
        kills = 0
        for _ in range(KILLS):
            time.sleep(chooser.uniform(0.05, 0.4))
            server.kill()
            kills += 1
            server.start()
        time.sleep(0.3)
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        server.kill()
        server.start()
        summary = check_everything(server.url, writers)
    print(f"\ncrashes: {kills} SIGKILLs survived, {summary}")
    assert kills >= 20


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

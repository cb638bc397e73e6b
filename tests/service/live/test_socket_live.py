"""The game socket on real servers: a resume after the server was killed and started again, a
reader that stopped reading, and two processes on PostgreSQL pushing each other's writes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from service.app import create_app
from service.settings import Settings
from tests.live import serving
from tests.postgres import postgres_schema
from tests.service.conftest import auth, free_port
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[3]


@contextmanager
def service(database: Path, **env: str) -> Iterator[str]:
    """``python -m service`` on ``database`` as a child process (killed with SIGKILL after)."""
    port = free_port()
    environment = {**os.environ, "TABULA_LOG_LEVEL": "warning", "TABULA_CREATE_RATE": "0", **env}
    command = [sys.executable, "-m", "service", "--database", str(database), "--port", str(port)]
    process = subprocess.Popen(
        command, cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        assert process.poll() is None, "the server exited"
        try:
            return httpx.get(f"{url}/health", timeout=1).status_code == 200
        except httpx.TransportError:
            return False

    try:
        wait_until(up, timeout=20, message="the server did not answer /health")
        yield url
    finally:
        process.kill()
        process.wait()


@contextmanager
def hello(url: str, game_id: str, token: str | None, after: int = 0) -> Iterator[ClientConnection]:
    """A socket on the game, its welcome read (closed after)."""
    with connect(url.replace("http", "ws", 1) + f"/games/{game_id}/socket", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": token, "after": after}))
        welcome = json.loads(ws.recv(timeout=10))
        assert welcome["type"] == "welcome", welcome
        yield ws


def pushed_until(ws: ClientConnection, version: int) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while not events or events[-1]["version"] < version:
        message = json.loads(ws.recv(timeout=10))
        assert message["type"] == "events", message
        events.extend(message["events"])
    return events


def new_game(client: httpx.Client, ruleset: str = "race35", players: int = 2) -> dict[str, Any]:
    seats = [{"name": f"P{i}"} for i in range(players)]
    reply = client.post("/games", json={"ruleset": ruleset, "seats": seats})
    assert reply.status_code == 201, reply.text
    created: dict[str, Any] = reply.json()
    return created


def play_some(client: httpx.Client, game_id: str, referee: str, count: int) -> int:
    """Play up to ``count`` first legal moves as the referee; the version after them."""
    version = 0
    for _ in range(count):
        legal = client.get(f"/games/{game_id}/legal-moves", headers=auth(referee)).json()
        version = legal["version"]
        if not legal["moves"]:
            break
        move = legal["moves"][0]
        body = {"move": move["id"], "seat": move["seat"], "expected_version": version}
        version = client.post(f"/games/{game_id}/moves", json=body, headers=auth(referee)).json()[
            "version"
        ]
    return version


@pytest.mark.slow
def test_a_socket_resumes_after_the_server_was_killed_with_nothing_lost_or_twice(
    tmp_path: Path,
) -> None:
    database = tmp_path / "tabula.db"
    with ExitStack() as sockets:
        with service(database) as url, httpx.Client(base_url=url) as client:
            created = new_game(client)
            game_id, referee = created["id"], created["tokens"]["referee"]
            ws = sockets.enter_context(hello(url, game_id, referee))
            version = play_some(client, game_id, referee, 5)
            seen = pushed_until(ws, version)
        with pytest.raises(ConnectionClosed):  # the kill cut the socket
            ws.recv(timeout=10)
    with service(database) as url, httpx.Client(base_url=url) as client:
        last = play_some(client, game_id, referee, 5)
        with hello(url, game_id, referee, after=seen[-1]["version"]) as again:
            missed = pushed_until(again, last)
        log = client.get(f"/games/{game_id}/events", headers=auth(referee)).json()["events"]
    assert seen + missed == log
    assert [e["version"] for e in log] == list(range(1, last + 1))


@pytest.mark.slow
def test_a_reader_that_stops_reading_is_closed_4409_and_the_server_goes_on(
    tmp_path: Path,
) -> None:
    env = {"TABULA_SOCKET_SEND_TIMEOUT": "1", "TABULA_METRICS_TOKEN": "m"}
    env["TABULA_SOCKET_SEND_BUFFER"] = "4096"
    with service(tmp_path / "tabula.db", **env) as url, httpx.Client(base_url=url) as client:
        created = new_game(client, "sorry", 4)
        game_id, referee = created["id"], created["tokens"]["referee"]
        play_some(client, game_id, referee, 20)
        stalled = stalled_socket(url, game_id)  # it says hello, then never reads
        wait_until(lambda: open_streams(client) == 1, message="the socket did not open")
        began, undo = time.monotonic(), {"reason": "again"}
        while open_streams(client) and time.monotonic() - began < 60:
            play_some(client, game_id, referee, 1)  # a move and its undo, forever: pushes
            client.post(f"/games/{game_id}/undo", json=undo, headers=auth(referee))
        assert open_streams(client) == 0, "the stalled socket was never closed"
        stalled.settimeout(10)
        data = b""
        while close_code(data) is None and (chunk := stalled.recv(1 << 20)):
            data += chunk  # what was buffered, then the close frame
        stalled.close()
        assert close_code(data) == 4409
        assert client.get("/health").status_code == 200


def close_code(data: bytes) -> int | None:
    """The code of the close frame among the frames the server sent."""
    at = 0
    while at + 2 <= len(data):
        opcode, size = data[at] & 0x0F, data[at + 1] & 0x7F
        at += 2
        if size >= 126:
            width = 2 if size == 126 else 8
            size, at = int.from_bytes(data[at : at + width], "big"), at + width
        if opcode == 0x8 and at + 2 <= len(data):
            return int.from_bytes(data[at : at + 2], "big")
        at += size
    return None


def open_streams(client: httpx.Client) -> float:
    """The server's open event streams and sockets, from its metrics."""
    metrics = client.get("/metrics", headers=auth("m")).text
    line = next(line for line in metrics.splitlines() if line.startswith("tabula_streams_open"))
    return float(line.split()[-1])


def stalled_socket(url: str, game_id: str) -> socket.socket:
    """A WebSocket with a tiny receive buffer that says hello, then never reads."""
    stalled = socket.socket()
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.connect(("127.0.0.1", int(url.rsplit(":", 1)[1])))
    stalled.sendall(
        f"GET /games/{game_id}/socket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += stalled.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    frame = json.dumps({"type": "hello", "token": None, "after": 0}).encode()
    stalled.sendall(bytes([0x81, 0x80 | len(frame)]) + b"\0\0\0\0" + frame)
    return stalled


@pytest.mark.postgres
def test_two_processes_on_postgresql_push_each_others_writes_to_their_sockets() -> None:
    with postgres_schema("socket") as database_url:
        settings = Settings(database_url=database_url, log_level="warning", create_rate=0)
        with (
            serving(create_app(settings)) as first,
            TestClient(create_app(settings)) as second,
        ):
            created = new_game(httpx.Client(base_url=first))
            game_id, referee = created["id"], created["tokens"]["referee"]
            with hello(first, game_id, None) as ws:
                pushed_until(ws, 1)
                legal = second.get(f"/games/{game_id}/legal-moves", headers=auth(referee)).json()
                move = legal["moves"][0]
                reply = second.post(
                    f"/games/{game_id}/moves",
                    json={"move": move["id"], "seat": move["seat"]},
                    headers=auth(referee),
                )
                assert reply.status_code == 200, reply.text
                began = time.monotonic()
                pushed = pushed_until(ws, reply.json()["version"])
                assert time.monotonic() - began < 5  # announced, not found by the safety poll
                assert pushed == reply.json()["events"]

"""The server's own lines (uvicorn's start, its errors) are rendered as the app's are: in
production every line of the output is one JSON object, and a socket's opening and closing are
logged once, by the socket, with its game."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

from tests.service.conftest import free_port
from tests.service.processes.test_cli import ROOT, answers_health
from tests.waiting import wait_until


async def open_and_close(url: str, game_id: str, token: str) -> None:
    async with connect(f"{url.replace('http', 'ws', 1)}/games/{game_id}/socket") as socket:
        await socket.send(json.dumps({"type": "hello", "token": token, "after": 0}))
        assert json.loads(await socket.recv())["type"] == "welcome"


def test_every_line_of_a_json_server_is_json_and_sockets_are_logged_once(tmp_path: Path) -> None:
    port, log = free_port(), tmp_path / "server.log"
    command = [sys.executable, "-m", "service", "--port", str(port), "--log-format", "json"]
    command += ["--database", str(tmp_path / "logs.db")]
    env = {**os.environ, "TABULA_LOG_LEVEL": "info"}
    with log.open("wb") as output:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=output)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_until(lambda: answers_health(url, process, log), timeout=30, message="no /health")
            game = httpx.post(f"{url}/games", json={"ruleset": "race35", "seats": [{}, {}]}).json()
            asyncio.run(open_and_close(url, game["id"], game["tokens"]["referee"]))
            wait_until(lambda: "socket closed" in log.read_text(), timeout=10, message="no close")
        finally:
            process.terminate()
            process.wait(timeout=30)
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    events = [line["event"] for line in lines]
    assert any("Application startup complete" in event for event in events), events
    assert all("level" in line and "timestamp" in line for line in lines), lines
    closed = [line for line in lines if line["event"] == "socket closed"]
    assert [line["game_id"] for line in closed] == [game["id"]], lines
    assert not [event for event in events if "connection" in event or "WebSocket" in event]

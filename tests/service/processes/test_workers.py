"""Several service processes over one SQLite file: ``--workers`` serving one port, and two
processes pushing each other's writes to their sockets."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import AbstractContextManager, suppress
from pathlib import Path

import httpx
import pytest
from litestar.testing import TestClient

from bench.harness import children, service_process
from service.app import create_app
from service.processes import DEATH_SECONDS, DEATHS
from service.settings import Settings
from tests.live import serving
from tests.service.conftest import auth
from tests.service.live.test_socket_live import hello, new_game, play_some, pushed_until
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[3]
STARTED = "Application startup complete."  # uvicorn's line (info) as a worker's app has started


def test_two_processes_on_one_sqlite_file_push_each_others_writes_to_their_sockets(
    tmp_path: Path,
) -> None:
    settings = Settings(database=str(tmp_path / "tabula.db"), log_level="warning", create_rate=0)
    with serving(create_app(settings)) as first, TestClient(create_app(settings)) as second:
        created = new_game(httpx.Client(base_url=first))
        game_id, referee = created["id"], created["tokens"]["referee"]
        with hello(first, game_id, None) as ws:
            pushed_until(ws, 1)
            began = time.monotonic()
            version = play_some(second, game_id, referee, 3)
            pushed = pushed_until(ws, version)
            waited = time.monotonic() - began
            assert [event["version"] for event in pushed] == list(range(2, version + 1))
            assert waited < 5  # announced by the look for others, not the 30 s safety poll


def two_workers(
    database: Path, log: Path | None = None
) -> AbstractContextManager[tuple[str, subprocess.Popen[bytes]]]:
    """``python -m service --workers 2`` on ``database``, up (stopped after, if still running),
    its output to ``log`` if given."""
    env = {"TABULA_LOG_LEVEL": "info", "TABULA_CREATE_RATE": "0", "TABULA_WORKERS": "2"}
    return service_process(database, env, log=log)


def test_workers_share_the_port_play_one_game_and_stop_together(tmp_path: Path) -> None:
    with two_workers(tmp_path / "tabula.db") as (url, parent):
        workers = children(parent.pid)
        assert len(workers) == 2
        created = httpx.post(f"{url}/games", json={"ruleset": "race35", "seats": [{}, {}]})
        game_id, referee = created.json()["id"], created.json()["tokens"]["referee"]
        for _ in range(12):  # a fresh connection each: the kernel hands them to either worker
            with httpx.Client(base_url=url) as client:
                play_some(client, game_id, referee, 1)
        events = httpx.get(f"{url}/games/{game_id}/events").json()["events"]
        assert [event["version"] for event in events] == list(range(1, len(events) + 1))
        assert len(events) > 12
        parent.send_signal(signal.SIGTERM)
        assert parent.wait(timeout=30) == 0
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)


@pytest.mark.slow
def test_a_killed_worker_is_restarted_while_the_other_serves_and_no_move_is_lost(
    tmp_path: Path,
) -> None:
    log = tmp_path / "service.log"
    with two_workers(tmp_path / "tabula.db", log) as (url, parent):
        with Moving(url) as moving:
            for restarts, worker in enumerate(children(parent.pid), start=1):
                moving.until_more(5)  # each killed in turn, likely while writing
                before = set(children(parent.pid))
                os.kill(worker, signal.SIGKILL)
                assert health_answered(url, probes=20) >= 18
                wait_until(
                    lambda: set(children(parent.pid)) - before,  # noqa: B023
                    message="no worker took the killed one's place",
                )
                wait_until(
                    lambda: log.read_text().count(STARTED) == 2 + restarts,  # noqa: B023
                    timeout=30,
                    message="the new worker never started",
                )
            moving.until_more(10)  # only restarted workers serve now: no file lock left stale
        moving.check_none_lost(url)
    assert parent.returncode == 0
    assert log.read_text().count("worker restarted") == 2


def test_a_worker_that_cannot_start_is_given_up_and_the_service_fails(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "service", "--workers", "2", "--port", "0"]
    command += ["--database", str(tmp_path / "missing" / "tabula.db")]  # opened by each worker
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "worker given up" in done.stdout
    assert "it ended before it was ready to serve" in done.stdout


def test_a_worker_that_keeps_dying_once_ready_is_given_up_and_the_service_fails() -> None:
    script = (
        "import socket, sys\n"
        "from service.processes import serve_forked\n"
        "sys.exit(serve_forked(1, socket.socket(), lambda sock, ready: ready() or 0))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stdout.count("worker restarted") == DEATHS - 1
    assert done.stdout.count("worker given up") == 1
    assert f"it died {DEATHS} times within {DEATH_SECONDS:g} s" in done.stdout


class Moving(threading.Thread):
    """Moves played one after another, each on a connection of its own (so by whichever worker
    the kernel picks), a new game when one ends; what the service acknowledged is kept."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.acknowledged: dict[str, list[int]] = {}  # game id: versions its moves ended at
        self.halt = threading.Event()

    def __enter__(self) -> Moving:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.halt.set()
        self.join(timeout=30)

    def run(self) -> None:
        game_id, referee = "", ""
        while not self.halt.is_set():
            try:
                with httpx.Client(base_url=self.url, timeout=10) as client:
                    if not game_id:
                        created = new_game(client)
                        game_id, referee = created["id"], created["tokens"]["referee"]
                        self.acknowledged[game_id] = []
                    if not self.move(client, game_id, referee):
                        game_id = ""
            except httpx.TransportError:  # a connection to the killed worker
                continue

    def move(self, client: httpx.Client, game_id: str, referee: str) -> bool:
        """Play the first legal move; whether the game went on."""
        legal = client.get(f"/games/{game_id}/legal-moves", headers=auth(referee)).json()
        if not legal["moves"]:
            return False
        move = legal["moves"][0]
        body = {"move": move["id"], "seat": move["seat"], "expected_version": legal["version"]}
        reply = client.post(f"/games/{game_id}/moves", json=body, headers=auth(referee))
        if reply.status_code == 200:
            self.acknowledged[game_id].append(reply.json()["version"])
        return True

    def count(self) -> int:
        return sum(len(versions) for versions in list(self.acknowledged.values()))

    def until_more(self, moves: int) -> None:
        """Wait until ``moves`` more moves have been acknowledged."""
        wanted = self.count() + moves
        wait_until(lambda: self.count() >= wanted, timeout=30, message="the moves stopped")

    def check_none_lost(self, url: str) -> None:
        """Every game's log is whole and holds every move acknowledged."""
        for game_id, versions in self.acknowledged.items():
            events = httpx.get(f"{url}/games/{game_id}/events").json()["events"]
            assert [event["version"] for event in events] == list(range(1, len(events) + 1))
            assert all(version <= len(events) for version in versions)


def health_answered(url: str, probes: int) -> int:
    """How many of ``probes`` ``GET /health``, 0.1 s apart, each on a connection of its own,
    were answered."""
    answered = 0
    for _ in range(probes):
        with suppress(httpx.TransportError):
            answered += httpx.get(f"{url}/health", timeout=2).status_code == 200
        time.sleep(0.1)
    return answered


def test_workers_stop_when_their_parent_is_killed(tmp_path: Path) -> None:
    with two_workers(tmp_path / "tabula.db") as (_, parent):
        workers = children(parent.pid)
        parent.kill()
        parent.wait()
        wait_until(
            lambda: not any(_running(pid) for pid in workers),
            timeout=30,
            message="a worker went on serving after its parent was killed",
        )


def test_a_number_of_workers_out_of_range_is_refused(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "service", "--workers", "0"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "workers must be 1 to 64, not 0" in done.stderr


def _running(pid: int) -> bool:
    """Whether a process is alive (not gone, not a zombie waiting for its reaper)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_workers_on_a_database_private_to_each_process_are_refused() -> None:
    command = [sys.executable, "-m", "service", "--workers", "2", "--database", ":memory:"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "workers share a database" in done.stderr

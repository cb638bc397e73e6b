"""Several service processes over one SQLite file: ``--workers`` serving one port, and two
processes pushing each other's writes to their sockets."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import AbstractContextManager
from pathlib import Path

import httpx
from litestar.testing import TestClient

from bench.harness import children, service_process
from service.app import create_app
from service.settings import Settings
from tests.live import serving
from tests.service.test_socket_live import hello, new_game, play_some, pushed_until
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


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


def two_workers(database: Path) -> AbstractContextManager[tuple[str, subprocess.Popen[bytes]]]:
    """``python -m service --workers 2`` on ``database``, up (stopped after, if still running)."""
    env = {"TABULA_LOG_LEVEL": "warning", "TABULA_CREATE_RATE": "0", "TABULA_WORKERS": "2"}
    return service_process(database, env)


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


def test_a_worker_that_dies_stops_the_others_and_the_service_fails(tmp_path: Path) -> None:
    with two_workers(tmp_path / "tabula.db") as (_, parent):
        workers = children(parent.pid)
        os.kill(workers[0], signal.SIGKILL)
        assert parent.wait(timeout=30) == 1
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)


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

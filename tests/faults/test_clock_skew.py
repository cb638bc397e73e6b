"""Clock skew: the real service (``python -m service``) on a clock that jumps forward and back
(``TABULA_CLOCK_OFFSET_FILE``: the test writes the seconds to add to the machine's time).

What must hold: a jump forward runs out the timed games whose time it passes and shows
spectators the games whose delay it passes, and expires idempotency keys older than their
lifetime; a jump back runs no seat out (a moment before the latest event uses no time, and
the time behind is not counted once the clock catches up), expires no key early, and never
shows spectators more than the service's clock allows.
No jump is ever a 5xx.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.service.conftest import auth, free_port
from tests.waiting import wait_until

ROOT = Path(__file__).parents[2]
TTL = 600.0  # the idempotency keys' lifetime the service runs with


class Skewed:
    """A running service whose clock the test moves."""

    def __init__(self, client: httpx.Client, offset_file: Path) -> None:
        self.client, self.offset_file, self.offset = client, offset_file, 0.0

    def jump(self, seconds: float) -> None:
        """Move the service's clock ``seconds`` forward (back when negative)."""
        self.offset += seconds
        self.offset_file.write_text(f"{self.offset}\n", encoding="utf-8")

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        reply = self.client.get(path, **kwargs)
        assert reply.status_code < 500, reply.text
        return reply

    def post(self, path: str, body: dict[str, Any], **kwargs: Any) -> httpx.Response:
        reply = self.client.post(path, json=body, **kwargs)
        assert reply.status_code < 500, reply.text
        return reply

    def create(self, ruleset: str = "sorry", **body: Any) -> dict[str, Any]:
        seats = [{"name": name} for name in ("Ann", "Bob")]
        reply = self.post("/games", {"ruleset": ruleset, "seats": seats, **body})
        assert reply.status_code == 201, reply.text
        created: dict[str, Any] = reply.json()
        return created


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Skewed]:
    offset_file, port = tmp_path / "offset", free_port()
    offset_file.write_text("0\n", encoding="utf-8")
    env = {
        **os.environ,
        "TABULA_LOG_LEVEL": "warning",
        "TABULA_CLOCK_OFFSET_FILE": str(offset_file),
        "TABULA_IDEMPOTENCY_TTL": str(TTL),
        "TABULA_CREATE_RATE": "0",
    }
    command = [sys.executable, "-m", "service", "--database", str(tmp_path / "skew.db")]
    process = subprocess.Popen(
        [*command, "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:

            def up() -> bool:
                try:
                    return client.get("/health").status_code == 200
                except httpx.TransportError:
                    return process.poll() is not None  # stop waiting if it died

            wait_until(up, 30, "the service never answered /health")
            assert process.poll() is None, "the service exited"
            yield Skewed(client, offset_file)
    finally:
        process.terminate()
        process.wait(10)


def events(service: Skewed, game: str, token: str | None = None) -> list[dict[str, Any]]:
    headers = auth(token) if token else {}
    found: list[dict[str, Any]] = service.get(f"/games/{game}/events", headers=headers).json()[
        "events"
    ]
    return found


def test_a_jump_forward_past_a_deadline_runs_the_seat_out(service: Skewed) -> None:
    created = service.create(clock={"per_decision": 600, "on_timeout": "forfeit"})
    game, referee = created["id"], created["tokens"]["referee"]
    service.jump(300)
    left = service.get(f"/games/{game}").json()["clock"]["remaining"][0]
    assert 290 < left <= 300
    service.jump(301)  # 601 s after the game began: seat 0's decision is out of time

    def ran_out() -> bool:
        return any(e["type"] == "TimeExpired" for e in events(service, game, referee))

    wait_until(ran_out, 10, "the sweeper never ran the seat out")
    state = service.get(f"/games/{game}").json()
    assert state["status"] == "finished" and state["winners"] == [1]
    assert service.get(f"/games/{game}/audit").json()["verification"]["valid"]


def test_a_jump_back_runs_no_seat_out_and_costs_none_once_the_clock_catches_up(
    service: Skewed,
) -> None:
    created = service.create(clock={"per_decision": 600})
    game, seat = created["id"], created["tokens"]["seats"][0]
    service.jump(100)
    before = service.get(f"/games/{game}").json()["clock"]["remaining"][0]
    service.jump(-3600)  # an hour back: before the seat's turn began, which uses no time
    stood = service.get(f"/games/{game}").json()["clock"]["remaining"][0]
    assert before < stood <= 600
    moved = service.post(f"/games/{game}/moves", {"move": "draw"}, headers=auth(seat))
    assert moved.status_code == 200, moved.text  # not out of time, an hour "earlier"
    service.jump(3600)  # back where it was: the hour behind is not counted against anyone
    clock = service.get(f"/games/{game}").json()["clock"]
    assert all(left is None or left > 480 for left in clock["remaining"]), clock
    assert not any(e["type"] == "TimeExpired" for e in events(service, game, seat))
    assert service.get(f"/games/{game}/audit", headers=auth(created["tokens"]["referee"])).json()[
        "verification"
    ]["valid"]


def test_spectators_see_a_delayed_end_once_the_clock_passes_it_and_not_before(
    service: Skewed,
) -> None:
    created = service.create(
        "race35", auto_chance=True, spectator_delay={"seconds": 3600}, tags={"t": "d"}
    )
    game = created["id"]
    referee = auth(created["tokens"]["referee"])
    assert service.get(f"/games/{game}", headers=referee).json()["status"] == "finished"

    def spectators() -> tuple[str, str, int]:
        state = service.get(f"/games/{game}").json()
        (listed,) = service.get("/games", params={"tag": "t:d"}).json()["games"]
        return state["status"], listed["status"], len(service.get("/standings").json()["standings"])

    assert spectators() == ("active", "active", 0)
    service.jump(3500)
    assert spectators() == ("active", "active", 0)
    service.jump(200)  # past the delay
    assert spectators() == ("finished", "finished", 2)
    assert service.get(f"/games/{game}/export").status_code == 200
    service.jump(-7200)  # back before the end showed: the game is hidden again
    state, listed, _ = spectators()
    assert (state, listed) == ("active", "active")
    assert service.get(f"/games/{game}/export").status_code == 403


def test_a_key_expires_when_the_clock_jumps_past_its_lifetime_and_not_when_it_jumps_back(
    service: Skewed,
) -> None:
    created = service.create()
    game, seat = created["id"], created["tokens"]["seats"][0]
    headers = {**auth(seat), "Idempotency-Key": "skew-1"}
    again = {"move": "draw", "expected_version": created["version"]}
    first = service.post(f"/games/{game}/moves", again, headers=headers)
    assert first.status_code == 200, first.text
    service.jump(-86_400)  # a day back: the key is still the same request's
    replayed = service.post(f"/games/{game}/moves", again, headers=headers)
    assert replayed.status_code == 200 and replayed.json()["events"] == first.json()["events"]
    service.jump(86_400 + TTL - 5)  # not yet past its lifetime
    replayed = service.post(f"/games/{game}/moves", again, headers=headers)
    assert replayed.status_code == 200 and replayed.json()["events"] == first.json()["events"]
    service.jump(10)  # past it: the same key is a new request, judged on the game as it is
    fresh = service.post(f"/games/{game}/moves", again, headers=headers)
    assert fresh.status_code == 409, fresh.text

"""Clocks: kept from event timestamps, enforced by the server, on record in the log."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from litestar.testing import TestClient

from domain.model import Pending
from service.core.clocks import Clock, ClockState
from tests.clocks import ManualClock
from tests.service.conftest import auth, create
from tests.waiting import wait_until

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_per_decision_time_restarts_at_each_act() -> None:
    clock = ClockState(Clock(per_decision=10), 2)
    clock.update(at(0), None, [Pending(0, "draw")])
    assert clock.remaining(0, at(4)) == 6
    clock.update(at(4), 0, [Pending(0, "move")])
    assert clock.remaining(0, at(13)) == 1
    assert clock.expired(at(15)) == [0]
    assert clock.remaining(1, at(15)) == 10


def test_total_time_with_increment_adds_up_over_the_game() -> None:
    clock = ClockState(Clock(total=60, increment=5), 2)
    clock.update(at(0), None, [Pending(0, "move")])
    clock.update(at(20), 0, [Pending(1, "move")])
    clock.update(at(30), 1, [Pending(0, "move")])
    assert clock.remaining(0, at(30)) == 60 + 5 - 20
    assert clock.remaining(1, at(30)) == 60 + 5 - 10
    assert clock.expired(at(30 + 45)) == [0]


def wait_for(
    api: TestClient[Any], game: str, kind: str, seconds: float = 5
) -> list[dict[str, Any]]:
    """The log once it holds a ``kind`` event: the clock sweeper (a thread of the app, every
    quarter of a second) is given ``seconds`` to write it."""

    def written() -> list[dict[str, Any]] | None:
        events: list[dict[str, Any]] = api.get(f"/games/{game}/events").json()["events"]
        return events if any(e["type"] == kind for e in events) else None

    return wait_until(written, timeout=seconds, message=f"no {kind}")


def swept(api: TestClient[Any], clock: ManualClock) -> None:
    """Wait until the clock sweeper has ended a sweep at the time ``clock`` shows now: every
    deadline due by then has been enforced."""
    sweeper, now = api.app.state.workers.sweeper, clock()
    wait_until(
        lambda: sweeper.swept is not None and sweeper.swept >= now,
        message=f"no sweep at {now}",
    )


def test_running_out_of_time_plays_a_random_legal_move(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    created = create(api, "sorry", players=2, clock={"per_decision": 30}, auto_chance=True)
    clock.advance(29)
    swept(api, clock)  # the time is not out yet
    assert all(
        e["type"] != "TimeExpired"
        for e in api.get(f"/games/{created['id']}/events").json()["events"]
    )
    clock.advance(2)
    events = wait_for(api, created["id"], "TimeExpired")
    expired = next(i for i, e in enumerate(events) if e["type"] == "TimeExpired")
    assert events[expired]["by"] == "server"
    seat = events[expired]["data"]["seat"]
    assert events[expired]["data"] == {"seat": seat, "consequence": "random_move"}
    assert events[expired + 1]["type"] in ("MovePlayed", "CardDrawn")
    assert events[expired + 1]["data"]["seat"] == seat
    audit = api.get(f"/games/{created['id']}/audit", headers=auth(created["tokens"]["referee"]))
    assert audit.json()["verification"]["valid"], audit.json()["verification"]


def test_running_out_of_time_can_forfeit_the_game(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    created = create(api, "parchis", players=2, clock={"per_decision": 60, "on_timeout": "forfeit"})
    clock.advance(61)
    wait_for(api, created["id"], "SeedRevealed")
    state = api.get(f"/games/{created['id']}").json()
    assert state["status"] == "finished" and state["winners"] == [1]
    assert api.get(f"/games/{created['id']}/audit").json()["verification"]["valid"]


def test_the_clock_is_part_of_the_state_view(clocked: TestClient[Any], clock: ManualClock) -> None:
    api = clocked
    created = create(api, "ludo", players=2, clock={"total": 600, "increment": 2})
    clock.advance(10.5)
    shown = api.get(f"/games/{created['id']}").json()["clock"]
    assert shown["total"] == 600 and shown["on_timeout"] == "random_move"
    assert shown["remaining"] == [589.5, 600]
    assert set(shown["deadlines"]) == {"0"}
    plain = create(api, "ludo", players=2)
    assert api.get(f"/games/{plain['id']}").json()["clock"] is None


@pytest.mark.parametrize(
    ("limit", "shown"), [(1e20, "9999-12-31T23:59:59.999999Z"), (-1e20, "0001-01-01T00:00:00Z")]
)
def test_a_deadline_past_the_calendar_is_shown_as_its_end(limit: float, shown: str) -> None:
    clock = ClockState(Clock(per_decision=limit), 2)
    clock.update(at(0), None, [Pending(0, "move")])
    view = clock.view(at(1))
    assert view.remaining == [limit - 1, limit]
    assert view.deadlines == {"0": shown}


def test_a_clock_of_1e20_seconds_shows_in_the_state_view(api: TestClient[Any]) -> None:
    created = create(api, "ludo", players=2, clock={"per_decision": 1e20, "total": 1e20})
    reply = api.get(f"/games/{created['id']}", headers=auth(created["tokens"]["referee"]))
    assert reply.status_code == 200, reply.text
    assert reply.json()["clock"]["deadlines"] == {"0": "9999-12-31T23:59:59.999999Z"}


def test_a_move_after_the_deadline_is_refused(clocked: TestClient[Any], clock: ManualClock) -> None:
    api = clocked
    created = create(api, "sorry", players=2, clock={"per_decision": 20, "on_timeout": "forfeit"})
    clock.advance(20.5)
    body = {"move": "draw", "expected_version": created["version"]}
    reply = api.post(
        f"/games/{created['id']}/moves", json=body, headers=auth(created["tokens"]["seats"][0])
    )
    assert reply.status_code == 409


@pytest.mark.parametrize("ruleset", ["sorry", "sorry-hand", "parchis", "ludo", "partners"])
def test_running_out_of_time_can_pass_the_turn(
    clocked: TestClient[Any], clock: ManualClock, ruleset: str
) -> None:
    api = clocked
    players = 4 if ruleset == "partners" else 2
    timed = {"per_decision": 15, "on_timeout": "pass"}
    created = create(api, ruleset, players=players, clock=timed, auto_chance=True)

    def passed() -> tuple[list[dict[str, Any]], list[int]] | None:
        """The log and where its passes are, once there are any; else the time runs out."""
        clock.advance(16)
        swept(api, clock)
        events = api.get(f"/games/{created['id']}/events").json()["events"]
        passes = [i for i, e in enumerate(events) if e["data"].get("consequence") == "pass"]
        return (events, passes) if passes else None

    events, passes = wait_until(passed, timeout=30, message="no pass")
    expired = events[passes[0]]
    passed = events[passes[0] + 1]
    assert passed["type"] == "TurnPassed" and passed["by"] == "server"
    assert passed["data"]["seat"] == expired["data"]["seat"]
    audit = api.get(f"/games/{created['id']}/audit", headers=auth(created["tokens"]["referee"]))
    assert audit.json()["verification"]["valid"], audit.json()["verification"]


def test_a_pending_exchange_cannot_pass_and_gets_a_random_choice(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    timed = {"per_decision": 20, "on_timeout": "pass"}
    created = create(api, "partners", players=4, clock=timed, auto_chance=True)
    clock.advance(21)
    events = wait_for(api, created["id"], "TimeExpired")
    first = next(e for e in events if e["type"] == "TimeExpired")
    assert first["data"]["consequence"] == "random_move"
    assert api.get(f"/games/{created['id']}/audit").status_code == 403


@pytest.mark.parametrize(
    ("clock", "words"),
    [
        ({"per_decision": 0}, "per_decision must be more than 0"),
        ({"total": -5}, "total must be more than 0"),
        ({"total": 60, "increment": -1}, "increment must be 0 seconds or more"),
        ({"on_timeout": "pass"}, "needs per_decision or total"),
    ],
)
def test_a_clock_that_cannot_run_is_refused_at_creation(
    api: TestClient[Any], clock: dict[str, Any], words: str
) -> None:
    body = {"ruleset": "sorry", "seats": [{}, {}], "clock": clock}
    reply = api.post("/games", json=body)
    assert reply.status_code == 422, reply.text
    assert reply.json()["type"].endswith("/bad-setup")
    assert words in reply.json()["detail"]
    assert api.get("/games").json()["games"] == []

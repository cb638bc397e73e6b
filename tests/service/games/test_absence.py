"""Absence: a seat that must act and has not been present for the table's ``absent.after``
seconds is timed out as its ``then`` says, through the clocks' referee (``TimeExpired`` and
its consequence, the reason saying so), while the others see its deadline. Time is the
test's (``ManualClock``), never slept on."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from litestar.testing import TestClient

from tests.clocks import ManualClock
from tests.service.conftest import auth, create
from tests.service.games.test_clocks import swept, wait_for
from tests.service.live.test_socket import Socket, opened

AFTER = 60
PRESENCE = 60  # the presence_seconds setting's default


def absent_game(api: TestClient[Any], then: str, **body: Any) -> dict[str, Any]:
    """A two-seat sorry game whose seat 0 must act first, with the absence rule ``then``."""
    return create(api, "sorry", players=2, absent={"after": AFTER, "then": then}, **body)


def events(api: TestClient[Any], game_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = api.get(f"/games/{game_id}/events").json()["events"]
    return found


def timed_out(api: TestClient[Any], game_id: str) -> list[dict[str, Any]]:
    """The log's TimeExpired events and the events right after each."""
    log = events(api, game_id)
    return [e for i, e in enumerate(log) if "TimeExpired" in (e["type"], log[i - 1]["type"])]


def audited(api: TestClient[Any], created: dict[str, Any]) -> None:
    """The game's log is judged again, time outs included, and found valid."""
    referee = auth(created["tokens"]["referee"])
    verification = api.get(f"/games/{created['id']}/audit", headers=referee).json()["verification"]
    assert verification["valid"], verification


def shown(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


@pytest.mark.parametrize(
    ("then", "after"),
    [
        (
            "bot:greedy",
            {"type": "SeatHandedOver", "bot": "greedy", "reason": "was absent for 60 s"},
        ),
        (
            "forfeit",
            {"type": "GameFinished", "winners": [1], "reason": "seat 1 was absent for 60 s"},
        ),
    ],
)
def test_a_seat_away_for_its_time_is_timed_out_as_the_table_says(
    clocked: TestClient[Any], clock: ManualClock, then: str, after: dict[str, Any]
) -> None:
    api = clocked
    created = absent_game(api, then)
    game_id, seats = created["id"], created["tokens"]["seats"]
    with opened(api, game_id) as session:
        Socket(session).hello(seats[1])  # seat 1 is there; seat 0, to draw, is not
        clock.advance(AFTER - 1)
        swept(api, clock)
        assert timed_out(api, game_id) == []
        clock.advance(2)
        wait_for(api, game_id, "TimeExpired")
    expired, following = timed_out(api, game_id)[:2]
    assert expired["by"] == "server"
    assert expired["data"] == {"seat": 0, "consequence": then}
    kind = after.pop("type")
    assert following["type"] == kind
    assert {key: following["data"][key] for key in after} == after
    audited(api, created)


def test_an_absent_seat_that_must_move_passes_its_turn(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    created = absent_game(api, "pass", auto_chance=True)  # cards drawn: someone must move
    game_id, seats = created["id"], created["tokens"]["seats"]
    [pending] = api.get(f"/games/{game_id}").json()["to_act"]
    mover = pending["seat"]
    assert pending["kind"] == "move"
    with opened(api, game_id) as session:
        Socket(session).hello(seats[1 - mover])
        clock.advance(AFTER + 1)
        wait_for(api, game_id, "TimeExpired")
    expired, passed = timed_out(api, game_id)[:2]
    assert expired["data"] == {"seat": mover, "consequence": "pass"}
    assert passed["type"] == "TurnPassed"
    assert passed["data"] == {"seat": mover, "reason": "was absent for 60 s: the turn passes"}
    audited(api, created)


def test_a_present_seat_is_never_timed_out_by_absence(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    created = absent_game(api, "forfeit")
    game_id, seats = created["id"], created["tokens"]["seats"]
    with opened(api, game_id) as first, opened(api, game_id) as second:
        Socket(first).hello(seats[0])
        Socket(second).hello(seats[1])
        for _ in range(10):
            clock.advance(AFTER)
            swept(api, clock)
        view = api.get(f"/games/{game_id}").json()
    assert timed_out(api, game_id) == []
    assert [(s["present"], s["absent_until"]) for s in view["seats"]] == [(True, None)] * 2


def test_the_others_see_the_absent_seats_deadline_counted_from_when_it_left(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    created = absent_game(api, "forfeit")
    game_id, seats = created["id"], created["tokens"]["seats"]
    start = clock()
    with opened(api, game_id) as session:
        Socket(session).hello(seats[1])
        view = api.get(f"/games/{game_id}", headers=auth(seats[1])).json()
        first_deadline = shown(start + timedelta(seconds=AFTER))
        assert [s["absent_until"] for s in view["seats"]] == [first_deadline, None]
        clock.advance(30)
        api.get(f"/games/{game_id}/legal-moves", headers=auth(seats[0]))  # seat 0 looks in
        view = api.get(f"/games/{game_id}").json()
        assert [s["present"] for s in view["seats"]] == [True, True]
        assert view["seats"][0]["absent_until"] is None
        clock.advance(PRESENCE)  # seat 0 has been gone since: its time runs from then
        deadline = start + timedelta(seconds=30 + PRESENCE + AFTER)
        view = api.get(f"/games/{game_id}").json()
        assert view["seats"][0]["present"] is False
        assert view["seats"][0]["absent_until"] == shown(deadline)
        clock.advance(AFTER - 1)
        swept(api, clock)
        assert timed_out(api, game_id) == []
        clock.advance(2)
        wait_for(api, game_id, "GameFinished")


def test_a_table_no_seat_came_to_is_not_timed_out_here(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    created = absent_game(api, "forfeit")
    clock.advance(10 * AFTER)
    swept(api, clock)
    assert timed_out(api, created["id"]) == []
    seats = api.get(f"/games/{created['id']}").json()["seats"]
    assert [s["absent_until"] for s in seats] == [None, None]


def test_absence_and_a_clock_each_time_out_as_their_own_rule_says(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    timed = {"per_decision": 3 * AFTER, "on_timeout": "forfeit"}
    created = absent_game(api, "pass", clock=timed, auto_chance=True)
    game_id, seats = created["id"], created["tokens"]["seats"]
    [pending] = api.get(f"/games/{game_id}").json()["to_act"]
    with opened(api, game_id) as session:
        Socket(session).hello(seats[1 - pending["seat"]])
        clock.advance(AFTER + 1)
        wait_for(api, game_id, "TimeExpired")
    expired = timed_out(api, game_id)[0]
    assert expired["data"] == {"seat": pending["seat"], "consequence": "pass"}
    audited(api, created)  # judged again as the absence's, not the clock's forfeit


def test_the_absence_rule_is_recorded_in_the_games_first_event(api: TestClient[Any]) -> None:
    created = absent_game(api, "bot:expert")
    first = events(api, created["id"])[0]
    assert first["data"]["absent"] == {"after": AFTER, "then": "bot:expert"}
    plain = create(api, "sorry", players=2)
    assert "absent" not in events(api, plain["id"])[0]["data"]


@pytest.mark.parametrize(
    ("absent", "status", "slug"),
    [
        ({"after": 0, "then": "forfeit"}, 400, "validation-failed"),
        ({"after": 60, "then": "random_move"}, 400, "validation-failed"),
        ({"after": 60}, 400, "validation-failed"),
        ({"after": 60, "then": "bot:nobody"}, 400, "unknown-bot"),
    ],
)
def test_an_absence_rule_that_cannot_apply_is_refused_at_creation(
    api: TestClient[Any], absent: dict[str, Any], status: int, slug: str
) -> None:
    reply = api.post("/games", json={"ruleset": "sorry", "seats": [{}, {}], "absent": absent})
    assert reply.status_code == status, reply.text
    assert reply.json()["type"].endswith(f"/{slug}")
    assert reply.json()["pointer"].startswith("/absent")
    assert api.get("/games").json()["games"] == []

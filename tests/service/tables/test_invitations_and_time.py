"""Invitations declined or run out, tables that run out of time, and the referee starting a
table early with bots or cancelling it. Time is the test's clock (``clocked``): the server's
sweeper enforces what comes due, never a wall-clock sleep."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.clocks import ManualClock
from tests.service.conftest import auth
from tests.service.live.test_socket import Socket
from tests.service.tables.conftest import join, refused, register, state, swept, table, types
from tests.waiting import wait_until

OPEN: dict[str, Any] = {"open": True}
INVITE_SECONDS, OPEN_TABLE_SECONDS = 600, 1800  # the settings' defaults


def test_a_declined_invitation_reopens_its_seat(api: TestClient[Any]) -> None:
    bob = register(api, "bob")
    game = table(api, [{"name": "Host"}, {"invite": "bob"}])["id"]
    guest = api.post(f"/games/{game}/join", json={"name": "Zed"})
    assert refused(guest) == (409, "table-full")
    declined = api.post(f"/games/{game}/decline", json={}, headers=auth(bob))
    assert declined.status_code == 200, declined.text
    seat = declined.json()["state"]["seats"][1]
    assert seat["open"] is True and seat["invite"] is None and seat["name"] == ""
    events = api.get(f"/games/{game}/events").json()["events"]
    assert (events[-1]["type"], events[-1]["by"], events[-1]["data"]) == (
        "InvitationDeclined",
        1,
        {"seat": 1},
    )
    assert refused(api.post(f"/games/{game}/decline", json={}, headers=auth(bob)))[0] == 403
    assert join(api, game, name="Zed")["seat"] == 1
    assert state(api, game)["status"] == "active"


def test_only_the_invited_player_declines(api: TestClient[Any]) -> None:
    register(api, "bob")
    cat = register(api, "cat")
    created = table(api, [{"name": "Host"}, {"invite": "bob"}])
    game = created["id"]
    assert refused(api.post(f"/games/{game}/decline", json={}, headers=auth(cat))) == (
        403,
        "forbidden",
    )
    referee = auth(created["tokens"]["referee"])
    assert refused(api.post(f"/games/{game}/decline", json={}, headers=referee))[0] == 403
    assert refused(api.post(f"/games/{game}/decline", json={}))[0] == 401


def test_an_invitation_runs_out_and_its_seat_opens(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    bob = register(api, "bob")
    game = table(api, [{"name": "Host"}, {"invite": "bob"}, OPEN])["id"]
    clock.advance(INVITE_SECONDS - 1)
    swept(api, clock)
    assert state(api, game)["seats"][1]["invite"] == "bob"  # not yet
    clock.advance(2)
    swept(api, clock)
    seat = state(api, game)["seats"][1]
    assert seat["open"] is True and seat["invite"] is None
    events = api.get(f"/games/{game}/events").json()["events"]
    assert (events[-1]["type"], events[-1]["by"], events[-1]["data"]) == (
        "InvitationDeclined",
        "server",
        {"seat": 1, "reason": "expired"},
    )
    late = api.post(f"/games/{game}/join", json={"seat": 2}, headers=auth(bob))
    assert late.status_code == 200  # Bob may still join, as anyone may, an open seat
    assert state(api, game)["status"] == "gathering"


def test_a_join_after_the_invitation_ran_out_meets_the_open_seat(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    """No sweep needed: a write to the table enforces its time first."""
    api = clocked
    register(api, "bob")
    game = table(api, [{"name": "Host"}, {"invite": "bob"}])["id"]
    api.app.state.workers.sweeper.stop()
    clock.advance(INVITE_SECONDS + 1)
    assert join(api, game, name="Zed")["seat"] == 1
    assert types(api, game)[1:3] == ["InvitationDeclined", "SeatTaken"]


def test_a_table_that_runs_out_of_time_closes_and_tells_its_joiners(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    ann = register(api, "ann")
    created = table(api, [{"name": "Host"}, OPEN, OPEN, OPEN])
    game = created["id"]
    guest = join(api, game, name="Zed")
    join(api, game, ann)
    clock.advance(OPEN_TABLE_SECONDS + 1)
    swept(api, clock)
    for credential in (guest["token"], ann, None):
        seen = state(api, game, credential)
        assert seen["status"] == "closed" and seen["table"]["reason"] == "expired"
        assert seen["winners"] == [] and seen["to_act"] == []
    events = api.get(f"/games/{game}/events", headers=auth(guest["token"])).json()["events"]
    closed = next(e for e in events if e["type"] == "TableClosed")
    assert closed["by"] == "server" and closed["data"] == {"reason": "expired"}
    assert refused(api.post(f"/games/{game}/join", json={})) == (409, "table-not-gathering")
    listed = api.get("/games", params={"status": "closed"}).json()["games"]
    assert [g["id"] for g in listed] == [game] and listed[0]["winners"] == []


def test_the_referee_starts_a_table_early_with_bots_that_play_it(api: TestClient[Any]) -> None:
    created = table(api, [{"name": "Host"}, OPEN, OPEN], "race35", options={"special_squares": {}})
    game, referee = created["id"], auth(created["tokens"]["referee"])
    guest = join(api, game, name="Zed")
    reply = api.post(f"/games/{game}/start", json={"bots": "random"}, headers=referee)
    assert reply.status_code == 200, reply.text
    started = reply.json()["events"][0]
    assert (started["type"], started["by"]) == ("TableStarted", "referee")
    assert started["data"]["bots"] == [{"seat": 2, "level": "random", "version": 1}]
    view = reply.json()["state"]
    assert view["status"] == "active" and view["seats"][2]["bot"] == "random"
    held = {0: created["tokens"]["seats"][0], 1: guest["token"]}
    while (pending := state(api, game)["to_act"]) and pending[0]["seat"] in held:
        token = held[pending[0]["seat"]]
        api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=auth(token))
    wait_until(
        lambda: any(e["by"] == "bot" for e in api.get(f"/games/{game}/events").json()["events"]),
        message="the bot never played its seat",
    )


def test_no_bot_plays_while_its_table_gathers(api: TestClient[Any]) -> None:
    created = table(api, [{"bot": "random"}, OPEN], "race35", options={"special_squares": {}})
    game = created["id"]
    assert state(api, game)["seats"][0]["bot"] == "random"
    driver = api.app.state.workers.driver
    assert driver.play(game) is False  # asked directly: nothing is due while it gathers
    guest = join(api, game, name="Zed")
    wait_until(
        lambda: any(e["by"] == "bot" for e in api.get(f"/games/{game}/events").json()["events"]),
        message="the bot never played once the table started",
    )
    assert guest["seat"] == 1


def test_a_table_does_not_start_while_an_invitation_waits(api: TestClient[Any]) -> None:
    register(api, "bob")
    created = table(api, [{"name": "Host"}, {"invite": "bob"}, OPEN])
    game, referee = created["id"], auth(created["tokens"]["referee"])
    reply = api.post(f"/games/{game}/start", json={"bots": "random"}, headers=referee)
    assert refused(reply) == (409, "invitations-pending")
    host = auth(created["tokens"]["seats"][0])
    assert refused(api.post(f"/games/{game}/start", json={"bots": "random"}, headers=host)) == (
        403,
        "forbidden",
    )
    without = api.post(f"/games/{game}/cancel", json={}, headers=referee)
    assert without.status_code == 200


def test_starting_early_needs_a_bot_level_for_the_open_seats(api: TestClient[Any]) -> None:
    created = table(api, [{"name": "Host"}, OPEN])
    game, referee = created["id"], auth(created["tokens"]["referee"])
    assert refused(api.post(f"/games/{game}/start", json={}, headers=referee)) == (
        422,
        "bad-setup",
    )
    unknown = api.post(f"/games/{game}/start", json={"bots": "nobody"}, headers=referee)
    assert refused(unknown) == (400, "unknown-bot")


def test_the_referee_cancels_a_gathering_table(api: TestClient[Any]) -> None:
    created = table(api, [{"name": "Host"}, OPEN, OPEN], rated=True)
    game, referee = created["id"], auth(created["tokens"]["referee"])
    guest = join(api, game, name="Zed")
    assert (
        refused(api.post(f"/games/{game}/cancel", json={}, headers=auth(guest["token"])))[0] == 403
    )
    reply = api.post(f"/games/{game}/cancel", json={}, headers=referee)
    assert reply.status_code == 200, reply.text
    view = reply.json()["state"]
    assert view["status"] == "closed" and view["table"]["reason"] == "cancelled"
    assert [e["type"] for e in reply.json()["events"]] == ["TableClosed", "SeedRevealed"]
    again = api.post(f"/games/{game}/cancel", json={}, headers=referee)
    assert refused(again) == (409, "table-not-gathering")
    move = api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=referee)
    assert refused(move)[0] == 409


def test_a_joiners_socket_is_told_as_the_table_gathers_and_closes(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    game = table(api, [{"name": "Host"}, OPEN, OPEN])["id"]
    guest = join(api, game, name="Zed")
    with api.websocket_connect(f"/games/{game}/socket") as session:
        socket = Socket(session)
        welcome = socket.hello(guest["token"])
        assert (welcome["type"], welcome["seat"]) == ("welcome", 1)
        assert [e["type"] for e in socket.until(2)] == ["GameCreated", "SeatTaken"]
        assert refused(api.post(f"/games/{game}/join", json={"seat": 1}))[1] == "seat-taken"
        clock.advance(OPEN_TABLE_SECONDS + 1)
        closed, revealed = socket.until(4)
        assert revealed["type"] == "SeedRevealed"
        assert (closed["type"], closed["by"], closed["data"]) == (
            "TableClosed",
            "server",
            {"reason": "expired"},
        )


def test_get_me_lists_the_invitations_waiting_until_accepted_or_declined(
    api: TestClient[Any],
) -> None:
    """GET /me shows a seat kept for the player while the table gathers: gone once she joins
    (accepting) or declines, and never shown to another player."""
    bob, carol = register(api, "bob"), register(api, "carol")
    first = table(api, [{"name": "Host"}, {"invite": "bob"}, {"open": True}])["id"]
    second = table(api, [{"invite": "bob"}, {"invite": "carol"}], ruleset="race35")["id"]
    waiting = api.get("/me", headers=auth(bob)).json()["invitations"]
    assert [(i["game_id"], i["seat"], i["ruleset"]) for i in waiting] == [
        (first, 1, "ludo"),
        (second, 0, "race35"),
    ]
    assert [i["game_id"] for i in api.get("/me", headers=auth(carol)).json()["invitations"]] == [
        second
    ]
    assert join(api, first, bob)["seat"] == 1
    declined = api.post(f"/games/{second}/decline", json={}, headers=auth(bob))
    assert declined.status_code == 200, declined.text
    assert api.get("/me", headers=auth(bob)).json()["invitations"] == []
    assert len(api.get("/me", headers=auth(carol)).json()["invitations"]) == 1

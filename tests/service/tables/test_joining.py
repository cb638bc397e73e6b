"""Joining a table that gathers: open seats taken by registered players and guests, seats kept
for invited players, the start on the last seat taken, leaving before it; nobody acts while
it gathers. End to end, against the real app."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier
from typing import Any

from litestar.testing import TestClient

from tests.service.conftest import auth
from tests.service.tables.conftest import join, refused, register, state, table, types

OPEN: dict[str, Any] = {"open": True}


def test_a_table_of_two_open_seats_starts_when_a_player_and_a_guest_fill_them(
    api: TestClient[Any],
) -> None:
    ann = register(api, "ann")
    created = table(
        api, [{"name": "Host"}, OPEN, OPEN], auto_chance=True, clock={"per_decision": 60}
    )
    game = created["id"]
    assert created["tokens"]["seats"][1:] == [None, None]  # whoever joins gets hers
    gathering = state(api, game)
    assert gathering["status"] == "gathering" and gathering["to_act"] == []
    assert [s["open"] for s in gathering["seats"]] == [False, True, True]
    assert gathering["clock"]["deadlines"] == {}  # no clock runs while it gathers
    assert types(api, game) == ["GameCreated"]  # no chance drawn either

    assert join(api, game, ann) == {"seat": 1, "token": None, "version": 2}
    guest = join(api, game, name="Zed")
    assert guest["seat"] == 2 and guest["token"]

    started = state(api, game, guest["token"])
    assert started["status"] == "active"
    assert [s["name"] for s in started["seats"]] == ["Host", "ann", "Zed"]
    assert not any(s["open"] for s in started["seats"])
    log = types(api, game)
    assert log[:4] == ["GameCreated", "SeatTaken", "SeatTaken", "TableStarted"]
    assert log[4] == "DiceRolled"  # the first chance comes with the start
    assert started["clock"]["deadlines"]  # and the clocks run
    events = api.get(f"/games/{game}/events").json()["events"]
    assert events[1]["data"] == {"seat": 1, "name": "ann", "player": "ann"}
    assert events[1]["by"] == 1 and events[3]["by"] == "server"


def test_the_joiners_play_their_seats_once_the_table_starts(api: TestClient[Any]) -> None:
    ann = register(api, "ann")
    created = table(api, [OPEN, OPEN], "race35", options={"special_squares": {}})
    game = created["id"]
    mine = join(api, game, ann)["seat"]
    guest = join(api, game, name="Zed")
    held = {mine: ann, guest["seat"]: guest["token"]}
    for _ in range(4):
        seat = state(api, game)["to_act"][0]["seat"]
        other = held[1 - seat]
        wrong = api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=auth(other))
        assert refused(wrong) == (409, "not-your-turn")
        reply = api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=auth(held[seat]))
        assert reply.status_code == 200, reply.text
        assert reply.json()["events"][0]["by"] == seat


def test_two_callers_joining_one_seat_at_once_give_it_to_exactly_one(
    api: TestClient[Any],
) -> None:
    game = table(api, [{"name": "Host"}, OPEN, OPEN, OPEN])["id"]
    callers = 12
    barrier = Barrier(callers)

    def attempt(n: int) -> tuple[int, str]:
        barrier.wait()
        reply = api.post(f"/games/{game}/join", json={"seat": 2, "name": f"Guest {n}"})
        return reply.status_code, reply.json().get("token") or reply.json().get("type", "")

    with ThreadPoolExecutor(max_workers=callers) as pool:
        replies = list(pool.map(attempt, range(callers)))
    won = [token for status, token in replies if status == 200]
    assert len(won) == 1
    assert {token.rsplit("/", 1)[1] for status, token in replies if status != 200} == {"seat-taken"}
    seats = state(api, game, won[0])["seats"]
    assert [s["open"] for s in seats] == [False, True, False, True]
    assert types(api, game).count("SeatTaken") == 1


def test_joiners_racing_for_any_seat_fill_the_table_once_each(api: TestClient[Any]) -> None:
    game = table(api, [OPEN, OPEN, OPEN, OPEN])["id"]
    barrier = Barrier(6)

    def attempt(n: int) -> int:
        barrier.wait()
        return api.post(f"/games/{game}/join", json={"name": f"Guest {n}"}).status_code

    with ThreadPoolExecutor(max_workers=6) as pool:
        statuses = list(pool.map(attempt, range(6)))
    assert sorted(statuses) == [200] * 4 + [409] * 2
    log = types(api, game)
    assert log.count("SeatTaken") == 4 and log.count("TableStarted") == 1
    assert sorted(s["name"] for s in state(api, game)["seats"]) == sorted(
        f"Guest {n}" for n, status in enumerate(statuses) if status == 200
    )


def test_a_guest_cannot_take_a_seat_kept_for_an_invited_player(api: TestClient[Any]) -> None:
    register(api, "bob")
    cat = register(api, "cat")
    game = table(api, [{"name": "Host"}, {"invite": "bob"}, OPEN])["id"]
    guest = api.post(f"/games/{game}/join", json={"seat": 1, "name": "Mallory"})
    assert refused(guest) == (403, "forbidden")
    assert "bob" in guest.json()["detail"]
    other = api.post(f"/games/{game}/join", json={"seat": 1}, headers=auth(cat))
    assert refused(other) == (403, "forbidden")
    assert join(api, game, name="Mallory")["seat"] == 2  # the open seat, not Bob's
    full = api.post(f"/games/{game}/join", json={"name": "Eve"})
    assert refused(full) == (409, "table-full")
    seats = state(api, game)["seats"]
    assert seats[1]["invite"] == "bob" and seats[1]["name"] == "bob"


def test_the_invited_player_takes_her_seat_with_her_key(api: TestClient[Any]) -> None:
    bob = register(api, "bob")
    game = table(api, [{"name": "Host"}, OPEN, {"invite": "bob"}], auto_chance=True)["id"]
    assert join(api, game, bob)["seat"] == 2  # her invitation's seat, before the open one
    assert state(api, game)["status"] == "gathering"
    again = api.post(f"/games/{game}/join", json={}, headers=auth(bob))
    assert refused(again) == (409, "already-seated")


def test_a_gathering_table_refuses_moves_and_every_act_of_play(api: TestClient[Any]) -> None:
    created = table(api, [{"name": "Host"}, OPEN], "sorry", allow_undo=True)
    game, host = created["id"], auth(created["tokens"]["seats"][0])
    referee = auth(created["tokens"]["referee"])
    for path, body, headers in [
        ("moves", {"move": "draw"}, host),
        ("moves", {"move": "draw", "seat": 0}, referee),
        ("undo", {}, referee),
        ("adjudicate", {"kind": "penalty", "reason": "slow"}, referee),
        ("seats/0/bot", {"bot": "random"}, referee),
    ]:
        reply = api.post(f"/games/{game}/{path}", json=body, headers=headers)
        assert refused(reply) == (409, "table-gathering"), (path, reply.text)
    legal = api.get(f"/games/{game}/legal-moves", headers=host).json()
    assert legal["moves"] == []
    assert types(api, game) == ["GameCreated"]


def test_a_join_retried_with_its_idempotency_key_gets_the_same_seat_and_token(
    api: TestClient[Any],
) -> None:
    game = table(api, [{"name": "Host"}, OPEN, OPEN])["id"]
    key = {"Idempotency-Key": "5a0c1d3e-join-once"}
    first = api.post(f"/games/{game}/join", json={"name": "Zed"}, headers=key).json()
    again = api.post(f"/games/{game}/join", json={"name": "Zed"}, headers=key).json()
    assert first == again and first["token"]
    assert types(api, game).count("SeatTaken") == 1
    assert state(api, game, first["token"])["seats"][first["seat"]]["name"] == "Zed"
    other = api.post(f"/games/{game}/join", json={"name": "Yan"}, headers=key)
    assert refused(other) == (422, "idempotency-key-reused")


def test_a_joiner_leaves_before_the_start_and_her_token_stops_working(
    api: TestClient[Any],
) -> None:
    ann = register(api, "ann")
    game = table(api, [{"name": "Host"}, OPEN, OPEN, OPEN])["id"]
    guest = join(api, game, name="Zed")
    join(api, game, ann)
    left = api.post(f"/games/{game}/leave", json={}, headers=auth(guest["token"]))
    assert left.status_code == 200, left.text
    assert left.json()["state"]["seats"][guest["seat"]]["open"] is True
    assert refused(api.get(f"/games/{game}", headers=auth(guest["token"]))) == (
        401,
        "unauthorized",
    )
    assert api.post(f"/games/{game}/leave", json={}, headers=auth(ann)).status_code == 200
    assert refused(api.post(f"/games/{game}/leave", json={}, headers=auth(ann))) == (
        403,
        "forbidden",
    )
    assert [s["open"] for s in state(api, game)["seats"]] == [False, True, True, True]
    assert types(api, game)[1:] == ["SeatTaken", "SeatTaken", "SeatLeft", "SeatLeft"]


def test_a_seat_given_at_the_creation_is_never_left(api: TestClient[Any]) -> None:
    created = table(api, [{"name": "Host"}, OPEN])
    host = auth(created["tokens"]["seats"][0])
    reply = api.post(f"/games/{created['id']}/leave", json={}, headers=host)
    assert refused(reply) == (403, "forbidden")


def test_nobody_leaves_or_joins_once_the_table_has_started(api: TestClient[Any]) -> None:
    game = table(api, [{"name": "Host"}, OPEN])["id"]
    guest = join(api, game, name="Zed")
    leave = api.post(f"/games/{game}/leave", json={}, headers=auth(guest["token"]))
    assert refused(leave) == (409, "table-not-gathering")
    assert refused(api.post(f"/games/{game}/join", json={})) == (409, "table-not-gathering")


def test_a_game_created_with_every_seat_filled_takes_no_joiner(api: TestClient[Any]) -> None:
    game = table(api, [{"name": "A"}, {"name": "B"}])["id"]
    assert refused(api.post(f"/games/{game}/join", json={})) == (409, "table-not-gathering")
    assert state(api, game)["table"] is None


def test_an_open_or_invited_seat_names_nobody_else(api: TestClient[Any]) -> None:
    register(api, "bob")
    for seat in (
        {"open": True, "name": "Zed"},
        {"open": True, "bot": "random"},
        {"open": True, "invite": "bob"},
        {"invite": "bob", "player": "bob"},
    ):
        reply = api.post("/games", json={"ruleset": "ludo", "seats": [{"name": "A"}, seat]})
        assert refused(reply) == (422, "bad-setup"), seat
    unknown = api.post("/games", json={"ruleset": "ludo", "seats": [{}, {"invite": "nobody"}]})
    assert refused(unknown) == (422, "unknown-player")
    twice = [{"invite": "bob"}, {"invite": "bob"}]
    assert refused(api.post("/games", json={"ruleset": "ludo", "seats": twice})) == (
        422,
        "bad-setup",
    )


def test_a_guest_may_not_pass_for_a_player_at_the_table(api: TestClient[Any]) -> None:
    register(api, "bob")
    game = table(api, [{"invite": "bob"}, OPEN])["id"]
    reply = api.post(f"/games/{game}/join", json={"name": "BOB"})
    assert refused(reply) == (422, "bad-setup")

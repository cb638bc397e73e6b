"""Rematch: a seat of a finished game asks for the next table (``POST /games/{id}/rematch``):
the same settings, the seats turned by one, the asker seated, the other registered players
invited and the other guests' seats open; both games linked; one table a finished game,
however many ask and however at once; accepting is joining."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier
from typing import Any

from litestar.testing import TestClient

from service.usecases.games import summaries
from tests.clocks import ManualClock
from tests.service.conftest import auth
from tests.service.tables.conftest import join, refused, register, state, swept, table, types

CLOCK = {"per_decision": 60, "on_timeout": "forfeit"}
"""A game's clock whose first seat to act loses it after a minute (the referee's token ends
no game a registered player sits in)."""


def forfeited(api: TestClient[Any], created: dict[str, Any]) -> str:
    """End the game ``created`` (of guests) by the referee's forfeit of seat 0; its id."""
    game: str = created["id"]
    body = {"kind": "forfeit", "seat": 0, "reason": "time to go"}
    reply = api.post(
        f"/games/{game}/adjudicate", json=body, headers=auth(created["tokens"]["referee"])
    )
    assert reply.status_code == 200, reply.text
    assert state(api, game)["status"] == "finished"
    return game


def timed_out(api: TestClient[Any], clock: ManualClock, created: dict[str, Any]) -> str:
    """End the game ``created`` (on ``CLOCK``) by its first seat's time running out; its id."""
    clock.advance(61)
    swept(api, clock)
    assert state(api, created["id"])["status"] == "finished"
    game: str = created["id"]
    return game


def rematch(api: TestClient[Any], game: str, credential: str, status: int = 201) -> dict[str, Any]:
    """Ask for the rematch of ``game`` with a seat's token or a player's key; the reply."""
    reply = api.post(f"/games/{game}/rematch", headers=auth(credential))
    assert reply.status_code == status, reply.text
    body: dict[str, Any] = reply.json()
    return body


def created_event(api: TestClient[Any], game: str) -> dict[str, Any]:
    """The data of the game's GameCreated."""
    first: dict[str, Any] = api.get(f"/games/{game}/events").json()["events"][0]
    assert first["type"] == "GameCreated"
    return first


def test_the_rematch_turns_the_seats_invites_the_players_and_opens_the_guests_seats(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    ann, _ = register(api, "ann"), register(api, "bob")
    seats = [
        {"player": "ann"},
        {"player": "bob"},
        {"name": "Cat"},
        {"name": "Robo", "bot": "greedy"},
    ]
    options = {"auto_chance": True, "allow_undo": True}
    old = table(api, seats, options=options, clock=CLOCK, absent={"after": 30, "then": "pass"})
    game = timed_out(api, clock, old)
    asked = rematch(api, game, ann)
    assert asked == {"id": asked["id"], "seat": 3}  # no token: her key plays her seat
    new = asked["id"]
    assert new != game

    view = state(api, new)
    assert view["status"] == "gathering" and view["to_act"] == []
    assert view["table"]["listed"] is False  # joined by its link, never in the lobby
    assert view["rematch_of"] == game and view["rematch"] is None
    assert [(s["name"], s["open"], s["invite"]) for s in view["seats"]] == [
        ("bob", False, "bob"),  # seat 1 plays first now, invited
        ("", True, None),  # Cat's seat: a guest's, open to whoever has the link
        ("Robo", False, None),  # the bot plays again
        ("ann", False, None),  # the asker, seated
    ]
    assert [s["bot"] for s in view["seats"]] == [None, None, "greedy", None]
    event = created_event(api, new)
    assert event["by"] == "referee"
    data, before = event["data"], created_event(api, game)["data"]
    assert data["rematch_of"] == game and "rematch_of" not in before
    assert data["invites"] == [{"seat": 0, "handle": "bob"}] and data["open_seats"] == [1]
    assert data["players"] == [{"seat": 3, "handle": "ann"}] and data["listed"] is False
    for same in ("ruleset", "options", "clock", "auto_chance", "allow_undo", "rated", "absent"):
        assert data.get(same) == before.get(same), same
    assert api.get("/lobby").json()["tables"] == []


def test_a_guest_who_asks_sits_down_with_a_new_token_and_joining_starts_the_table(
    api: TestClient[Any],
) -> None:
    old = table(api, [{"name": "Ann"}, {"name": "Zed"}], auto_chance=True, tags={"club": "x"})
    game = forfeited(api, old)
    zed = old["tokens"]["seats"][1]
    asked = rematch(api, game, zed)
    new, token = asked["id"], asked["token"]
    assert asked["seat"] == 0 and token not in old["tokens"]["seats"]
    assert state(api, new, token)["seats"][0]["name"] == "Zed"
    assert refused(api.get(f"/games/{new}", headers=auth(zed)))[0] == 401  # the old token
    assert rematch(api, game, zed, 200) == asked  # asked again: the same seat and token
    assert types(api, new) == ["GameCreated"]
    assert "tags" not in created_event(api, new)["data"]  # the finished game's stay with it

    joined = join(api, new, name="Ann")  # anyone with the link: the guests' seats are open
    assert joined["seat"] == 1
    assert types(api, new)[1:4] == ["SeatTaken", "TableStarted", "DiceRolled"]
    assert state(api, new, token)["status"] == "active"
    assert first_throw(api, new) == (0, "Zed")  # she played second, and throws first now


def test_accepting_the_invitation_starts_the_table_and_the_first_player_changes(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    ann, bob = register(api, "ann"), register(api, "bob")
    old = table(api, [{"player": "ann"}, {"player": "bob"}], auto_chance=True, clock=CLOCK)
    assert first_throw(api, old["id"]) == (0, "ann")
    game = timed_out(api, clock, old)
    new = rematch(api, game, bob)["id"]  # Bob's seat 1 is seat 0 now; Ann is invited to 1
    assert state(api, new)["seats"][1]["invite"] == "ann"
    assert join(api, new, ann)["seat"] == 1
    assert state(api, new, ann)["status"] == "active"
    assert first_throw(api, new) == (0, "bob")  # seat 0 throws first: Bob this time


def first_throw(api: TestClient[Any], game: str) -> tuple[int, str]:
    """The seat that threw the game's first dice, and its name."""
    events = api.get(f"/games/{game}/events").json()["events"]
    seat: int = next(e["data"]["seat"] for e in events if e["type"] == "DiceRolled")
    return seat, state(api, game)["seats"][seat]["name"]


def test_the_games_are_linked_both_ways_and_nothing_is_appended_to_the_finished_one(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    ann, _ = register(api, "ann"), register(api, "bob")
    game = timed_out(api, clock, table(api, [{"player": "ann"}, {"player": "bob"}], clock=CLOCK))
    version = state(api, game)["version"]
    assert state(api, game)["rematch"] is None
    new = rematch(api, game, ann)["id"]
    old = state(api, game)
    assert old["rematch"] == new and old["version"] == version and old["rematch_of"] is None
    assert len(api.get(f"/games/{game}/events").json()["events"]) == version

    def listed() -> dict[str, tuple[str | None, str | None]]:
        rows = api.get("/games").json()["games"]
        return {row["id"]: (row["rematch_of"], row["rematch"]) for row in rows}

    assert listed() == {game: (None, new), new: (game, None)}
    summaries.rebuild(api.app.state.queries.store)  # made again from the logs: still linked
    assert listed() == {game: (None, new), new: (game, None)}


def test_a_second_request_gives_the_same_table_and_seats_its_asker(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    ann, bob = register(api, "ann"), register(api, "bob")
    seats = [{"player": "ann"}, {"player": "bob"}, {"name": "Cat"}, {"name": "Dee"}]
    old = table(api, seats, clock=CLOCK)
    game = timed_out(api, clock, old)
    cat, dee = old["tokens"]["seats"][2], old["tokens"]["seats"][3]
    asked = rematch(api, game, ann)
    new = asked["id"]
    assert rematch(api, game, ann, 200) == asked  # again: the same table, nothing new
    guest = rematch(api, game, cat, 200)  # Cat takes her open seat, with a token
    assert (guest["id"], guest["seat"]) == (new, 1) and guest["token"]
    assert rematch(api, game, cat, 200) == guest  # the same token each time she asks
    assert rematch(api, game, bob, 200) == {"id": new, "seat": 0}  # accepting, as joining
    assert state(api, new)["status"] == "gathering"
    seated = rematch(api, game, dee, 200)
    assert seated["seat"] == 2 and state(api, new, seated["token"])["status"] == "active"
    log = types(api, new)
    assert log.count("GameCreated") == 1 and log.count("SeatTaken") == 3
    assert log.count("TableStarted") == 1


def test_a_guest_whose_open_seat_someone_else_took_is_told_the_table_without_a_seat(
    api: TestClient[Any],
) -> None:
    old = table(api, [{"name": "Ann"}, {"name": "Zed"}, {"name": "Cat"}])
    game = forfeited(api, old)
    ann, cat = old["tokens"]["seats"][0], old["tokens"]["seats"][2]
    new = rematch(api, game, ann)["id"]
    assert join(api, new, seat=1, name="Eve")["seat"] == 1  # Cat's seat, taken by Eve
    assert rematch(api, game, cat, 200) == {"id": new}


def test_two_requests_at_once_give_one_table(clocked: TestClient[Any], clock: ManualClock) -> None:
    api = clocked
    ann, bob = register(api, "ann"), register(api, "bob")
    seats = [{"player": "ann"}, {"player": "bob"}]
    game = timed_out(api, clock, table(api, seats, auto_chance=True, clock=CLOCK))
    askers = [ann, bob, ann, bob]
    barrier = Barrier(len(askers))

    def ask(key: str) -> tuple[int, str]:
        barrier.wait()
        reply = api.post(f"/games/{game}/rematch", headers=auth(key))
        return reply.status_code, reply.json().get("id", reply.text)

    with ThreadPoolExecutor(max_workers=len(askers)) as pool:
        replies = list(pool.map(ask, askers))
    assert sorted(status for status, _ in replies) == [200, 200, 200, 201]
    ids = {table_id for _, table_id in replies}
    assert len(ids) == 1
    new = ids.pop()
    assert state(api, game)["rematch"] == new
    assert state(api, new)["status"] == "active"  # both asked: both sat down
    log = types(api, new)
    assert log.count("SeatTaken") == 1 and log.count("TableStarted") == 1
    listed = [g for g in api.get("/games").json()["games"] if g["rematch_of"] == game]
    assert [g["id"] for g in listed] == [new]


def test_only_a_seat_of_a_finished_game_asks_for_its_rematch(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    ann, cat = register(api, "ann"), register(api, "cat")
    running = table(api, [{"player": "ann"}, {"name": "Zed", "bot": "random"}], clock=CLOCK)
    early = api.post(f"/games/{running['id']}/rematch", headers=auth(ann))
    assert refused(early) == (409, "game-not-finished")
    game = timed_out(api, clock, running)
    post = f"/games/{game}/rematch"
    assert refused(api.post(post)) == (401, "unauthorized")
    assert refused(api.post(post, headers=auth("made-up")))[0] == 401
    referee = auth(running["tokens"]["referee"])
    assert refused(api.post(post, headers=referee)) == (403, "forbidden")
    assert refused(api.post(post, headers=auth(cat))) == (403, "forbidden")  # no seat of hers
    bot = auth(running["tokens"]["seats"][1])
    assert refused(api.post(post, headers=bot)) == (403, "forbidden")
    unknown = api.post(f"/games/{'0' * 32}/rematch", headers=auth(ann))
    assert refused(unknown) == (404, "game-not-found")

    closed = table(api, [{"player": "ann"}, {"open": True}])
    referee = auth(closed["tokens"]["referee"])
    assert api.post(f"/games/{closed['id']}/cancel", json={}, headers=referee).status_code == 200
    never = api.post(f"/games/{closed['id']}/rematch", headers=auth(ann))
    assert refused(never) == (409, "game-not-finished")

    external = table(api, [{"name": "Ann"}, {"name": "Zed"}], chance="external")
    outside = forfeited(api, external)
    seat = auth(external["tokens"]["seats"][0])
    assert refused(api.post(f"/games/{outside}/rematch", headers=seat)) == (422, "bad-setup")
    assert [g["rematch"] for g in api.get("/games").json()["games"]] == [None] * 3


def test_a_player_who_retired_her_handle_leaves_her_seat_open(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    ann, bob = register(api, "ann"), register(api, "bob")
    game = timed_out(api, clock, table(api, [{"player": "ann"}, {"player": "bob"}], clock=CLOCK))
    assert api.delete("/me", headers=auth(bob)).status_code == 204
    new = rematch(api, game, ann)["id"]
    seats = state(api, new)["seats"]
    assert (seats[0]["open"], seats[0]["invite"]) == (True, None)
    assert "invites" not in created_event(api, new)["data"]

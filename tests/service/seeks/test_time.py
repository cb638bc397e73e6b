"""Quick play over time, on the injected clock (never a sleep): a seek expires after
``seek_seconds`` unless renewed, one waiting ``bots_after`` sits with bots, and rated seeks
sit by rating, the allowed distance widening with the wait."""

from __future__ import annotations

from tests.clocks import ManualClock
from tests.service.conftest import auth
from tests.service.seeks.seeking import Api, read, register, seek, swept
from tests.waiting import wait_until

SEEK_SECONDS = 120  # the seek_seconds setting's default


def test_a_seek_expires_after_seek_seconds_and_is_never_seated(
    clocked: Api, clock: ManualClock
) -> None:
    posted = seek(clocked, players=2)
    clock.advance(SEEK_SECONDS - 1)
    swept(clocked, clock)
    assert read(clocked, posted["id"], posted["secret"])["status"] == "waiting"
    clock.advance(1)
    swept(clocked, clock)
    assert read(clocked, posted["id"], posted["secret"])["status"] == "expired"
    other = seek(clocked, players=2)
    assert read(clocked, other["id"], other["secret"])["status"] == "waiting"


def test_a_renewed_seek_waits_seek_seconds_from_its_renewal(
    clocked: Api, clock: ManualClock
) -> None:
    key = register(clocked, "ann")
    posted = seek(clocked, key, players=2)
    seeks = clocked.app.state.workers.cases.seeks
    assert seeks.renew("ann") == 0  # a fresh seek has more than half its time left
    clock.advance(SEEK_SECONDS - 10)
    assert seeks.renew("ann") == 1
    assert seeks.renew("bob") == 0
    clock.advance(SEEK_SECONDS - 1)
    swept(clocked, clock)
    assert read(clocked, posted["id"], key)["status"] == "waiting"
    clock.advance(1)
    swept(clocked, clock)
    assert read(clocked, posted["id"], key)["status"] == "expired"


def test_a_seek_waiting_bots_after_sits_with_bots_in_the_seats_left(
    clocked: Api, clock: ManualClock
) -> None:
    key = register(clocked, "ann")
    bots = {"seconds": 30, "level": "random"}
    posted = seek(clocked, key, bots_after=bots)
    guest = seek(clocked, bots_after={"seconds": 90, "level": "greedy"})
    loner = seek(clocked)  # accepts no bots: it waits
    clock.advance(29)
    swept(clocked, clock)
    assert read(clocked, posted["id"], key)["status"] == "waiting"
    clock.advance(1)
    swept(clocked, clock)
    mine, hers = read(clocked, posted["id"], key), read(clocked, guest["id"], guest["secret"])
    assert (mine["status"], mine["seat"], hers["seat"]) == ("matched", 0, 1)
    assert hers["game_id"] == mine["game_id"]
    seats = clocked.get(f"/games/{mine['game_id']}").json()["seats"]
    assert [seat["bot"] for seat in seats] == [None, None, "random", "random"]
    assert [seat["name"] for seat in seats] == ["ann", "Guest 2", "Bot 3", "Bot 4"]
    assert read(clocked, loner["id"], loner["secret"])["status"] == "waiting"


def test_rated_seeks_sit_with_the_nearest_rating_the_window_widening_with_the_wait(
    clocked: Api, clock: ManualClock
) -> None:
    ratings = {"ann": 0.0, "bob": 30.0, "cat": 1.0, "dan": 29.0, "eve": 5.0, "fay": 15.0}
    clocked.app.state.workers.cases.seeks.ordinal = lambda ruleset, handle: ratings[handle]
    keys = {handle: register(clocked, handle) for handle in ratings}
    posted = {handle: seek(clocked, key, players=2, rated=True) for handle, key in keys.items()}
    views = {h: read(clocked, posted[h]["id"], keys[h]) for h in ratings}
    assert views["ann"]["game_id"] == views["cat"]["game_id"] is not None
    assert views["bob"]["game_id"] == views["dan"]["game_id"] is not None
    assert views["eve"]["status"] == views["fay"]["status"] == "waiting"
    # 10 apart: they sit once the later has waited (10 - 2) / 0.25 = 32 s
    clock.advance(31.9)
    swept(clocked, clock)
    assert read(clocked, posted["eve"]["id"], keys["eve"])["status"] == "waiting"
    clock.advance(0.1)
    swept(clocked, clock)
    eve, fay = (read(clocked, posted[h]["id"], keys[h]) for h in ("eve", "fay"))
    assert eve["status"] == "matched" and eve["game_id"] == fay["game_id"]
    assert (eve["seat"], fay["seat"]) == (0, 1)


def test_the_bots_a_seek_is_seated_with_play_their_seats(clocked: Api, clock: ManualClock) -> None:
    key = register(clocked, "ann")
    posted = seek(clocked, key, players=2, bots_after={"seconds": 5, "level": "random"})
    clock.advance(5)
    swept(clocked, clock)
    game_id = read(clocked, posted["id"], key)["game_id"]

    def bot_played() -> bool:
        """Ann plays while it is her turn (Ludo's first turn has three tries); has the bot
        played?"""
        state = clocked.get(f"/games/{game_id}").json()
        if state["to_act"] and state["to_act"][0]["seat"] == 0:
            legal = clocked.get(f"/games/{game_id}/legal-moves", headers=auth(key)).json()
            body = {"move": legal["moves"][0]["id"], "expected_version": legal["version"]}
            clocked.post(f"/games/{game_id}/moves", json=body, headers=auth(key))
        events = clocked.get(f"/games/{game_id}/events").json()["events"]
        return any(event["by"] == "bot" for event in events)

    wait_until(bot_played, message="the bot never played its seat")

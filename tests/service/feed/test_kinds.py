"""Each kind of note reaches the player it concerns, pushed over her open feed, and nobody
else: not the other players of the game, not a player with no seat in it (checked on their
whole history of notes too)."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.clocks import ManualClock
from tests.service.conftest import auth
from tests.service.feed.conftest import (
    FeedSocket,
    duel,
    feed_of,
    history,
    play_out,
    register,
    roll,
    sentinel,
    table,
    to_act,
)
from tests.service.seeks.seeking import swept
from tests.service.tournaments.test_tournaments import tournament
from tests.waiting import wait_until

OPEN: dict[str, Any] = {"open": True}
SEEK_SECONDS = 120  # the setting's default


def of_game(notes: list[dict[str, Any]], game_id: str) -> list[tuple[str, int]]:
    """The (kind, version) of the notes of one game."""
    return [(n["kind"], n["version"]) for n in notes if n["game_id"] == game_id]


def test_an_invitation_is_pushed_to_the_invited_player_alone(api: TestClient[Any]) -> None:
    ann, bob, cid = (register(api, h) for h in ("ann", "bob", "cid"))
    with feed_of(api) as session:
        feed = FeedSocket(session)
        assert feed.hello(ann) == {"type": "welcome", "handle": "ann"}
        game = table(api, [{"player": "bob"}, {"invite": "ann"}, OPEN])["id"]
        note = feed.note()
    assert {k: note[k] for k in ("kind", "game_id", "version", "seat", "ruleset")} == {
        "kind": "invitation",
        "game_id": game,
        "version": 1,
        "seat": 1,
        "ruleset": "ludo",
    }
    assert note["id"].split("/")[1:] == [game, "00000001", "0"]
    assert of_game(history(api, bob, "bob"), game) == []  # seated, but the table gathers
    assert of_game(history(api, cid, "cid"), game) == []


def test_a_table_that_starts_tells_its_seated_players_and_who_acts_first(
    api: TestClient[Any],
) -> None:
    ann, bob, cid = (register(api, h) for h in ("ann", "bob", "cid"))
    game = table(api, [{"player": "bob"}, {"invite": "ann"}])["id"]
    with feed_of(api) as session:
        feed = FeedSocket(session)
        feed.hello(bob)
        joined = api.post(f"/games/{game}/join", json={}, headers=auth(ann))
        assert joined.status_code == 200, joined.text
        started = feed.note()
        assert (started["kind"], started["game_id"], started["seat"]) == ("game-started", game, 0)
        turn = feed.note()
    events = api.get(f"/games/{game}/events").json()["events"]
    table_started = next(e["version"] for e in events if e["type"] == "TableStarted")
    assert started["version"] == table_started
    assert (turn["kind"], turn["seat"], turn["pending"]) == ("your-turn", 0, ["roll"])
    assert of_game(history(api, ann, "ann"), game) == [
        ("invitation", 1),
        ("game-started", table_started),
    ]
    assert of_game(history(api, cid, "cid"), game) == []


def test_your_turn_goes_to_the_seat_that_must_act_and_says_what_it_must_do(
    api: TestClient[Any],
) -> None:
    ann, bob, cid = (register(api, h) for h in ("ann", "bob", "cid"))
    with feed_of(api) as ann_session, feed_of(api) as bob_session:
        ann_feed, bob_feed = FeedSocket(ann_session), FeedSocket(bob_session)
        ann_feed.hello(ann)
        bob_feed.hello(bob)
        game = duel(api, "ann", "bob")
        started, turn = ann_feed.note(), ann_feed.note()
        assert (started["kind"], turn["kind"], turn["pending"]) == (
            "game-started",
            "your-turn",
            ["roll"],
        )
        assert bob_feed.note()["kind"] == "game-started"
        rolled = roll(api, game, ann)
        bobs = bob_feed.note()
        assert (bobs["kind"], bobs["seat"], bobs["pending"]) == ("your-turn", 1, ["roll"])
        assert bobs["version"] == rolled["version"]
        roll(api, game, bob)
        again = ann_feed.note()
        assert (again["kind"], again["seat"], again["version"]) == (
            "your-turn",
            0,
            api.get(f"/games/{game}").json()["version"],
        )
    assert of_game(history(api, cid, "cid"), game) == []


def test_a_finished_game_tells_each_of_its_players_who_won(api: TestClient[Any]) -> None:
    ann, bob, cid = (register(api, h) for h in ("ann", "bob", "cid"))
    game = duel(api, "ann", "bob")
    with feed_of(api) as session:
        feed = FeedSocket(session)
        feed.hello(bob)
        play_out(api, game, [ann, bob])
        finished = feed.until(game, "game-finished")[-1]
    view = api.get(f"/games/{game}").json()
    assert view["status"] == "finished"
    assert finished["winners"] == view["winners"]
    assert finished["seat"] == 1 and "closed" not in finished
    ends = [n for n in history(api, ann, "ann") if n["kind"] == "game-finished"]
    assert [(n["game_id"], n["winners"], n["seat"]) for n in ends] == [(game, view["winners"], 0)]
    assert of_game(history(api, cid, "cid"), game) == []


def test_a_game_over_makes_no_more_turns(api: TestClient[Any]) -> None:
    ann, bob = register(api, "ann"), register(api, "bob")
    game = duel(api, "ann", "bob")
    play_out(api, game, [ann, bob])
    notes = [n for n in history(api, ann, "ann") if n["game_id"] == game]
    assert notes[-1]["kind"] == "game-finished"
    assert all(n["kind"] != "your-turn" or n["version"] < notes[-1]["version"] for n in notes)
    assert to_act(api, game) is None


def test_a_matched_seek_is_pushed_to_its_player_with_the_seek_alone(api: TestClient[Any]) -> None:
    ann, bob, cid = (register(api, h) for h in ("ann", "bob", "cid"))
    shape = {"ruleset": "race35", "players": 2, "rated": False}
    with feed_of(api) as session:
        feed = FeedSocket(session)
        feed.hello(ann)
        ann_seek = api.post("/seeks", json=shape, headers=auth(ann)).json()["id"]
        bob_seek = api.post("/seeks", json=shape, headers=auth(bob)).json()["id"]
        matched = feed.note()
        started = feed.note()
    game = matched["game_id"]
    assert api.get(f"/seeks/{ann_seek}", headers=auth(ann)).json()["game_id"] == game
    assert (matched["kind"], matched["seek"], matched["version"]) == ("seek-matched", ann_seek, 1)
    assert (started["kind"], started["game_id"]) == ("game-started", game)
    bobs = [n for n in history(api, bob, "bob") if n["kind"] == "seek-matched"]
    assert [(n["game_id"], n["seek"], n["seat"]) for n in bobs] == [(game, bob_seek, 1)]
    assert of_game(history(api, cid, "cid"), game) == []


def test_a_game_tagged_quick_play_by_its_creator_matched_no_seek(api: TestClient[Any]) -> None:
    ann = register(api, "ann")
    tags = {"quick-play": "race35-2-unrated-000000000000"}
    game = table(api, [{"player": "ann"}, {"name": "Bob"}], ruleset="race35", tags=tags)["id"]
    assert [kind for kind, _ in of_game(history(api, ann, "ann"), game)] == [
        "game-started",
        "your-turn",
    ]


def test_an_open_feed_keeps_its_players_seeks_alive(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api, shape = clocked, {"ruleset": "ludo", "players": 4, "rated": False}
    ann, bob = register(api, "ann"), register(api, "bob")
    kept = api.post("/seeks", json=shape, headers=auth(ann)).json()["id"]
    lapsed = api.post("/seeks", json=shape, headers=auth(bob)).json()["id"]
    clock.advance(SEEK_SECONDS - 10)  # less than half their time left: renewable
    with feed_of(api) as session:
        FeedSocket(session).hello(ann)  # bob has no feed open
        wait_until(
            lambda: status(api, kept, ann, "expires_at") != status(api, lapsed, bob, "expires_at")
        )
        clock.advance(20)  # past when both were to expire
        swept(api, clock)
    assert status(api, kept, ann) == "waiting"
    assert status(api, lapsed, bob) == "expired"


def status(api: TestClient[Any], seek: str, key: str, field: str = "status") -> Any:
    """A field of the seek as its owner reads it."""
    return api.get(f"/seeks/{seek}", headers=auth(key)).json()[field]


def test_a_rematch_is_offered_to_the_other_players_alone(api: TestClient[Any]) -> None:
    ann, bob, cid = (register(api, h) for h in ("ann", "bob", "cid"))
    game = duel(api, "ann", "bob")
    play_out(api, game, [ann, bob])
    with feed_of(api) as session:
        feed = FeedSocket(session)
        feed.hello(ann)
        asked = api.post(f"/games/{game}/rematch", json={}, headers=auth(bob))
        assert asked.status_code == 201, asked.text
        rematch = asked.json()["id"]
        offered = feed.note()
        assert (offered["kind"], offered["game_id"], offered["rematch_of"]) == (
            "rematch",
            rematch,
            game,
        )
        joined = api.post(f"/games/{rematch}/join", json={}, headers=auth(ann))
        assert joined.status_code == 200, joined.text
        started = feed.note()
    assert (started["kind"], started["game_id"], started["rematch_of"]) == (
        "game-started",
        rematch,
        game,
    )
    assert [kind for kind, _ in of_game(history(api, bob, "bob"), rematch)][:1] == ["game-started"]
    assert of_game(history(api, cid, "cid"), rematch) == []


def test_a_tournament_created_while_a_feed_is_open_is_created_and_tells_nobody(
    api: TestClient[Any],
) -> None:
    """A tournament's summary names its players otherwise than a game's: the feeds' follower
    leaves it to its tables, and the creation is answered 201."""
    ann = register(api, "ann")
    with feed_of(api) as session:
        feed = FeedSocket(session)
        feed.hello(ann)
        created = tournament(api, players=4)
        game = sentinel(api, "ann")
        assert feed.note()["game_id"] == game
    assert api.get(f"/tournaments/{created['id']}").status_code == 200

"""A feed is resumable: opened again after the id of the last note it sent, it sends exactly
what came since (nothing lost, nothing repeated), over the socket (``after``) and the stream
(``Last-Event-ID``); opened with no id, it sends what stands now, then what comes."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.service.conftest import auth
from tests.service.feed.conftest import (
    FeedSocket,
    duel,
    feed_of,
    history,
    play_out,
    register,
    roll,
    rotate,
    sentinel,
    streamed,
    table,
    to_act,
)

OPEN: dict[str, Any] = {"open": True}


def ids(notes: list[dict[str, Any]]) -> list[str]:
    return [note["id"] for note in notes]


def test_a_dropped_socket_resumed_from_its_last_id_gets_exactly_what_it_missed(
    api: TestClient[Any],
) -> None:
    ann, bob = register(api, "ann"), register(api, "bob")
    game = duel(api, "ann", "bob")
    with feed_of(api) as session:
        feed = FeedSocket(session)
        feed.hello(ann)
        seen = [feed.note(), feed.note()]
    assert [n["kind"] for n in seen] == ["game-started", "your-turn"]
    invited = table(api, [{"name": "Host"}, {"invite": "ann"}])["id"]  # while she is away
    for _ in range(6):
        roll(api, game, [ann, bob][to_act(api, game) or 0])
    missed = [n for n in history(api, ann, "ann") if n["id"] > seen[-1]["id"]]
    last = sentinel(api, "ann")
    with feed_of(api) as session:
        feed = FeedSocket(session)
        feed.hello(ann, seen[-1]["id"])
        resumed = feed.until(last, "invitation")
    assert resumed[:-1] == missed
    assert ("invitation", invited) in [(n["kind"], n["game_id"]) for n in missed]
    assert ids(resumed) == sorted(set(ids(resumed)))  # in id order, each once


def test_a_note_is_never_repeated_across_resumes(api: TestClient[Any]) -> None:
    ann, bob = register(api, "ann"), register(api, "bob")
    game = duel(api, "ann", "bob")
    received: list[dict[str, Any]] = []
    last: str | None = None
    while to_act(api, game) is not None:  # a new socket for every roll, resumed each time
        with feed_of(api) as session:
            feed = FeedSocket(session)
            feed.hello(ann, last)
            if last is None:
                received += [feed.note(), feed.note()]  # the game's start and her turn
            seat = to_act(api, game)
            assert seat is not None
            roll(api, game, [ann, bob][seat])
            if to_act(api, game) in (0, None):  # her turn again, or the end: one note
                received.append(feed.note())
            last = received[-1]["id"]
    whole = history(api, ann, "ann")[:-1]  # but its sentinel
    assert received == whole
    assert len(set(ids(received))) == len(received)
    assert received[-1]["kind"] == "game-finished"


def test_a_fresh_feed_starts_with_what_stands_now(api: TestClient[Any]) -> None:
    ann, bob = register(api, "ann"), register(api, "bob")
    over = duel(api, "ann", "bob")
    play_out(api, over, [ann, bob])
    running = duel(api, "bob", "ann")  # bob acts first: not her turn
    mine = duel(api, "ann", "bob")  # her turn
    invited = table(api, [{"name": "Host"}, {"invite": "ann"}])["id"]
    declined = table(api, [{"name": "Host"}, {"invite": "ann"}])["id"]
    assert api.post(f"/games/{declined}/decline", json={}, headers=auth(ann)).status_code == 200
    with feed_of(api) as session:
        feed = FeedSocket(session)
        feed.hello(ann)
        first = [feed.note() for _ in range(4)]
        later = table(api, [{"name": "Host"}, {"invite": "ann"}])["id"]
        after = feed.note()
    assert sorted((n["kind"], n["game_id"]) for n in first) == sorted(
        [
            ("game-started", running),
            ("game-started", mine),
            ("your-turn", mine),
            ("invitation", invited),
        ]
    )
    assert ids(first) == sorted(ids(first))
    assert (after["kind"], after["game_id"]) == ("invitation", later)


def test_the_stream_resumes_after_last_event_id(api: TestClient[Any]) -> None:
    ann, bob = register(api, "ann"), register(api, "bob")
    game = duel(api, "ann", "bob")
    first = sentinel(api, "ann")
    with streamed(api, ann, "ann") as seen:
        ann = rotate(api, ann)  # which ends the stream
    assert [(n["kind"], n["game_id"]) for n in seen] == [
        ("game-started", game),
        ("your-turn", game),
        ("invitation", first),
    ]
    roll(api, game, ann)
    roll(api, game, [ann, bob][to_act(api, game) or 0])
    missed = [n for n in history(api, ann, "ann") if n["id"] > seen[-1]["id"]]
    with streamed(api, ann, "ann", {"Last-Event-ID": seen[-1]["id"]}) as resumed:
        rotate(api, ann)
    assert resumed == missed
    assert missed and all(n["id"] > seen[-1]["id"] for n in missed)


def test_the_stream_follows_what_comes(api: TestClient[Any]) -> None:
    ann = register(api, "ann")
    with streamed(api, ann, "ann") as seen:
        invited = sentinel(api, "ann")
        rotate(api, ann)
    assert [(n["kind"], n["game_id"]) for n in seen] == [("invitation", invited)]

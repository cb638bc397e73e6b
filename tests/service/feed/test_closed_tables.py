"""A table that closes before it starts tells the players it named: those who joined it and
those still invited to it (``game-finished`` with ``closed``: why). Time is the test's clock:
the server's sweeper closes the table, never a wall-clock sleep."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.clocks import ManualClock
from tests.service.conftest import auth
from tests.service.feed.conftest import FeedSocket, feed_of, register, table
from tests.service.tables.conftest import swept

OPEN: dict[str, Any] = {"open": True}
OPEN_TABLE_SECONDS = 1800  # the setting's default


def test_a_table_that_expires_tells_its_joiners(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    ann = register(api, "ann")
    game = table(api, [{"name": "Host"}, OPEN, OPEN])["id"]
    assert api.post(f"/games/{game}/join", json={}, headers=auth(ann)).status_code == 200
    with feed_of(api) as session:
        feed = FeedSocket(session)
        feed.hello(ann)
        clock.advance(OPEN_TABLE_SECONDS + 1)
        swept(api, clock)
        note = feed.note()
    assert (note["kind"], note["game_id"], note["seat"], note["closed"]) == (
        "game-finished",
        game,
        1,
        "expired",
    )
    assert "winners" not in note  # a closed table has no result
    assert api.get(f"/games/{game}").json()["status"] == "closed"


def test_a_cancelled_table_tells_its_joiners_and_its_invited_players(
    api: TestClient[Any],
) -> None:
    ann, bob = register(api, "ann"), register(api, "bob")
    created = table(api, [{"name": "Host"}, OPEN, {"invite": "bob"}])
    game = created["id"]
    assert api.post(f"/games/{game}/join", json={}, headers=auth(ann)).status_code == 200
    with feed_of(api) as ann_session, feed_of(api) as bob_session:
        ann_feed, bob_feed = FeedSocket(ann_session), FeedSocket(bob_session)
        ann_feed.hello(ann)
        bob_feed.hello(bob)
        invitation = bob_feed.note()
        assert (invitation["kind"], invitation["game_id"]) == ("invitation", game)  # it stands
        referee = auth(created["tokens"]["referee"])
        assert api.post(f"/games/{game}/cancel", json={}, headers=referee).status_code == 200
        for feed, seat in ((ann_feed, 1), (bob_feed, 2)):
            note = feed.note()
            assert (note["kind"], note["game_id"], note["seat"], note["closed"]) == (
                "game-finished",
                game,
                seat,
                "cancelled",
            )

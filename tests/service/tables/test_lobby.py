"""The lobby: the listed tables with an open seat, the longest waiting first, filtered by rule
set, number of seats and rated, a page at a time."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from service.usecases.games import summaries
from tests.service.conftest import auth
from tests.service.tables.conftest import join, refused, register, table

OPEN: dict[str, Any] = {"open": True}


def lobby(api: TestClient[Any], **query: Any) -> dict[str, Any]:
    reply = api.get("/lobby", params=query)
    assert reply.status_code == 200, reply.text
    found: dict[str, Any] = reply.json()
    return found


def test_the_lobby_lists_listed_tables_with_an_open_seat_only(api: TestClient[Any]) -> None:
    register(api, "bob")
    listed = table(
        api,
        [{"name": "Host"}, OPEN, {"invite": "bob"}],
        options={"three_tries": "whenever_no_piece_out"},
    )
    table(api, [{"name": "Host"}, OPEN], unlisted=True)  # joined by its link only
    table(api, [{"name": "Host"}, {"invite": "bob"}])  # a challenge: nothing open
    table(api, [{"name": "A"}, {"name": "B"}])  # no table: every seat filled
    filled = table(api, [{"name": "Host"}, OPEN])
    join(api, filled["id"], name="Zed")  # started: no longer waiting
    cancelled = table(api, [{"name": "Host"}, OPEN])
    referee = auth(cancelled["tokens"]["referee"])
    api.post(f"/games/{cancelled['id']}/cancel", json={}, headers=referee)

    found = lobby(api)
    assert found["next"] is None
    assert [t["id"] for t in found["tables"]] == [listed["id"]]
    shown = found["tables"][0]
    assert shown["ruleset"] == "ludo" and shown["players"] == 3 and shown["rated"] is False
    assert shown["options"]["three_tries"] == "whenever_no_piece_out"
    assert shown["seats"] == [
        {"seat": 0, "name": "Host", "open": False, "invite": None},
        {"seat": 1, "name": "", "open": True, "invite": None},
        {"seat": 2, "name": "bob", "open": False, "invite": "bob"},
    ]
    assert shown["created_at"].endswith("Z")


def test_the_lobby_filters_by_rule_set_seats_and_rated(api: TestClient[Any]) -> None:
    ludo_two = table(api, [{"name": "Host"}, OPEN])["id"]
    ludo_four = table(api, [{"name": "Host"}, OPEN, OPEN, OPEN], rated=True)["id"]
    sorry_two = table(api, [OPEN, OPEN], "sorry")["id"]

    def ids(**query: Any) -> list[str]:
        return [t["id"] for t in lobby(api, **query)["tables"]]

    assert ids() == [ludo_two, ludo_four, sorry_two]
    assert ids(ruleset="ludo") == [ludo_two, ludo_four]
    assert ids(players=2) == [ludo_two, sorry_two]
    assert ids(ruleset="ludo", players=4) == [ludo_four]
    assert ids(rated="true") == [ludo_four]
    assert ids(rated="false", players=2, ruleset="sorry") == [sorry_two]
    assert ids(ruleset="race35") == []
    assert refused(api.get("/lobby", params={"players": 0}))[0] == 400


def test_the_lobby_comes_a_page_at_a_time(api: TestClient[Any]) -> None:
    made = [table(api, [{"name": "Host"}, OPEN])["id"] for _ in range(5)]
    table(api, [{"name": "Host"}, OPEN], unlisted=True)  # left out, pages filled past it
    made.append(table(api, [{"name": "Host"}, OPEN])["id"])
    seen: list[str] = []
    reply = api.get("/lobby", params={"limit": 2})
    while True:
        assert reply.status_code == 200, reply.text
        page = reply.json()
        seen += [t["id"] for t in page["tables"]]
        if page["next"] is None:
            break
        assert len(page["tables"]) == 2
        assert reply.headers["link"] == f'<{page["next"]}>; rel="next"'
        reply = api.get(page["next"])
    assert seen == made


def test_a_tables_summary_made_again_from_its_log_is_the_one_kept(api: TestClient[Any]) -> None:
    ann = register(api, "ann")
    game = table(api, [{"name": "Host"}, OPEN, OPEN, {"invite": "ann"}])["id"]
    join(api, game, name="Zed")
    join(api, game, ann)
    store = api.app.state.queries.store
    kept = store.summary(game)
    assert kept is not None
    made, at, _ = summaries.from_log(store.read(game))
    assert made == kept.summary and at == kept.updated_at
    assert made.status == "gathering" and made.document["players"] == [None, None, None, "ann"]
    assert made.document["table"]["open"] == [2]

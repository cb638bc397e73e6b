"""A game that gathered keeps its whole story in its log: its record exports, verifies offline
and imports with its seating, a forged seating is named as the first bad event, a snapshot
keeps who sits where, and the ratings count a table as if created with whoever joined it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from service.usecases.games.records import GameRecord, verify_record
from service.usecases.ratings.rule import rating_keys
from tests.service.conftest import auth
from tests.service.games.test_records import rehash
from tests.service.tables.conftest import join, register, state, table

OPEN: dict[str, Any] = {"open": True}


def gathered(api: TestClient[Any], ann: str, **body: Any) -> tuple[str, dict[int, str]]:
    """A race35 table of two open seats, taken by Ann (her key) and the guest Zed; its id
    and each seat's credential."""
    created = table(api, [OPEN, OPEN], "race35", options={"special_squares": {}}, **body)
    game = created["id"]
    mine = join(api, game, ann)["seat"]
    guest = join(api, game, name="Zed")
    return game, {mine: ann, guest["seat"]: guest["token"]}


def played_out(api: TestClient[Any], game: str, held: dict[int, str]) -> dict[str, Any]:
    """Roll for whoever must until the game is over; its last state."""
    while (view := state(api, game))["status"] == "active":
        seat = view["to_act"][0]["seat"]
        reply = api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=auth(held[seat]))
        assert reply.status_code == 200, reply.text
    return view


def test_a_game_that_gathered_exports_verifies_and_imports(api: TestClient[Any]) -> None:
    ann = register(api, "ann")
    game, held = gathered(api, ann)
    finished = played_out(api, game, held)
    record = api.get(f"/games/{game}/export").json()
    assert record["seats"] == ["", ""]  # as created: the joiners are in the log
    kinds = [e["type"] for e in record["events"]]
    assert kinds[:4] == ["GameCreated", "SeatTaken", "SeatTaken", "TableStarted"]
    verified = verify_record(msgspec.convert(record, GameRecord))
    assert verified.valid and verified.chance_checked and verified.finished
    audit = api.get(f"/games/{game}/audit").json()["verification"]
    assert audit["valid"], audit
    reply = api.post("/games/import", json=record)
    assert reply.status_code == 201, reply.text
    imported = state(api, reply.json()["id"])
    assert [s["name"] for s in imported["seats"]] == [s["name"] for s in finished["seats"]]
    assert imported["winners"] == finished["winners"] and imported["status"] == "finished"


def test_a_running_table_imports_still_gathering(api: TestClient[Any]) -> None:
    created = table(api, [{"name": "Host"}, OPEN, OPEN], chance="external")
    join(api, created["id"], name="Zed")
    referee = auth(created["tokens"]["referee"])
    record = api.get(f"/games/{created['id']}/export", headers=referee).json()
    reply = api.post("/games/import", json=record)
    assert reply.status_code == 201, reply.text
    copy = reply.json()
    assert copy["tokens"]["seats"][1:] == [None, None]  # the joiner's seat keeps its token
    assert state(api, copy["id"])["status"] == "gathering"
    assert join(api, copy["id"], name="Yan")["seat"] == 2


def test_a_forged_seating_is_the_first_bad_event(api: TestClient[Any]) -> None:
    ann = register(api, "ann")
    game, held = gathered(api, ann)
    played_out(api, game, held)
    record = api.get(f"/games/{game}/export").json()
    taken = record["events"][1]
    taken["by"] = "referee"  # the referee seating someone: no such command
    reply = api.post("/games/import", json=rehash(record))
    assert reply.status_code == 422, reply.text
    assert reply.json()["first_bad_event"] == 2
    forged = api.get(f"/games/{game}/export").json()
    forged["events"][3]["by"] = "referee"  # a start nobody asked for
    verdict = verify_record(msgspec.convert(rehash(forged), GameRecord))
    assert not verdict.valid and verdict.first_bad == 4


def test_a_cancelled_table_verifies_and_imports_closed(api: TestClient[Any]) -> None:
    created = table(api, [{"name": "Host"}, OPEN, OPEN])
    join(api, created["id"], name="Zed")
    referee = auth(created["tokens"]["referee"])
    api.post(f"/games/{created['id']}/cancel", json={}, headers=referee)
    record = api.get(f"/games/{created['id']}/export").json()
    assert verify_record(msgspec.convert(record, GameRecord)).valid
    reply = api.post("/games/import", json=record)
    assert reply.status_code == 201, reply.text
    copy = state(api, reply.json()["id"])
    assert copy["status"] == "closed" and copy["table"]["reason"] == "cancelled"


def test_a_snapshot_keeps_who_sits_where(settings: Settings, tmp_path: Path) -> None:
    with TestClient(create_app(settings)) as api:
        ann = register(api, "ann")
        game, held = gathered(api, ann)
        for _ in range(70):  # past the first snapshot, at version 64
            view = state(api, game)
            if view["status"] != "active":
                break
            seat = view["to_act"][0]["seat"]
            api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=auth(held[seat]))
        assert state(api, game)["version"] > 64
        names = [s["name"] for s in state(api, game)["seats"]]
    with TestClient(create_app(settings)) as again:  # a new process: from the snapshot
        view = state(again, game)
        assert [s["name"] for s in view["seats"]] == names
        guest = next(token for token in held.values() if not token.startswith("tabula_pk_"))
        assert again.get(f"/games/{game}/legal-moves", headers=auth(guest)).status_code == 200


def test_a_table_joined_by_players_is_rated_as_if_created_with_them(api: TestClient[Any]) -> None:
    ann, bob = register(api, "ann"), register(api, "bob")
    created = table(
        api, [{"player": "ann"}, OPEN], "race35", options={"special_squares": {}}, rated=True
    )
    game = created["id"]
    join(api, game, bob)
    played_out(api, game, {0: ann, 1: bob})
    store = api.app.state.queries.store
    assert rating_keys(store.read(game), store.stream(game)) == ["ann", "bob"]


def test_a_table_a_guest_joined_or_that_closed_is_never_rated(api: TestClient[Any]) -> None:
    ann = register(api, "ann")
    game, held = gathered(api, ann, rated=True)
    played_out(api, game, held)
    store = api.app.state.queries.store
    assert rating_keys(store.read(game), store.stream(game)) is None  # Zed is a guest
    closed = table(api, [{"player": "ann"}, OPEN], "race35", rated=True)
    referee = auth(closed["tokens"]["referee"])
    api.post(f"/games/{closed['id']}/cancel", json={}, headers=referee)
    assert rating_keys(store.read(closed["id"]), store.stream(closed["id"])) is None

"""Creating writes honour Idempotency-Key: the same key and body replay the first reply (the
same id, version, commitment and tokens) and store nothing again; another body is 422
``idempotency-key-reused``; another caller (another token, or without one another address)
with the same key makes a write of its own. End to end through the real app over SQLite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from service.store import open_store
from tests.service.conftest import auth

ADDRESS = "x-test-address"
GAME = {"ruleset": "race35", "seats": [{"name": "Ann"}, {"name": "Bob"}]}
OTHER_GAME = {"ruleset": "race35", "seats": [{"name": "Ann"}, {"name": "Cy"}]}


class Addressed:
    """The app, each request coming from the address its ``x-test-address`` header names (as
    a server behind a trusted proxy finds it), else from the test client's."""

    def __init__(self, app: Litestar) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            for name, value in scope["headers"]:
                if name.decode() == ADDRESS:
                    scope = {**scope, "client": (value.decode(), 50000)}
        await self.app(scope, receive, send)


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "tabula.db"


@pytest.fixture
def app(database: Path) -> Litestar:
    return create_app(Settings(database=str(database), log_level="warning", cursor_key="k"))


@pytest.fixture
def api(app: Litestar) -> Iterator[TestClient[Any]]:
    with TestClient(Addressed(app)) as client:
        yield client


def stored(database: Path) -> tuple[int, int]:
    """How many streams and events the store holds."""
    store = open_store(str(database), "FULL")
    try:
        streams = store.streams()
    finally:
        store.close()
    return len(streams), sum(stream.version for stream in streams)


def keyed(key: str, **headers: str) -> dict[str, str]:
    return {"Idempotency-Key": key, **headers}


def test_a_retried_creation_gives_the_first_game_and_its_tokens(
    api: TestClient[Any], database: Path
) -> None:
    first = api.post("/games", json=GAME, headers=keyed("k1"))
    assert first.status_code == 201, first.text
    before = stored(database)
    again = api.post(
        "/games", json={"seats": GAME["seats"], "ruleset": "race35"}, headers=keyed("k1")
    )
    assert again.status_code == 201, again.text
    assert again.json() == first.json()
    assert stored(database) == before == (1, first.json()["version"])
    token = first.json()["tokens"]["referee"]
    assert (
        api.get(f"/games/{first.json()['id']}/legal-moves", headers=auth(token)).status_code == 200
    )


def test_a_creation_key_with_another_body_is_refused(api: TestClient[Any], database: Path) -> None:
    api.post("/games", json=GAME, headers=keyed("k1"))
    before = stored(database)
    reused = api.post("/games", json=OTHER_GAME, headers=keyed("k1"))
    assert reused.status_code == 422
    assert reused.json()["type"].endswith("/idempotency-key-reused")
    assert stored(database) == before


def test_a_creation_key_is_the_address_s_own(api: TestClient[Any], database: Path) -> None:
    mine = api.post("/games", json=GAME, headers=keyed("k1", **{ADDRESS: "10.0.0.1"})).json()
    theirs = api.post("/games", json=GAME, headers=keyed("k1", **{ADDRESS: "10.0.0.2"})).json()
    assert mine["id"] != theirs["id"]
    assert mine["tokens"]["referee"] != theirs["tokens"]["referee"]
    assert stored(database)[0] == 2


def test_a_creation_key_is_the_token_s_own(api: TestClient[Any], database: Path) -> None:
    anonymous = api.post("/games", json=GAME, headers=keyed("k1")).json()
    bearer = api.post("/games", json=GAME, headers=keyed("k1", **auth("t"))).json()
    other = api.post("/games", json=GAME, headers=keyed("k1", **auth("u"))).json()
    assert len({anonymous["id"], bearer["id"], other["id"]}) == 3
    assert api.post("/games", json=GAME, headers=keyed("k1", **auth("t"))).json() == bearer
    assert stored(database)[0] == 3


def test_creations_without_a_key_are_each_a_game(api: TestClient[Any], database: Path) -> None:
    api.post("/games", json=GAME)
    api.post("/games", json=GAME)
    assert stored(database)[0] == 2


def test_a_creation_replayed_by_a_process_with_another_key_is_refused(
    api: TestClient[Any], database: Path
) -> None:
    """Tokens derived with another service key would not open the game: the replay says so
    instead of showing them (and stores nothing)."""
    first = api.post("/games", json=GAME, headers=keyed("k1")).json()
    app = create_app(Settings(database=str(database), log_level="warning", cursor_key="other"))
    with TestClient(app) as elsewhere:
        again = elsewhere.post("/games", json=GAME, headers=keyed("k1"))
    assert again.status_code == 409
    assert again.json()["type"].endswith("/idempotency-secrets-lost")
    assert first["id"] in again.json()["detail"]
    assert stored(database)[0] == 1


def test_a_retried_batch_gives_the_first_tables(api: TestClient[Any], database: Path) -> None:
    batch = {"games": [GAME, OTHER_GAME]}
    first = api.post("/games/batch", json=batch, headers=keyed("b1"))
    assert first.status_code == 201, first.text
    before = stored(database)
    assert api.post("/games/batch", json=batch, headers=keyed("b1")).json() == first.json()
    assert stored(database) == before
    assert before[0] == 2
    reused = api.post("/games/batch", json={"games": [GAME]}, headers=keyed("b1"))
    assert reused.json()["type"].endswith("/idempotency-key-reused")
    other = api.post("/games/batch", json=batch, headers=keyed("b1", **{ADDRESS: "10.0.0.9"}))
    assert other.status_code == 201
    assert stored(database)[0] == 4


def exported(api: TestClient[Any], body: dict[str, Any]) -> Any:
    """The record of a new game (its chance external, so it imports without its seed)."""
    made = api.post("/games", json={**body, "chance": "external"}).json()
    return api.get(f"/games/{made['id']}/export", headers=auth(made["tokens"]["referee"])).json()


def test_a_retried_import_gives_the_first_game(api: TestClient[Any], database: Path) -> None:
    record, other = exported(api, GAME), exported(api, OTHER_GAME)
    first = api.post("/games/import", json=record, headers=keyed("i1"))
    assert first.status_code == 201, first.text
    before = stored(database)
    assert api.post("/games/import", json=record, headers=keyed("i1")).json() == first.json()
    assert stored(database) == before == (3, before[1])
    reused = api.post("/games/import", json=other, headers=keyed("i1"))
    assert reused.json()["type"].endswith("/idempotency-key-reused")
    assert stored(database) == before


def test_a_retried_registration_gives_the_same_key(api: TestClient[Any], database: Path) -> None:
    first = api.post("/players", json={"handle": "ann"}, headers=keyed("p1"))
    assert first.status_code == 201, first.text
    before = stored(database)
    again = api.post("/players", json={"handle": "ann"}, headers=keyed("p1"))
    assert again.status_code == 201, again.text
    assert again.json() == first.json()
    assert stored(database) == before
    assert api.get("/me", headers=auth(first.json()["key"])).json()["handle"] == "ann"


def test_a_registration_key_is_the_address_s_own(api: TestClient[Any], database: Path) -> None:
    api.post("/players", json={"handle": "ann"}, headers=keyed("p1"))
    theirs = api.post(
        "/players", json={"handle": "ann"}, headers=keyed("p1", **{ADDRESS: "10.0.0.3"})
    )
    assert theirs.status_code == 409
    assert theirs.json()["type"].endswith("/handle-taken")
    assert stored(database)[0] == 1


LUDO4 = {"ruleset": "ludo", "players": 4}


def test_a_retried_guest_seek_gives_the_same_seek_and_secret(
    api: TestClient[Any], database: Path
) -> None:
    first = api.post("/seeks", json={**LUDO4, "name": "Zed"}, headers=keyed("s1"))
    assert first.status_code == 201, first.text
    before = stored(database)
    again = api.post("/seeks", json={**LUDO4, "name": "Zed"}, headers=keyed("s1"))
    assert again.status_code == 201, again.text
    assert again.json() == first.json()
    assert stored(database) == before
    mine = api.get(f"/seeks/{first.json()['id']}", headers=auth(first.json()["secret"]))
    assert mine.json()["status"] == "waiting"
    reused = api.post("/seeks", json={**LUDO4, "name": "Amy"}, headers=keyed("s1"))
    assert reused.status_code == 422
    assert reused.json()["type"].endswith("/idempotency-key-reused")
    assert stored(database) == before


def test_a_retried_player_seek_is_no_second_seek(api: TestClient[Any], database: Path) -> None:
    """Without the key the retry would be 409 ``already-seeking``: with it, the first reply."""
    key = api.post("/players", json={"handle": "ann"}).json()["key"]
    first = api.post("/seeks", json=LUDO4, headers=keyed("s1", **auth(key)))
    assert first.status_code == 201, first.text
    before = stored(database)
    assert api.post("/seeks", json=LUDO4, headers=keyed("s1", **auth(key))).json() == first.json()
    assert stored(database) == before


def test_a_seek_key_is_the_address_s_own(api: TestClient[Any], database: Path) -> None:
    body = {**LUDO4, "name": "Zed"}
    mine = api.post("/seeks", json=body, headers=keyed("s1", **{ADDRESS: "10.0.0.1"})).json()
    theirs = api.post("/seeks", json=body, headers=keyed("s1", **{ADDRESS: "10.0.0.2"})).json()
    assert mine["id"] != theirs["id"] and mine["secret"] != theirs["secret"]


CLUB = {
    "name": "Club night",
    "ruleset": "race35",
    "format": "swiss",
    "rounds": 1,
    "seats_per_table": 2,
    "players": [{"name": f"P{i}"} for i in range(4)],
}


def test_a_retried_tournament_gives_the_first_tokens(api: TestClient[Any], database: Path) -> None:
    first = api.post("/tournaments", json=CLUB, headers=keyed("t1"))
    assert first.status_code == 201, first.text
    before = stored(database)
    assert api.post("/tournaments", json=CLUB, headers=keyed("t1")).json() == first.json()
    assert stored(database) == before
    director = auth(first.json()["tokens"]["director"])
    paired = api.post(f"/tournaments/{first.json()['id']}/rounds", json={}, headers=director)
    assert paired.status_code == 201, paired.text
    reused = api.post("/tournaments", json={**CLUB, "name": "Other"}, headers=keyed("t1"))
    assert reused.json()["type"].endswith("/idempotency-key-reused")
    theirs = api.post("/tournaments", json=CLUB, headers=keyed("t1", **{ADDRESS: "10.0.0.4"}))
    assert theirs.json()["id"] != first.json()["id"]


def test_a_retried_mint_gives_the_same_key(
    api: TestClient[Any], app: Litestar, database: Path
) -> None:
    app_key = app.state.apps.add("ludoclub")
    made = api.post("/players", json={"handle": "8812"}, headers=auth(app_key)).json()
    route = f"/players/{made['handle']}/keys"
    first = api.post(route, headers=keyed("m1", **auth(app_key)))
    assert first.status_code == 200, first.text
    before = stored(database)
    assert api.post(route, headers=keyed("m1", **auth(app_key))).json() == first.json()
    assert stored(database) == before
    assert api.get("/me", headers=auth(first.json()["key"])).status_code == 200
    fresh = api.post(route, headers=keyed("m2", **auth(app_key))).json()
    assert fresh["key"] != first.json()["key"]


def test_a_rotation_retried_with_the_key_it_replaced_is_refused(
    api: TestClient[Any], database: Path
) -> None:
    """The rotated key stops at once: its retry is 401 and writes nothing, so a stolen old
    key never reads the new one."""
    old = api.post("/players", json={"handle": "ann"}).json()["key"]
    new = api.post("/me/keys", headers=keyed("r1", **auth(old)))
    assert new.status_code == 200, new.text
    before = stored(database)
    assert api.post("/me/keys", headers=keyed("r1", **auth(old))).status_code == 401
    assert stored(database) == before
    assert api.get("/me", headers=auth(new.json()["key"])).status_code == 200


def test_a_retried_pairing_answers_the_round_it_paired(
    api: TestClient[Any], database: Path
) -> None:
    """Without the key a retry is 409 (the round is being played)."""
    made = api.post("/tournaments", json=CLUB).json()
    director = auth(made["tokens"]["director"])
    route = f"/tournaments/{made['id']}/rounds"
    first = api.post(route, json={}, headers=keyed("r1", **director))
    assert first.status_code == 201, first.text
    before = stored(database)
    again = api.post(route, json={}, headers=keyed("r1", **director))
    assert again.status_code == 201, again.text
    assert again.json() == first.json()
    assert stored(database) == before
    assert api.post(route, json={}, headers=keyed("r2", **director)).status_code == 409


TABLE = {"ruleset": "race35", "seats": [{"name": "Host"}, {"open": True}, {"open": True}]}


def table_routes(api: TestClient[Any], route: str, body: dict[str, Any]) -> None:
    """A table's referee write ``route`` twice with one key: the same reply, nothing more
    stored; without the key, the same write again is refused (the table changed)."""
    made = api.post("/games", json=TABLE).json()
    referee = auth(made["tokens"]["referee"])
    api.post(f"/games/{made['id']}/join", json={"name": "Zed"})
    path = f"/games/{made['id']}/{route}"
    first = api.post(path, json=body, headers=keyed("w1", **referee))
    assert first.status_code == 200, first.text
    stored_once = [event["version"] for event in first.json()["events"]]
    again = api.post(path, json=body, headers=keyed("w1", **referee))
    assert again.status_code == 200, again.text
    assert [event["version"] for event in again.json()["events"]] == stored_once
    assert again.json()["version"] == first.json()["version"]
    assert api.post(path, json=body, headers=referee).status_code == 409


def test_a_table_started_twice_with_one_key_starts_once(
    api: TestClient[Any], database: Path
) -> None:
    table_routes(api, "start", {"bots": "random"})


def test_a_table_cancelled_twice_with_one_key_closes_once(
    api: TestClient[Any], database: Path
) -> None:
    table_routes(api, "cancel", {})

"""Quick play end to end: seeks of one shape sit at a complete table in arrival order, each
seeker told her table and seat and playing it with her key or her secret; the owner alone
reads or cancels a seek; shapes never meet; a guest's seek is never rated."""

from __future__ import annotations

from typing import Any

from tests.service.conftest import auth
from tests.service.seeks.seeking import (
    LUDO4,
    Api,
    created,
    is_rated,
    play_round,
    read,
    refused,
    register,
    seek,
)


def test_four_seeks_make_one_table_seated_in_arrival_order(api: Api) -> None:
    keys = {handle: register(api, handle) for handle in ("ann", "bob", "cat")}
    posted = [seek(api, keys["ann"]), seek(api, keys["bob"])]
    guest = seek(api, name="Gus")
    posted += [guest, seek(api, keys["cat"])]
    credentials = [keys["ann"], keys["bob"], guest["secret"], keys["cat"]]
    views = [read(api, p["id"], c) for p, c in zip(posted, credentials, strict=True)]
    assert {view["status"] for view in views} == {"matched"}
    assert [view["seat"] for view in views] == [0, 1, 2, 3]
    game_id = views[0]["game_id"]
    assert {view["game_id"] for view in views} == {game_id}
    state = api.get(f"/games/{game_id}").json()
    assert [seat["name"] for seat in state["seats"]] == ["ann", "bob", "Gus", "cat"]
    assert state["status"] == "active" and not is_rated(api, game_id)
    assert created(api, game_id)["tags"] == {"quick-play": posted[0]["id"].rsplit("-", 1)[0]}
    assert set(play_round(api, game_id, dict(enumerate(credentials)))) == {0, 1, 2, 3}


def test_a_seat_is_played_only_with_its_own_key_or_secret(api: Api) -> None:
    keys = [register(api, handle) for handle in ("ann", "bob")]
    posted = [seek(api, keys[0], players=2), seek(api, players=2)]
    game_id = read(api, posted[0]["id"], keys[0])["game_id"]
    to_act = api.get(f"/games/{game_id}").json()["to_act"][0]["seat"]
    others = {0: [posted[1]["secret"], keys[1]], 1: [keys[0], keys[1]]}[to_act]
    for credential in others:
        reply = api.post(f"/games/{game_id}/moves", json={"move": "roll"}, headers=auth(credential))
        assert reply.status_code in (401, 403, 409), reply.text
    own = {0: keys[0], 1: posted[1]["secret"]}[to_act]
    reply = api.post(f"/games/{game_id}/moves", json={"move": "roll"}, headers=auth(own))
    assert reply.status_code == 200, reply.text


def test_a_fifth_seek_waits_for_the_next_table(api: Api) -> None:
    posted = [seek(api) for _ in range(5)]
    fifth = read(api, posted[4]["id"], posted[4]["secret"])
    assert fifth["status"] == "waiting"
    assert fifth["game_id"] is None and fifth["seat"] is None and fifth["expires_at"]
    assert read(api, posted[3]["id"], posted[3]["secret"])["status"] == "matched"


def test_a_player_has_one_seek_of_a_shape_waiting_at_a_time(api: Api) -> None:
    key = register(api, "ann")
    first = seek(api, key)
    reply = api.post("/seeks", json=LUDO4, headers=auth(key))
    assert refused(reply) == (409, "already-seeking")
    assert reply.json()["seek"] == first["id"]
    seek(api, key, players=2)  # another shape


def test_seeks_of_other_shapes_never_meet(api: Api) -> None:
    shapes: list[dict[str, Any]] = [
        {"players": 2},
        {"players": 2, "ruleset": "race35"},
        {"players": 2, "options": {"win_condition": "home"}},
        {"players": 3},
    ]
    posted = [seek(api, **shape) for shape in shapes]
    assert {read(api, p["id"], p["secret"])["status"] for p in posted} == {"waiting"}
    same = seek(api, players=2, options={"win_condition": "home_column"})  # the default, said
    assert read(api, same["id"], same["secret"])["status"] == "matched"
    assert read(api, posted[0]["id"], posted[0]["secret"])["status"] == "matched"


def test_only_its_owner_reads_or_cancels_a_seek(api: Api) -> None:
    ann, bob = register(api, "ann"), register(api, "bob")
    mine, guests = seek(api, ann), seek(api)
    for seek_id in (mine["id"], guests["id"]):
        assert refused(api.get(f"/seeks/{seek_id}")) == (401, "unauthorized")
        assert refused(api.delete(f"/seeks/{seek_id}")) == (401, "unauthorized")
    for seek_id, stranger in (
        (mine["id"], bob),
        (mine["id"], guests["secret"]),
        (guests["id"], ann),
    ):
        assert refused(api.get(f"/seeks/{seek_id}", headers=auth(stranger))) == (403, "forbidden")
        reply = api.delete(f"/seeks/{seek_id}", headers=auth(stranger))
        assert refused(reply) == (403, "forbidden")
    assert read(api, mine["id"], ann)["status"] == "waiting"
    unknown = mine["id"].rsplit("-", 1)[0] + "-" + "0" * 32
    assert refused(api.get(f"/seeks/{unknown}", headers=auth(ann))) == (404, "seek-not-found")
    assert refused(api.get("/seeks/nonsense", headers=auth(ann))) == (404, "seek-not-found")


def test_a_cancelled_seek_is_never_seated(api: Api) -> None:
    first = seek(api)
    reply = api.delete(f"/seeks/{first['id']}", headers=auth(first["secret"]))
    assert reply.status_code == 200, reply.text
    assert reply.json()["status"] == "cancelled"
    posted = [seek(api) for _ in range(4)]
    assert read(api, first["id"], first["secret"])["status"] == "cancelled"
    assert [read(api, p["id"], p["secret"])["seat"] for p in posted] == [0, 1, 2, 3]
    again = api.delete(f"/seeks/{first['id']}", headers=auth(first["secret"]))
    assert again.status_code == 200 and again.json()["status"] == "cancelled"  # idempotent
    matched = api.delete(f"/seeks/{posted[0]['id']}", headers=auth(posted[0]["secret"]))
    assert refused(matched) == (409, "seek-not-waiting")
    assert matched.json()["seek_status"] == "matched"
    assert matched.json()["game_id"] == read(api, posted[0]["id"], posted[0]["secret"])["game_id"]


def test_guests_seeks_make_an_unrated_table_and_a_rated_seek_needs_a_key(api: Api) -> None:
    reply = api.post("/seeks", json=LUDO4 | {"rated": True})
    assert refused(reply) == (422, "bad-setup")
    posted = [seek(api, players=2), seek(api, players=2)]
    game_id = read(api, posted[0]["id"], posted[0]["secret"])["game_id"]
    state = api.get(f"/games/{game_id}").json()
    assert not is_rated(api, game_id)
    assert [seat["name"] for seat in state["seats"]] == ["Guest 1", "Guest 2"]


def test_rated_seeks_of_players_make_a_rated_table(api: Api) -> None:
    keys = [register(api, handle) for handle in ("ann", "bob")]
    posted = [seek(api, key, players=2, rated=True) for key in keys]
    game_id = read(api, posted[1]["id"], keys[1])["game_id"]
    assert is_rated(api, game_id)


def test_a_guest_named_as_a_player_at_her_table_is_seated_as_a_guest(api: Api) -> None:
    key = register(api, "ann")
    seek(api, key, players=2)
    guest = seek(api, players=2, name="ANN")
    game_id = read(api, guest["id"], guest["secret"])["game_id"]
    names = [seat["name"] for seat in api.get(f"/games/{game_id}").json()["seats"]]
    assert names == ["ann", "Guest 2"]


def test_an_app_or_a_token_posts_no_seek(api: Api) -> None:
    game = api.post("/games", json={"ruleset": "race35", "seats": [{}, {}]}).json()
    reply = api.post("/seeks", json=LUDO4, headers=auth(game["tokens"]["referee"]))
    assert refused(reply) == (403, "forbidden")
    reply = api.post("/seeks", json=LUDO4 | {"name": "x"}, headers=auth(register(api, "ann")))
    assert refused(reply) == (422, "bad-setup")


def test_a_player_who_retired_her_handle_is_not_seated(api: Api) -> None:
    ann, bob = register(api, "ann"), register(api, "bob")
    seek(api, ann, players=2)
    assert api.delete("/me", headers=auth(ann)).status_code in (200, 204)
    his = seek(api, bob, players=2)
    assert read(api, his["id"], bob)["status"] == "waiting"
    guest = seek(api, players=2)
    view = read(api, guest["id"], guest["secret"])
    assert view["status"] == "matched"
    assert read(api, his["id"], bob)["game_id"] == view["game_id"]
    names = [seat["name"] for seat in api.get(f"/games/{view['game_id']}").json()["seats"]]
    assert names == ["bob", "Guest 2"]

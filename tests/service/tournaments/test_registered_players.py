"""Tournaments of registered players, end to end against the real app: a director enters Ann
and Bob by handle; no token of the tournament acts for them (the creation's reply shows
none), their tables seat them as their players' seats, each plays with her own key and finds
her table with it (``/tournaments/{id}/me``); results reach the standings and the ratings
move as a game's would, while guests' tables stay unrated. An unknown or retired handle is
refused, and the director (every table's referee) never acts for a player's seat."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from service.core.actor import Player
from service.usecases.players.book import PlayerBook
from service.usecases.tournaments.records import verify_tournament
from service.usecases.tournaments.wire import TournamentRecord
from tests.service.conftest import auth
from tests.service.tournaments.test_tournaments import QUICK, problem


def book(api: TestClient[Any]) -> PlayerBook:
    players: PlayerBook = api.app.state.players
    return players


def register(api: TestClient[Any], *handles: str) -> dict[str, str]:
    """Register players: their keys, by handle."""
    return {handle: book(api).register(handle).key for handle in handles}


def entered(api: TestClient[Any], *players: dict[str, Any], **body: Any) -> Any:
    """``POST /tournaments`` of a one-round race35 at tables of two with ``players``."""
    body = {
        "name": "Ladder",
        "ruleset": "race35",
        "options": QUICK,
        "rounds": 1,
        "seats_per_table": 2,
        "players": list(players),
        **body,
    }
    return api.post("/tournaments", json=body)


def created_with(api: TestClient[Any], *players: dict[str, Any], **body: Any) -> dict[str, Any]:
    reply = entered(api, *players, **body)
    assert reply.status_code == 201, reply.text
    created: dict[str, Any] = reply.json()
    return created


def paired(api: TestClient[Any], created: dict[str, Any]) -> list[dict[str, Any]]:
    """Pair the next round: its tables."""
    path = f"/tournaments/{created['id']}/rounds"
    reply = api.post(path, json={}, headers=auth(created["tokens"]["director"]))
    assert reply.status_code == 201, reply.text
    tables: list[dict[str, Any]] = reply.json()["round"]["tables"]
    return tables


def my_table(api: TestClient[Any], tournament_id: str, credential: str) -> dict[str, Any]:
    reply = api.get(f"/tournaments/{tournament_id}/me", headers=auth(credential))
    assert reply.status_code == 200, reply.text
    mine: dict[str, Any] = reply.json()
    return mine


def play(api: TestClient[Any], game_id: str, credentials: list[str]) -> list[int]:
    """Play the first legal move of whoever is to act, each seat with its credential (a
    player's key or a guest's link), until the game ends; the seats the events are ``by``."""
    by: list[int] = []
    for _ in range(5000):
        state = api.get(f"/games/{game_id}").json()
        if state["status"] == "finished":
            return by
        seat = state["to_act"][0]["seat"]
        who = auth(credentials[seat])
        moves = api.get(f"/games/{game_id}/legal-moves", headers=who).json()
        body = {"move": moves["moves"][0]["id"], "expected_version": moves["version"]}
        reply = api.post(f"/games/{game_id}/moves", json=body, headers=who)
        assert reply.status_code == 200, reply.text
        by += [e["by"] for e in reply.json()["events"] if isinstance(e["by"], int)]
    raise AssertionError("the game did not end")


def board(api: TestClient[Any]) -> dict[str, dict[str, Any]]:
    reply = api.get("/ratings", params={"ruleset": "race35"})
    assert reply.status_code == 200, reply.text
    return {row["name"]: row for row in reply.json()["ratings"]}


def test_registered_players_play_their_tables_with_their_keys_and_their_ratings_move(
    api: TestClient[Any],
) -> None:
    keys = register(api, "Ann", "Bob")
    created = created_with(api, {"player": "ann"}, {"player": "BOB"})
    held = created["tokens"]["players"]
    assert held == [{"name": "Ann", "token": None}, {"name": "Bob", "token": None}]
    shown = api.get(f"/tournaments/{created['id']}").json()["players"]
    assert [(p["name"], p["player"]) for p in shown] == [("Ann", True), ("Bob", True)]
    (table,) = paired(api, created)
    game = api.get(f"/games/{table['game_id']}").json()
    assert [seat["name"] for seat in game["seats"]] == table["seats"]
    mine = my_table(api, created["id"], keys["Ann"])
    assert (mine["name"], mine["game_id"], mine["seat_token"]) == ("Ann", table["game_id"], None)
    assert table["seats"][mine["seat"]] == "Ann"
    by = play(api, table["game_id"], [keys[name] for name in table["seats"]])
    assert set(by) == {0, 1}  # each seat's decisions by that seat: made with its player's key
    standings = api.get(f"/tournaments/{created['id']}/standings").json()
    assert standings["status"] == "finished"
    assert {row["name"]: row["games"] for row in standings["standings"]} == {"Ann": 1, "Bob": 1}
    rated = board(api)
    assert set(rated) == {"Ann", "Bob"} and rated["Ann"]["mu"] != rated["Bob"]["mu"]
    winner = next(row for row in standings["standings"] if row["wins"] == 1)["name"]
    assert rated[winner]["mu"] > 25 > rated[({"Ann", "Bob"} - {winner}).pop()]["mu"]
    director = auth(created["tokens"]["director"])
    exported = api.get(f"/tournaments/{created['id']}/record", headers=director)
    record = msgspec.json.decode(exported.content, type=TournamentRecord)
    assert verify_tournament(record).valid


def test_a_guest_plays_with_the_link_beside_a_registered_player_unrated(
    api: TestClient[Any],
) -> None:
    keys = register(api, "Ann")
    created = created_with(api, {"player": "Ann"}, {"name": "Cat"})
    links = {p["name"]: p["token"] for p in created["tokens"]["players"]}
    assert links["Ann"] is None and isinstance(links["Cat"], str)
    (table,) = paired(api, created)
    cat = my_table(api, created["id"], links["Cat"])
    assert cat["seat_token"] == links["Cat"]
    credentials = [keys["Ann"] if name == "Ann" else cat["seat_token"] for name in table["seats"]]
    play(api, table["game_id"], credentials)
    shown = api.get(f"/tournaments/{created['id']}").json()
    assert shown["status"] == "finished"
    assert board(api) == {}  # a guest at the table: the game counts for nobody


def test_a_tournament_of_guests_stays_unrated(api: TestClient[Any]) -> None:
    created = created_with(api, {"name": "Ann"}, {"name": "Bob"})
    (table,) = paired(api, created)
    links = {p["name"]: p["token"] for p in created["tokens"]["players"]}
    play(api, table["game_id"], [links[name] for name in table["seats"]])
    assert api.get(f"/tournaments/{created['id']}").json()["status"] == "finished"
    assert board(api) == {}
    assert api.get("/players/Ann").status_code == 404


@pytest.mark.parametrize(
    ("players", "body", "slug", "pointer"),
    [
        ([{"player": "nobody"}, {"name": "Cat"}], {}, "unknown-player", "/players/0/player"),
        ([{"name": "Cat"}, {"player": "gone"}], {}, "unknown-player", "/players/1/player"),
        ([{"player": "ann", "bot": "greedy"}, {"name": "Cat"}], {}, "bad-setup", "/players/0/bot"),
        ([{"player": "ann", "name": "Anna"}, {"name": "Cat"}], {}, "bad-setup", "/players/0/name"),
        ([{"player": "ann"}, {"name": "ANN"}], {}, "bad-setup", "/players/1/name"),
        ([{"player": "ann"}, {"player": "Ann"}], {}, "bad-setup", "/players/1/player"),
        ([{"player": "ann"}, {"name": "Cat"}], {"chance": "external"}, "bad-setup", "/chance"),
    ],
    ids=["unknown", "retired", "bot", "other-name", "guest-as-her", "twice", "external-rated"],
)
def test_an_unknown_or_retired_handle_and_a_bad_entry_are_refused(
    api: TestClient[Any],
    players: list[dict[str, Any]],
    body: dict[str, Any],
    slug: str,
    pointer: str,
) -> None:
    register(api, "ann", "gone")
    book(api).retire(Player("gone"))
    before = api.get("/tournaments").json()["tournaments"]
    reply = problem(entered(api, *players, **body), 422, slug)
    assert reply["pointer"] == pointer
    assert api.get("/tournaments").json()["tournaments"] == before


def test_external_chance_with_registered_players_is_taken_unrated(api: TestClient[Any]) -> None:
    register(api, "ann")
    reply = entered(api, {"player": "ann"}, {"name": "Cat"}, chance="external", rated=False)
    assert reply.status_code == 201, reply.text


def test_the_director_never_acts_for_a_players_seat_and_her_result_still_counts(
    api: TestClient[Any],
) -> None:
    keys = register(api, "Ann")
    created = created_with(api, {"player": "Ann"}, {"name": "Cat"})
    (table,) = paired(api, created)
    game_id, ann = table["game_id"], table["seats"].index("Ann")
    director = auth(created["tokens"]["director"])
    cat = created["tokens"]["players"][1]["token"]
    writes = [
        ("/moves", {"move": "roll", "seat": ann}),
        ("/adjudicate", {"kind": "forfeit", "reason": "no show", "seat": ann}),
        ("/adjudicate", {"kind": "forfeit", "reason": "no show", "seat": 1 - ann}),
        ("/adjudicate", {"kind": "penalty", "reason": "slow", "seat": ann}),
        (f"/seats/{ann}/bot", {"bot": "greedy"}),
    ]
    for path, body in writes:
        reply = api.post(f"/games/{game_id}{path}", json=body, headers=director)
        assert reply.status_code == 403, (path, reply.text)
        assert "belongs to the player `Ann`" in reply.json()["detail"]
    assert api.get(f"/games/{game_id}").json()["version"] == 1  # nothing was written
    credentials = [keys["Ann"] if name == "Ann" else cat for name in table["seats"]]
    play(api, game_id, credentials)
    standings = api.get(f"/tournaments/{created['id']}/standings").json()
    assert standings["rounds_closed"] == 1
    assert sum(row["wins"] for row in standings["standings"]) == 1


def test_her_key_finds_her_table_and_withdraws_her_and_nobody_elses(
    api: TestClient[Any],
) -> None:
    keys = register(api, "Ann", "Bob", "Zed")
    created = created_with(
        api, {"player": "Ann"}, {"player": "Bob"}, {"name": "Cat"}, {"name": "Dan"}, rounds=2
    )
    tournament_id = created["id"]
    path = f"/tournaments/{tournament_id}"
    before = my_table(api, tournament_id, keys["Ann"])
    assert (before["name"], before["round"], before["table"]) == ("Ann", 0, None)
    outsider = api.get(f"{path}/me", headers=auth(keys["Zed"]))
    assert "no player of tournament" in problem(outsider, 403, "forbidden")["detail"]
    problem(api.post(f"{path}/rounds", json={}, headers=auth(keys["Ann"])), 403, "forbidden")
    problem(api.get(f"{path}/record", headers=auth(keys["Ann"])), 403, "forbidden")
    tables = paired(api, created)
    mine = my_table(api, tournament_id, keys["Bob"])
    assert mine["game_id"] in {t["game_id"] for t in tables} and mine["seat_token"] is None
    for other in ("Bob", "Cat"):
        reply = api.post(f"{path}/withdrawals", json={"player": other}, headers=auth(keys["Ann"]))
        problem(reply, 403, "forbidden")
    mine_out = api.post(f"{path}/withdrawals", json={"player": "ann"}, headers=auth(keys["Ann"]))
    assert mine_out.status_code == 200, mine_out.text
    shown = {p["name"]: p["withdrawn"] for p in mine_out.json()["players"]}
    assert shown == {"Ann": True, "Bob": False, "Cat": False, "Dan": False}
    events = api.get(f"{path}/record", headers=director_of(created)).json()["events"]
    assert (events[-1]["type"], events[-1]["by"]) == ("PlayerWithdrawn", 0)  # her entry


def director_of(created: dict[str, Any]) -> dict[str, str]:
    return auth(created["tokens"]["director"])


def test_a_handle_retired_before_a_round_is_refused_until_she_is_withdrawn(
    api: TestClient[Any],
) -> None:
    register(api, "Ann")
    created = created_with(api, {"player": "Ann"}, {"name": "Cat"}, {"name": "Dan"})
    book(api).retire(Player("Ann"))
    path = f"/tournaments/{created['id']}"
    refused = api.post(f"{path}/rounds", json={}, headers=director_of(created))
    assert "withdraw her" in problem(refused, 422, "unknown-player")["detail"]
    assert api.get(path).json()["rounds"] == []
    body = {"player": "Ann", "reason": "retired"}
    assert api.post(f"{path}/withdrawals", json=body, headers=director_of(created)).is_success
    (table,) = paired(api, created)
    assert sorted(table["seats"]) == ["Cat", "Dan"]


def test_a_players_tournaments_are_listed_in_her_me(api: TestClient[Any]) -> None:
    keys = register(api, "Ann", "Bob")
    first = created_with(api, {"player": "Ann"}, {"name": "Cat"}, name="First")
    created_with(api, {"player": "Bob"}, {"name": "Cat"}, name="Other")
    last = created_with(api, {"player": "Ann"}, {"player": "Bob"}, name="Last")
    tournaments = api.app.state.workers.cases.tournaments
    found = tournaments.played_by("Ann", 10)
    assert [(t.id, t.name) for t in found] == [(last["id"], "Last"), (first["id"], "First")]
    paired(api, last)
    (again, _) = tournaments.played_by("Ann", 10)
    assert (again.status, again.rounds_paired) == ("active", 1)
    assert [t.name for t in tournaments.played_by("Ann", 1)] == ["Last"]
    assert tournaments.played_by("Cat", 10) == []  # a guest's name is nobody's handle
    me = api.get("/me", headers=auth(keys["Ann"]))
    assert me.status_code == 200, me.text
    listed = [(t["id"], t["name"], t["status"]) for t in me.json()["tournaments"]]
    assert listed == [(last["id"], "Last", "active"), (first["id"], "First", "registering")]

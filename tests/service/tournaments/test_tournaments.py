"""Tournaments over HTTP, end to end against the real app: creation and its problems, rounds
paired by the director with a game per table, a player's one token for the whole event,
withdrawals, standings, the record and its verification."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from eventstore import GENESIS, chain_hash
from service.app import create_app
from service.settings import Settings
from service.usecases.games import summaries
from tests.service.conftest import auth, play_to_end

QUICK = {"special_squares": {}}  # race35 without special squares: short games


def tournament(api: TestClient[Any], players: int = 10, **body: Any) -> dict[str, Any]:
    body = {
        "name": "Club night",
        "ruleset": "race35",
        "format": "swiss",
        "rounds": 2,
        "seats_per_table": 4,
        "options": QUICK,
        "players": [{"name": f"P{i}"} for i in range(players)],
        **body,
    }
    reply = api.post("/tournaments", json=body)
    assert reply.status_code == 201, reply.text
    created: dict[str, Any] = reply.json()
    return created


def pair(api: TestClient[Any], created: dict[str, Any]) -> dict[str, Any]:
    director = auth(created["tokens"]["director"])
    reply = api.post(f"/tournaments/{created['id']}/rounds", json={}, headers=director)
    assert reply.status_code == 201, reply.text
    paired: dict[str, Any] = reply.json()["round"]
    return paired


def play_round(api: TestClient[Any], created: dict[str, Any], tables: list[dict[str, Any]]) -> None:
    tokens = {p["name"]: p["token"] for p in created["tokens"]["players"]}
    for table in tables:
        game = {"id": table["game_id"], "tokens": {"seats": [tokens[n] for n in table["seats"]]}}
        play_to_end(api, game)


def problem(reply: Any, status: int, slug: str) -> dict[str, Any]:
    assert reply.status_code == status, reply.text
    body: dict[str, Any] = reply.json()
    assert body["type"].endswith("/" + slug), body
    return body


def test_creation_gives_a_director_token_and_one_token_per_player(api: TestClient[Any]) -> None:
    created = tournament(api)
    assert [p["name"] for p in created["tokens"]["players"]] == [f"P{i}" for i in range(10)]
    tokens = [created["tokens"]["director"], *(p["token"] for p in created["tokens"]["players"])]
    assert len(set(tokens)) == 11
    shown = api.get(f"/tournaments/{created['id']}").json()
    assert shown["status"] == "registering" and shown["round_count"] == 2
    assert shown["points"] == [3, 2, 1, 0] and shown["bye_points"] == 2
    assert shown["rated"] is True and shown["teams"] is False
    assert shown["version"] == created["version"] == 11


@pytest.mark.parametrize(
    ("change", "status", "slug", "pointer"),
    [
        (
            {"players": [{"name": "Ann"}, {"name": "Ann"}]},
            400,
            "validation-failed",
            "/players/1/name",
        ),
        ({"players": [{"name": "Ann"}]}, 400, "validation-failed", "/players"),
        ({"ruleset": "chess"}, 400, "unknown-ruleset", "/ruleset"),
        ({"format": "arena"}, 400, "validation-failed", "/format"),
        ({"seats_per_table": 7}, 400, "validation-failed", "/seats_per_table"),
        ({"ruleset": "sorry", "seats_per_table": 6}, 422, "bad-setup", None),
        ({"options": {"max_players": 3}}, 422, "bad-setup", None),
        ({"options": {"bogus": 1}}, 400, "validation-failed", None),
        ({"surprise": True}, 400, "validation-failed", None),
    ],
)
def test_a_bad_tournament_is_a_problem_naming_what_is_wrong(
    api: TestClient[Any], change: dict[str, Any], status: int, slug: str, pointer: str | None
) -> None:
    body = {"name": "x", "ruleset": "race35", "players": [{"name": "A"}, {"name": "B"}]}
    found = problem(api.post("/tournaments", json=body | change), status, slug)
    if pointer is not None:
        assert found["pointer"] == pointer
    assert api.get("/games").json()["games"] == []


def test_a_tournament_is_no_game_and_a_game_no_tournament(api: TestClient[Any]) -> None:
    created = tournament(api)
    problem(api.get(f"/games/{created['id']}"), 404, "game-not-found")
    problem(api.get("/tournaments/nope"), 404, "tournament-not-found")
    table = pair(api, created)["tables"][0]
    problem(api.get(f"/tournaments/{table['game_id']}/standings"), 404, "tournament-not-found")
    listed = api.get("/games").json()["games"]
    assert {g["id"] for g in listed} == {t["game_id"] for t in pair_tables(api, created)}


def pair_tables(api: TestClient[Any], created: dict[str, Any]) -> list[dict[str, Any]]:
    rounds: list[dict[str, Any]] = api.get(f"/tournaments/{created['id']}").json()["rounds"]
    return [table for round_ in rounds for table in round_["tables"]]


def test_only_the_director_pairs_a_round(api: TestClient[Any]) -> None:
    created = tournament(api)
    path = f"/tournaments/{created['id']}/rounds"
    problem(api.post(path, json={}), 401, "unauthorized")
    player = auth(created["tokens"]["players"][0]["token"])
    problem(api.post(path, json={}, headers=player), 403, "forbidden")
    problem(api.post(path, json={}, headers=auth("made-up")), 401, "unauthorized")
    director = auth(created["tokens"]["director"])
    stale = {"expected_version": 3}
    problem(api.post(path, json=stale, headers=director), 409, "version-conflict")


def test_ten_players_at_four_seats_sit_at_tables_of_four_three_and_three(
    api: TestClient[Any],
) -> None:
    created = tournament(api)
    paired = pair(api, created)
    assert sorted(len(t["seats"]) for t in paired["tables"]) == [3, 3, 4]
    assert sorted(n for t in paired["tables"] for n in t["seats"]) == sorted(
        f"P{i}" for i in range(10)
    )
    for table in paired["tables"]:
        game = api.get(f"/games/{table['game_id']}").json()
        assert [s["name"] for s in game["seats"]] == table["seats"]
        listed = api.get("/games", params={"tag": f"tournament:{created['id']}"}).json()
    assert len(listed["games"]) == 3


def test_a_player_keeps_one_token_for_every_table(api: TestClient[Any]) -> None:
    created = tournament(api)
    player = created["tokens"]["players"][4]
    me = api.get(f"/tournaments/{created['id']}/me", headers=auth(player["token"])).json()
    assert me["round"] == 0 and me["table"] is None
    pair(api, created)
    me = api.get(f"/tournaments/{created['id']}/me", headers=auth(player["token"])).json()
    assert me["name"] == "P4" and me["game_status"] == "active"
    game = api.get(f"/games/{me['game_id']}").json()
    assert game["seats"][me["seat"]]["name"] == "P4"
    legal = api.get(f"/games/{me['game_id']}/legal-moves", headers=auth(me["seat_token"]))
    assert legal.status_code == 200
    director = auth(created["tokens"]["director"])
    problem(api.get(f"/tournaments/{created['id']}/me", headers=director), 403, "forbidden")
    problem(api.get(f"/tournaments/{created['id']}/me"), 401, "unauthorized")
    # The director referees every table.
    body = {"kind": "penalty", "reason": "slow play", "seat": 0}
    reply = api.post(f"/games/{me['game_id']}/adjudicate", json=body, headers=director)
    assert reply.status_code == 200, reply.text


def test_the_next_round_waits_for_every_table_and_results_are_taken_from_the_games(
    api: TestClient[Any],
) -> None:
    created = tournament(api)
    director = auth(created["tokens"]["director"])
    path = f"/tournaments/{created['id']}/rounds"
    first = pair(api, created)
    busy = problem(api.post(path, json={}, headers=director), 409, "round-in-progress")
    assert busy["playing"] == [1, 2, 3]
    play_round(api, created, first["tables"][:2])
    problem(api.post(path, json={}, headers=director), 409, "round-in-progress")
    play_round(api, created, first["tables"][2:])
    shown = api.get(f"/tournaments/{created['id']}").json()
    assert shown["rounds"][0]["closed"] and shown["status"] == "active"
    for table in shown["rounds"][0]["tables"]:
        game = api.get(f"/games/{table['game_id']}").json()
        winners = [game["seats"][s]["name"] for s in game["winners"]]
        assert table["winners"] == winners and table["points"][winners[0]] == 3
    standings = api.get(f"/tournaments/{created['id']}/standings").json()["standings"]
    assert sum(row["wins"] for row in standings) == 3
    assert [row["points"] for row in standings] == sorted(
        (row["points"] for row in standings), reverse=True
    )
    second = pair(api, created)
    play_round(api, created, second["tables"])
    assert api.get(f"/tournaments/{created['id']}").json()["status"] == "finished"
    problem(api.post(path, json={}, headers=director), 409, "tournament-finished")


def test_withdrawn_players_are_paired_no_more_and_partners_pairs_teams_with_byes(
    api: TestClient[Any],
) -> None:
    created = tournament(api, players=12, ruleset="partners", options={}, rounds=2)
    players = created["tokens"]["players"]
    path = f"/tournaments/{created['id']}/withdrawals"
    own = api.post(path, json={"player": "P3", "reason": "ill"}, headers=auth(players[3]["token"]))
    assert own.status_code == 200, own.text
    assert [p["name"] for p in own.json()["players"] if p["withdrawn"]] == ["P2", "P3"]
    problem(
        api.post(path, json={"player": "P4"}, headers=auth(players[5]["token"])), 403, "forbidden"
    )
    problem(
        api.post(path, json={"player": "Zed"}, headers=auth(created["tokens"]["director"])),
        400,
        "validation-failed",
    )
    paired = pair(api, created)  # five teams left: two tables and a team sitting out
    teams = [{f"P{i}", f"P{i + 1}"} for i in range(0, 12, 2)]
    assert [len(t["seats"]) for t in paired["tables"]] == [4, 4]
    assert set(paired["byes"]) in teams
    for table in paired["tables"]:
        assert set(table["seats"][0::2]) in teams and set(table["seats"][1::2]) in teams
        assert not {"P2", "P3"} & set(table["seats"])
    me = api.get(f"/tournaments/{created['id']}/me", headers=auth(players[3]["token"])).json()
    assert me["withdrawn"] and me["table"] is None
    shown = api.get(f"/tournaments/{created['id']}").json()
    assert shown["teams"] is True
    four_teams = {  # a round-robin of four teams: three rounds by default
        "name": "Teams",
        "ruleset": "partners",
        "format": "round-robin",
        "players": [{"name": str(i)} for i in range(8)],
    }
    shown = api.get(f"/tournaments/{api.post('/tournaments', json=four_teams).json()['id']}")
    assert shown.json()["round_count"] == 3
    odd = {"name": "x", "ruleset": "partners", "players": [{"name": str(i)} for i in range(5)]}
    problem(api.post("/tournaments", json=odd), 422, "bad-setup")


def test_the_record_verifies_offline_with_every_game(api: TestClient[Any], tmp_path: Path) -> None:
    created = tournament(api, players=5, seats_per_table=3, rounds=1)
    path = f"/tournaments/{created['id']}/record"
    paired = pair(api, created)
    problem(api.get(path), 403, "forbidden")
    play_round(api, created, paired["tables"])
    record = api.get(path).json()
    assert record["format"] == "tabula-tournament-record"
    assert len(record["games"]) == len(paired["tables"]) == 2
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    verified = verify(good)
    assert verified.returncode == 0, verified.stdout
    assert "valid tournament (finished)" in verified.stdout
    assert verified.stdout.count(": valid: ") == 2
    # A game left out, and a result changed (its hash then no longer holds).
    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps(record | {"games": record["games"][:1]}))
    assert "its game record is missing" in verify(missing).stdout
    tampered = json.loads(json.dumps(record))
    finished = next(e for e in tampered["events"] if e["type"] == "TableFinished")
    table = next(t for t in paired["tables"] if t["table"] == finished["data"]["table"])
    loser = next(n for n in table["seats"] if n not in finished["data"]["winners"])
    finished["data"]["winners"] = [loser]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(tampered))
    broken = verify(bad)
    assert broken.returncode == 1 and "broken hash chain" in broken.stdout
    rechain(tampered["events"])  # a forger who also hashes again
    bad.write_text(json.dumps(tampered))
    forged = verify(bad)
    assert forged.returncode == 1 and "the tournament's result is not the game's" in forged.stdout


def test_a_record_naming_one_game_at_two_tables_is_refused(
    api: TestClient[Any], tmp_path: Path
) -> None:
    created = tournament(api, players=2, seats_per_table=2, rounds=2)
    for _ in range(2):
        play_round(api, created, pair(api, created)["tables"])
    record = api.get(f"/tournaments/{created['id']}/record").json()
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps(record | {"games": record["games"] + record["games"][:1]}))
    doubled = verify(twice)
    assert doubled.returncode == 1 and "its record is given 2 times" in doubled.stdout
    # A forger plays round 1's game again as round 2's and gives round 1 to its loser.
    events = record["events"]
    pairings = [e for e in events if e["type"] == "RoundPaired"]
    results = [e for e in events if e["type"] == "TableFinished"]
    first = pairings[0]["data"]["tables"][0]
    pairings[1]["data"]["tables"][0] = dict(first)
    results[1]["data"] = dict(results[0]["data"], round=2)
    loser = next(n for n in first["seats"] if n not in results[0]["data"]["winners"])
    results[0]["data"]["winners"] = [loser]
    record["games"] = [g for g in record["games"] if g["game_id"] == first["game_id"]]
    rechain(events)
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(record))
    refused = verify(forged)
    assert refused.returncode == 1, refused.stdout
    assert f"game {first['game_id']} is already" in refused.stdout


def rechain(events: list[dict[str, Any]]) -> None:
    """Hash every event again, so the chain holds over changed events."""
    previous = GENESIS
    for event in events:
        fields = {k: event[k] for k in ("version", "type", "data", "by", "at")}
        event["prev_hash"] = previous
        event["hash"] = previous = chain_hash(
            previous, fields | {"stream_id": event["tournament_id"]}
        )


def verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_restarted_service_reads_its_tournaments_and_lists_only_games(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    with TestClient(create_app(settings)) as api:
        created = tournament(api)
        pair(api, created)
    with TestClient(create_app(settings)) as api:
        shown = api.get(f"/tournaments/{created['id']}").json()
        assert len(shown["rounds"][0]["tables"]) == 3
        assert len(api.get("/games").json()["games"]) == 3
    assert "not summarised" not in capsys.readouterr().out


def test_tables_are_rated_and_delayed_as_the_tournament_says(api: TestClient[Any]) -> None:
    created = tournament(api, players=4, rated=False, spectator_delay={"moves": 3})
    shown = api.get(f"/tournaments/{created['id']}").json()
    assert shown["rated"] is False and shown["spectator_delay"] == {"moves": 3}
    table = pair(api, created)["tables"][0]
    listed = api.get("/games", params={"tag": f"tournament:{created['id']}"}).json()["games"]
    assert [game["rated"] for game in listed] == [False]
    tokens = {p["name"]: p["token"] for p in created["tokens"]["players"]}
    seat = auth(tokens[table["seats"][0]])
    for _ in range(4):  # race35: each roll plays itself
        state = api.get(f"/games/{table['game_id']}", headers=seat).json()
        pending = state["to_act"][0]["seat"]
        move = {"move": "roll"}
        mover = auth(tokens[table["seats"][pending]])
        assert api.post(f"/games/{table['game_id']}/moves", json=move, headers=mover).is_success
    live = api.get(f"/games/{table['game_id']}", headers=seat).json()["version"]
    assert api.get(f"/games/{table['game_id']}").json()["version"] < live
    both = {"seconds": 5, "moves": 5}
    body = {"name": "x", "ruleset": "race35", "players": [{"name": "A"}, {"name": "B"}]}
    found = problem(
        api.post("/tournaments", json=body | {"spectator_delay": both}), 400, "validation-failed"
    )
    assert found["pointer"] == "/spectator_delay"


def test_an_empty_delay_is_refused_as_a_game_refuses_it_never_dropped(
    api: TestClient[Any],
) -> None:
    body = {"name": "x", "ruleset": "race35", "players": [{"name": "A"}, {"name": "B"}]}
    found = problem(
        api.post("/tournaments", json=body | {"spectator_delay": {}}), 400, "validation-failed"
    )
    assert found["pointer"] == "/spectator_delay"
    assert "seconds" in found["detail"] and "moves" in found["detail"]
    assert api.get("/tournaments").json()["tournaments"] == []


def test_tournaments_are_listed_a_page_at_a_time_with_their_status_and_never_as_games(
    api: TestClient[Any],
) -> None:
    made = [tournament(api, players=4, name=f"Night {i}", rounds=1) for i in range(3)]
    pair(api, made[1])
    first = api.get("/tournaments?limit=2")
    assert first.status_code == 200, first.text
    page = first.json()
    assert [t["name"] for t in page["tournaments"]] == ["Night 0", "Night 1"]
    assert first.headers["link"] == f'<{page["next"]}>; rel="next"'
    rest = api.get(page["next"]).json()
    assert [t["id"] for t in rest["tournaments"]] == [made[2]["id"]] and rest["next"] is None
    listed = page["tournaments"][1]
    assert listed["status"] == "active" and listed["rounds_paired"] == 1
    assert (listed["players"], listed["seats_per_table"], listed["round_count"]) == (4, 4, 1)
    active = api.get("/tournaments?status=active").json()["tournaments"]
    assert [t["id"] for t in active] == [made[1]["id"]]
    play_round(api, made[1], pair_tables(api, made[1]))
    api.get(f"/tournaments/{made[1]['id']}")  # reading it records the results
    finished = api.get("/tournaments?status=finished").json()["tournaments"]
    assert [t["id"] for t in finished] == [made[1]["id"]]
    assert all(g["id"] not in {t["id"] for t in made} for g in api.get("/games").json()["games"])
    assert api.get("/standings").json()["standings"]  # the finished tournament is no game
    problem(api.get("/tournaments?status=over"), 400, "validation-failed")
    problem(api.get("/tournaments?cursor=nonsense"), 400, "validation-failed")


def test_tournaments_kept_before_their_summaries_are_listed_after_a_rebuild(
    api: TestClient[Any],
) -> None:
    created = tournament(api, players=4, rounds=1)
    store = api.app.state.queries.store
    store.drop_summaries()
    assert api.get("/tournaments").json()["tournaments"] == []
    summaries.fill(store)
    assert [t["id"] for t in api.get("/tournaments").json()["tournaments"]] == [created["id"]]

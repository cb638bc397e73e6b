"""Tournament refereeing: a round of tables, adjudication, results, standings, archives."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from tests.service.conftest import auth
from tests.service.games.test_undo import decide_once

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]


def table(ruleset: str, names: list[str], number: int, **extra: Any) -> dict[str, Any]:
    return {
        "ruleset": ruleset,
        "seats": [{"name": n} for n in names],
        "tags": {"event": "open", "round": "1", "table": str(number)},
        **extra,
    }


def round_of_four(api: TestClient[Any]) -> list[dict[str, Any]]:
    body = {
        "games": [table("sorry", NAMES[i : i + 2], i, auto_chance=True) for i in range(0, 8, 2)]
    }
    reply = api.post("/games/batch", json=body)
    assert reply.status_code == 201, reply.text
    created: list[dict[str, Any]] = reply.json()["games"]
    return created


def test_a_batch_creates_every_table_with_tokens_and_commitments(api: TestClient[Any]) -> None:
    created = round_of_four(api)
    assert len(created) == 4
    assert all(len(g["tokens"]["seats"]) == 2 and g["seed_commitment"] for g in created)
    listed = api.get("/games", params={"tag": "round:1"}).json()["games"]
    assert sorted(g["tags"]["table"] for g in listed) == ["0", "2", "4", "6"]


def test_a_batch_with_one_bad_table_creates_none(api: TestClient[Any]) -> None:
    body = {"games": [table("sorry", ["A", "B"], 1), table("sorry", ["A"], 2)]}
    reply = api.post("/games/batch", json=body)
    assert reply.status_code == 422
    assert reply.json()["detail"].startswith("table 1:")
    assert api.get("/games").json()["games"] == []


@pytest.mark.slow
def test_a_four_table_round_played_by_bots_to_standings(
    api: TestClient[Any], tmp_path: Path
) -> None:
    created = round_of_four(api)
    rng = random.Random(8)
    for game in created:
        while api.get(f"/games/{game['id']}").json()["status"] != "finished":
            decide_once(api, game, rng)
    results = api.get("/games", params={"tag": "round:1", "status": "finished"}).json()["games"]
    assert len(results) == 4 and all(len(r["winners"]) == 1 for r in results)
    standings = api.get("/standings", params={"tag": "round:1"}).json()["standings"]
    assert sorted(s["name"] for s in standings) == sorted(NAMES)
    assert sum(s["wins"] for s in standings) == 4
    assert [s["wins"] for s in standings] == sorted((s["wins"] for s in standings), reverse=True)
    winners = {w for r in results for w in r["winners"]}
    assert {s["name"] for s in standings[:4]} == winners
    for s in standings:
        if s["name"] in winners:
            assert s["pieces_home"] == 4
    archive = api.get("/archive", params={"tag": "round:1"}).json()
    assert len(archive["records"]) == 4
    path = tmp_path / "round1.json"
    path.write_text(json.dumps(archive))
    verified = subprocess.run(
        [sys.executable, "-m", "service", "verify", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert verified.returncode == 0, verified.stdout
    assert verified.stdout.count(": valid:") == 4


def test_results_as_ndjson(api: TestClient[Any]) -> None:
    round_of_four(api)
    reply = api.get("/games", params={"tag": "round:1", "format": "ndjson"})
    assert reply.headers["content-type"].startswith("application/x-ndjson")
    rows = [json.loads(line) for line in reply.text.splitlines()]
    assert len(rows) == 4 and {"winners", "pieces_home", "tags"} <= set(rows[0])
    negotiated = api.get("/games", headers={"Accept": "application/x-ndjson"})
    assert negotiated.text == reply.text


def test_ties_are_broken_by_pieces_home() -> None:
    from service.usecases.games.listings import standings
    from service.usecases.replies import GameSummary

    def game(winner: str, home: dict[str, int]) -> GameSummary:
        return GameSummary("g", "sorry", "finished", 9, list(home), "", {}, [winner], home)

    rows = standings(None, [game("A", {"A": 4, "B": 3}), game("C", {"C": 4, "D": 1})]).standings
    assert [(s.name, s.wins, s.pieces_home) for s in rows] == [
        ("A", 1, 4),
        ("C", 1, 4),
        ("B", 0, 3),
        ("D", 0, 1),
    ]


def test_adjudication_is_on_record_and_a_forfeit_ends_the_game(api: TestClient[Any]) -> None:
    game = api.post("/games", json=table("sorry", ["Ann", "Bob", "Cat"], 1)).json()
    path, referee = f"/games/{game['id']}/adjudicate", auth(game["tokens"]["referee"])
    seat = auth(game["tokens"]["seats"][0])
    assert api.post(path, json={"kind": "penalty", "reason": "x"}, headers=seat).status_code == 403
    penalty = api.post(
        path, json={"kind": "penalty", "seat": 1, "reason": "slow play"}, headers=referee
    )
    assert penalty.status_code == 200
    assert penalty.json()["state"]["status"] == "active"
    forfeit = api.post(path, json={"kind": "forfeit", "seat": 2, "reason": "left"}, headers=referee)
    assert forfeit.status_code == 200
    assert forfeit.json()["state"]["winners"] == [0, 1]
    types = [e["type"] for e in forfeit.json()["events"]]
    assert types == ["Adjudicated", "GameFinished", "SeedRevealed"]
    audit = api.get(f"/games/{game['id']}/audit").json()
    assert audit["verification"]["valid"]
    assert any(
        e["type"] == "Adjudicated" and e["data"]["reason"] == "slow play" for e in audit["events"]
    )
    again = api.post(path, json={"kind": "penalty", "reason": "late"}, headers=referee)
    assert again.status_code == 409


def test_an_agreement_names_its_winners(api: TestClient[Any]) -> None:
    game = api.post("/games", json=table("ludo", ["Ann", "Bob"], 1)).json()
    path, referee = f"/games/{game['id']}/adjudicate", auth(game["tokens"]["referee"])
    assert (
        api.post(path, json={"kind": "agreement", "reason": "draw"}, headers=referee).status_code
        == 400
    )
    ended = api.post(
        path, json={"kind": "agreement", "reason": "draw", "winners": []}, headers=referee
    )
    assert ended.status_code == 200
    assert ended.json()["state"]["status"] == "finished"
    assert (
        api.post(
            path, json={"kind": "forfeit", "seat": 5, "reason": "x"}, headers=referee
        ).status_code
        == 409
    )

"""Export, import, audit and offline verify: a record replays to the same game or names its
first bad event."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from eventstore import GENESIS, chain_hash
from tests.service.conftest import auth, create

SAME = ("pieces", "to_act", "chance", "winners", "status")


def finished_record(api: TestClient[Any], ruleset: str = "sorry") -> tuple[dict[str, Any], Any]:
    created = create(api, ruleset, players=2, auto_chance=True, seed="record")
    import random

    from tests.service.games.test_undo import decide_once

    rng = random.Random(4)
    while api.get(f"/games/{created['id']}").json()["status"] != "finished":
        decide_once(api, created, rng)
    return created, api.get(f"/games/{created['id']}/export").json()


def rehash(record: dict[str, Any]) -> dict[str, Any]:
    """Recompute the whole chain, as a forger would after editing an event."""
    prev = GENESIS
    for event in record["events"]:
        fields = {k: event[k] for k in ("version", "type", "data", "by", "at")}
        event["prev_hash"] = prev
        event["hash"] = prev = chain_hash(prev, {"stream_id": record["game_id"], **fields})
    return record


def import_problem(api: TestClient[Any], record: dict[str, Any]) -> dict[str, Any]:
    reply = api.post("/games/import", json=record)
    assert reply.status_code == 422, reply.text
    assert reply.json()["type"].endswith("/invalid-record")
    return dict(reply.json())


@pytest.mark.parametrize("ruleset", ["race35", "sorry", "parchis", "parchis-2dice", "ludo"])
def test_export_then_import_gives_the_same_state(api: TestClient[Any], ruleset: str) -> None:
    created, record = finished_record(api, ruleset)
    assert record["format"] == "tabula-game-record" and record["format_version"] == 1
    assert record["seed"] and record["seed_commitment"] == created["seed_commitment"]
    reply = api.post("/games/import", json=record)
    assert reply.status_code == 201, reply.text
    imported = reply.json()
    original = api.get(f"/games/{created['id']}").json()
    copy_ = api.get(f"/games/{imported['id']}").json()
    assert {k: copy_[k] for k in SAME} == {k: original[k] for k in SAME}
    assert imported["version"] == original["version"]


def test_import_names_a_broken_hash_chain(api: TestClient[Any]) -> None:
    _, record = finished_record(api)
    record["events"][7]["data"] = {**record["events"][7]["data"], "seat": 1}
    problem = import_problem(api, record)
    assert problem["first_bad_event"] == 8
    assert "hash chain" in problem["detail"]


def test_import_names_a_seed_that_does_not_match_its_commitment(api: TestClient[Any]) -> None:
    _, record = finished_record(api)
    record["seed"] = "not the seed"
    assert "commitment" in import_problem(api, record)["detail"]


def test_import_names_a_draw_the_seed_did_not_make(api: TestClient[Any]) -> None:
    _, record = finished_record(api)
    draw = next(e for e in record["events"] if e["type"] == "CardDrawn")
    draw["data"]["card"] = "sorry" if draw["data"]["card"] != "sorry" else "1"
    problem = import_problem(api, rehash(record))
    assert problem["first_bad_event"] == draw["version"]
    assert "seed" in problem["detail"]


def test_import_names_an_illegal_move(api: TestClient[Any]) -> None:
    _, record = finished_record(api)
    move = next(e for e in record["events"] if e["type"] == "MovePlayed")
    move["data"]["steps"] = [{"piece": "red-1", "from": "start", "to": "home"}]
    problem = import_problem(api, rehash(record))
    assert problem["first_bad_event"] == move["version"]
    assert "illegal move" in problem["detail"] or "expected" in problem["detail"]


def test_audit_is_the_referees_while_running_and_public_once_finished(api: TestClient[Any]) -> None:
    running = create(api, "sorry", players=2)
    path = f"/games/{running['id']}/audit"
    assert api.get(path).status_code == 403
    assert api.get(path, headers=auth(running["tokens"]["seats"][0])).status_code == 403
    referee = api.get(path, headers=auth(running["tokens"]["referee"])).json()
    assert referee["verification"]["valid"] and referee["verification"]["chance_checked"]
    assert referee["seed"] is None
    assert api.get(f"/games/{running['id']}/export").status_code == 403
    created, _ = finished_record(api)
    public = api.get(f"/games/{created['id']}/audit").json()
    assert public["verification"]["valid"] and public["verification"]["finished"]
    assert all({"by", "at", "hash"} <= set(e) for e in public["events"])


def test_verify_command_checks_a_record_offline(api: TestClient[Any], tmp_path: Path) -> None:
    _, record = finished_record(api)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    bad_record = copy.deepcopy(record)
    bad_record["events"][3]["by"] = "referee"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_record))
    run = [sys.executable, "-m", "service", "verify"]
    ok = subprocess.run([*run, str(good)], capture_output=True, text=True, check=False)
    assert ok.returncode == 0 and "valid" in ok.stdout
    failed = subprocess.run([*run, str(bad)], capture_output=True, text=True, check=False)
    assert failed.returncode == 1
    assert "INVALID at event 4" in failed.stdout


def test_external_chance_is_posted_by_the_referee_and_validated(api: TestClient[Any]) -> None:
    created = create(api, "parchis", players=2, chance="external")
    game, referee = created["id"], auth(created["tokens"]["referee"])
    seat = auth(created["tokens"]["seats"][0])
    waiting = api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=seat)
    assert waiting.status_code == 409 and waiting.json()["type"].endswith("/waiting-for-chance")
    assert api.post(f"/games/{game}/chance", json={"dice": [4]}, headers=seat).status_code == 403
    for body in ({"dice": [7]}, {"dice": [1, 2]}, {"card": "7"}):
        reply = api.post(f"/games/{game}/chance", json=body, headers=referee)
        assert reply.status_code in (400, 422), body
    reply = api.post(f"/games/{game}/chance", json={"dice": [5]}, headers=referee)
    assert reply.status_code == 200, reply.text
    assert reply.json()["state"]["chance"] == {"dice": [5]}
    assert reply.json()["events"][0]["by"] == "referee"


def test_external_cards_must_still_be_in_the_draw_pile(api: TestClient[Any]) -> None:
    created = create(api, "sorry", players=2, chance="external")
    game, referee = created["id"], auth(created["tokens"]["referee"])
    reply = api.post(f"/games/{game}/chance", json={"card": "6"}, headers=referee)
    assert reply.status_code == 422
    assert "one of" in reply.json()["detail"]
    assert api.post(f"/games/{game}/chance", json={"card": "1"}, headers=referee).status_code == 200

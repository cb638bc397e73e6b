"""The HTTP API end to end: create, read, play to the end, replay, events."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from litestar.testing import TestClient

from eventstore import verify_chain
from tests.service.conftest import auth, create, play_to_end
from tests.service.logcheck import read_log
from tests.service.logcheck import stored as stored_events


def test_health_and_rulesets(api: TestClient[Any]) -> None:
    assert api.get("/health").json() == {"status": "ok"}
    rulesets = {r["name"]: r for r in api.get("/rulesets").json()["rulesets"]}
    assert rulesets["race35"]["options"]["red_square_effect"] == "restart_game"
    assert rulesets["race35"]["min_players"] == 2


def test_create_returns_tokens_once_and_a_seed_commitment(api: TestClient[Any]) -> None:
    created = create(api, players=3)
    assert created["version"] >= 1
    assert len(created["tokens"]["seats"]) == 3
    assert len({created["tokens"]["referee"], *created["tokens"]["seats"]}) == 4
    state = api.get(f"/games/{created['id']}").json()
    assert state["seed_commitment"] == created["seed_commitment"]
    assert state["seed"] is None
    assert created["tokens"]["referee"] not in str(state)
    assert [p["at"] for p in state["pieces"]] == ["track:1"] * 3
    assert state["to_act"] == [{"seat": 0, "kind": "roll"}]


def test_a_whole_game_ends_with_a_winner_and_reveals_the_seed(api: TestClient[Any]) -> None:
    created = create(api, players=3)
    final = play_to_end(api, created)
    assert len(final["winners"]) == 1
    assert hashlib.sha256(final["seed"].encode()).hexdigest() == created["seed_commitment"]
    tail = {"after": final["version"] - 2}
    events = api.get(f"/games/{created['id']}/events", params=tail).json()["events"]
    assert [e["type"] for e in events] == ["GameFinished", "SeedRevealed"]


def test_the_event_log_is_a_verified_hash_chain(api: TestClient[Any]) -> None:
    created = create(api, auto_chance=True)
    play_to_end(api, created)
    events = read_log(api, created["id"])
    stored = stored_events(events)
    assert verify_chain(stored) is None


def test_auto_chance_resolves_throws_without_waiting(api: TestClient[Any]) -> None:
    created = create(api, players=2, auto_chance=True)
    state = api.get(f"/games/{created['id']}").json()
    assert state["status"] == "finished"
    assert state["winners"]


def test_server_chance_is_the_seeded_function_of_the_outcome_count(api: TestClient[Any]) -> None:
    first = create(api, players=2, seed="same seed", auto_chance=True)
    second = create(api, players=2, seed="same seed", auto_chance=True)
    events = [
        [(e["type"], e["data"]) for e in api.get(f"/games/{g['id']}/events").json()["events"][1:]]
        for g in (first, second)
    ]
    assert events[0] == events[1]


def test_events_page_after_and_limit(api: TestClient[Any]) -> None:
    created = create(api, auto_chance=True)
    page = api.get(f"/games/{created['id']}/events", params={"after": 2, "limit": 3}).json()
    assert [e["version"] for e in page["events"]] == [3, 4, 5]
    assert page["version"] >= 5


def test_list_games_filters_by_status_ruleset_and_tag(api: TestClient[Any]) -> None:
    done = create(api, auto_chance=True, tags={"round": "1"})
    live = create(api, tags={"round": "2"})
    listed = {g["id"]: g for g in api.get("/games").json()["games"]}
    assert listed[done["id"]]["status"] == "finished"
    assert listed[live["id"]]["status"] == "active"
    active = api.get("/games", params={"status": "active"}).json()["games"]
    assert [g["id"] for g in active] == [live["id"]]
    tagged = api.get("/games", params={"tag": "round:1"}).json()["games"]
    assert [g["id"] for g in tagged] == [done["id"]]
    assert api.get("/games", params={"ruleset": "sorry"}).json()["games"] == []


def test_play_by_steps_instead_of_id(api: TestClient[Any]) -> None:
    created = create(api, players=2)
    token = created["tokens"]["seats"][0]
    reply = api.post(f"/games/{created['id']}/moves", json={"move": "roll"}, headers=auth(token))
    assert reply.status_code == 200
    assert reply.json()["events"][0]["type"] == "DiceRolled"
    assert reply.json()["state"]["to_act"] == [{"seat": 1, "kind": "roll"}]


@pytest.mark.parametrize("ruleset", ["race35", "sorry-hand"])
def test_a_moves_reply_carries_the_callers_next_legal_moves(
    api: TestClient[Any], ruleset: str
) -> None:
    created = create(api, ruleset, players=2)
    game = created["id"]
    for token in [created["tokens"]["seats"][0], created["tokens"]["referee"]] * 6:
        moves = api.get(f"/games/{game}/legal-moves", headers=auth(token)).json()["moves"]
        if not moves:
            continue
        reply = api.post(
            f"/games/{game}/moves",
            json={"move": moves[0]["id"], "seat": moves[0]["seat"]},
            headers=auth(token),
        )
        assert reply.status_code == 200, reply.text
        now = api.get(f"/games/{game}/legal-moves", headers=auth(token)).json()
        assert reply.json()["legal_moves"] == now["moves"]
        assert reply.json()["version"] == now["version"]


def test_idempotency_key_retry_appends_nothing_twice(api: TestClient[Any]) -> None:
    created = create(api, players=2)
    game, token = created["id"], created["tokens"]["seats"][0]
    headers = {**auth(token), "Idempotency-Key": "move-1"}
    first = api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=headers)
    again = api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.json()["events"] == first.json()["events"]
    assert api.get(f"/games/{game}").json()["version"] == first.json()["version"]


def test_referee_sees_all_pending_moves_and_may_play_them(api: TestClient[Any]) -> None:
    created = create(api, players=2)
    game, referee = created["id"], created["tokens"]["referee"]
    moves = api.get(f"/games/{game}/legal-moves", headers=auth(referee)).json()["moves"]
    assert [(m["id"], m["seat"]) for m in moves] == [("roll", 0)]
    reply = api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=auth(referee))
    assert reply.status_code == 200
    assert reply.json()["events"][0]["data"]["seat"] == 0

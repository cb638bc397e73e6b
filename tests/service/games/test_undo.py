"""Undo: the latest decision and what followed it are reverted; chance never changes."""

from __future__ import annotations

import random
from typing import Any

import pytest
from litestar.testing import TestClient

from tests.service.conftest import auth, create

DECIDING = ["sorry", "parchis", "parchis-2dice", "ludo"]
SAME = ("pieces", "to_act", "chance", "winners", "status")


def decide_once(
    api: TestClient[Any], created: dict[str, Any], rng: random.Random
) -> dict[str, Any]:
    """Play one random legal decision of the seat to act; the reply."""
    game = created["id"]
    state = api.get(f"/games/{game}").json()
    seat = state["to_act"][0]["seat"]
    token = auth(created["tokens"]["seats"][seat])
    moves = api.get(f"/games/{game}/legal-moves", headers=token).json()["moves"]
    reply = api.post(f"/games/{game}/moves", json={"move": rng.choice(moves)["id"]}, headers=token)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def undo(api: TestClient[Any], created: dict[str, Any], token: str | None = None) -> Any:
    headers = auth(token or created["tokens"]["referee"])
    return api.post(f"/games/{created['id']}/undo", json={"reason": "misclick"}, headers=headers)


def seen(state: dict[str, Any]) -> dict[str, Any]:
    return {key: state.get(key) for key in SAME}


@pytest.mark.parametrize("ruleset", DECIDING)
def test_undo_restores_the_state_before_the_decision_with_the_same_chance(
    api: TestClient[Any], ruleset: str
) -> None:
    created = create(api, ruleset, players=2, auto_chance=True, seed="undo")
    rng = random.Random(7)
    for _ in range(6):
        decide_once(api, created, rng)
    before = api.get(f"/games/{created['id']}").json()
    played = decide_once(api, created, rng)
    reply = undo(api, created)
    assert reply.status_code == 200, reply.text
    assert reply.json()["events"][0]["type"] == "MoveUndone"
    assert reply.json()["events"][0]["data"]["reverts"] == played["events"][0]["version"]
    assert seen(reply.json()["state"]) == seen(before)


@pytest.mark.parametrize("ruleset", DECIDING)
def test_undo_after_undo_goes_one_more_decision_back(api: TestClient[Any], ruleset: str) -> None:
    created = create(api, ruleset, players=2, auto_chance=True, seed="twice")
    rng = random.Random(3)
    for _ in range(4):
        decide_once(api, created, rng)
    first = api.get(f"/games/{created['id']}").json()
    decide_once(api, created, rng)
    decide_once(api, created, rng)
    assert undo(api, created).status_code == 200
    second = undo(api, created)
    assert second.status_code == 200
    assert seen(second.json()["state"]) == seen(first)


@pytest.mark.parametrize("ruleset", DECIDING)
def test_chance_after_an_undone_decision_comes_out_again_in_the_same_order(
    api: TestClient[Any], ruleset: str
) -> None:
    created = create(api, ruleset, players=2, auto_chance=True, seed="same order")
    rng = random.Random(5)
    for _ in range(3):
        decide_once(api, created, rng)
    state = api.get(f"/games/{created['id']}").json()
    seat = state["to_act"][0]["seat"]
    token = auth(created["tokens"]["seats"][seat])
    move = api.get(f"/games/{created['id']}/legal-moves", headers=token).json()["moves"][0]["id"]
    first = api.post(f"/games/{created['id']}/moves", json={"move": move}, headers=token).json()
    assert undo(api, created).status_code == 200
    again = api.post(f"/games/{created['id']}/moves", json={"move": move}, headers=token).json()
    outcomes = [[(e["type"], e["data"]) for e in r["events"]] for r in (first, again)]
    assert outcomes[0] == outcomes[1]


def test_undo_across_a_reshuffle(api: TestClient[Any]) -> None:
    created = create(api, "sorry", players=2, auto_chance=True, seed="reshuffle")
    rng = random.Random(11)
    for _ in range(400):
        before = api.get(f"/games/{created['id']}").json()
        reply = decide_once(api, created, rng)
        if any(e["type"] == "DeckShuffled" for e in reply["events"]):
            break
    else:
        pytest.fail("no reshuffle within 400 decisions")
    undone = undo(api, created)
    assert undone.status_code == 200
    assert seen(undone.json()["state"]) == seen(before)
    assert undone.json()["state"]["draw_pile"] == before["draw_pile"]


@pytest.mark.parametrize("ruleset", DECIDING)
def test_undo_of_a_finished_games_last_move_reopens_it(api: TestClient[Any], ruleset: str) -> None:
    created = create(api, ruleset, players=2, auto_chance=True, seed="finish")
    rng = random.Random(1)
    while True:
        before = api.get(f"/games/{created['id']}").json()
        if decide_once(api, created, rng)["state"]["status"] == "finished":
            break
    reply = undo(api, created)
    assert reply.status_code == 200
    assert reply.json()["state"]["status"] == "active"
    assert seen(reply.json()["state"]) == seen(before)
    listed = {g["id"]: g["status"] for g in api.get("/games").json()["games"]}
    assert listed[created["id"]] == "active"


def test_nothing_to_undo_is_409(api: TestClient[Any]) -> None:
    created = create(api, "sorry", players=2)
    reply = undo(api, created)
    assert reply.status_code == 409
    assert reply.json()["type"].endswith("/nothing-to-undo")
    race = create(api, "race35", players=2, auto_chance=True)
    assert undo(api, race).status_code == 409


def play_own_decision(api: TestClient[Any], created: dict[str, Any]) -> int:
    """Draw (where a draw is due) and play the first move for the seat to act; that seat."""
    game, seats = created["id"], created["tokens"]["seats"]
    while True:
        seat = api.get(f"/games/{game}").json()["to_act"][0]["seat"]
        moves = api.get(f"/games/{game}/legal-moves", headers=auth(seats[seat])).json()["moves"]
        body = {"move": moves[0]["id"]}
        reply = api.post(f"/games/{game}/moves", json=body, headers=auth(seats[seat]))
        assert reply.status_code == 200, reply.text
        if moves[0]["id"] != "draw":
            return seat


def test_a_seat_may_undo_its_own_last_decision_only_where_allowed(api: TestClient[Any]) -> None:
    strict = create(api, "sorry", players=2, seed="s")
    seat = play_own_decision(api, strict)
    reply = undo(api, strict, strict["tokens"]["seats"][seat])
    assert reply.status_code == 403
    assert "referee only" in reply.json()["detail"]

    relaxed = create(api, "sorry", players=2, seed="s", allow_undo=True)
    seat = play_own_decision(api, relaxed)
    assert undo(api, relaxed, relaxed["tokens"]["seats"][1 - seat]).status_code == 403
    reply = undo(api, relaxed, relaxed["tokens"]["seats"][seat])
    assert reply.status_code == 200, reply.text
    assert reply.json()["events"][0]["by"] == seat


def test_undo_cannot_peek_a_seat_cannot_undo_once_a_new_card_is_out(api: TestClient[Any]) -> None:
    # auto_chance draws the next seat's card at once: undoing now would show it and put it back
    created = create(api, "sorry", players=2, seed="peek", allow_undo=True, auto_chance=True)
    game = created["id"]
    seat = api.get(f"/games/{game}").json()["to_act"][0]["seat"]
    while True:
        reply = decide_once(api, created, random.Random(3))
        if any(e["type"] == "CardDrawn" for e in reply["events"]):
            break
        seat = api.get(f"/games/{game}").json()["to_act"][0]["seat"]
    refused = undo(api, created, created["tokens"]["seats"][seat])
    assert refused.status_code == 403
    assert "come out" in refused.json()["detail"]
    assert undo(api, created).status_code == 200  # the referee still may


def test_a_seat_cannot_undo_a_decision_the_referee_made_for_it(api: TestClient[Any]) -> None:
    created = create(api, "sorry", players=2, seed="for-it", allow_undo=True)
    game, referee = created["id"], created["tokens"]["referee"]
    acted: dict[str, Any] = {}
    while acted.get("type") != "MovePlayed":  # draws, then a move, by the referee for the seat
        seat = api.get(f"/games/{game}").json()["to_act"][0]["seat"]
        moves = api.get(f"/games/{game}/legal-moves", headers=auth(referee)).json()["moves"]
        body = {"move": moves[0]["id"]}
        reply = api.post(f"/games/{game}/moves", json=body, headers=auth(referee))
        assert reply.status_code == 200, reply.text
        acted = reply.json()["events"][0]
        assert acted["by"] == "referee"
        assert acted["data"]["seat"] == seat
    refused = undo(api, created, created["tokens"]["seats"][seat])
    assert refused.status_code == 403
    assert "the referee" in refused.json()["detail"]
    audit = api.get(f"/games/{game}/audit", headers=auth(referee)).json()
    assert {e["by"] for e in audit["events"]} <= {"referee", "server"}
    assert audit["verification"]["valid"], audit["verification"]


def test_a_seat_cannot_undo_once_another_has_acted(api: TestClient[Any]) -> None:
    created = create(api, "sorry", players=2, seed="acted", allow_undo=True)
    game, seats = created["id"], created["tokens"]["seats"]
    rng = random.Random(2)
    while True:
        state = api.get(f"/games/{game}").json()
        seat = state["to_act"][0]["seat"]
        moves = api.get(f"/games/{game}/legal-moves", headers=auth(seats[seat])).json()["moves"]
        api.post(
            f"/games/{game}/moves",
            json={"move": rng.choice(moves)["id"]},
            headers=auth(seats[seat]),
        )
        after = api.get(f"/games/{game}").json()
        if moves[0]["id"] != "draw" and after["to_act"][0]["seat"] != seat:
            break
    nxt = after["to_act"][0]["seat"]
    api.post(f"/games/{game}/moves", json={"move": "draw"}, headers=auth(seats[nxt]))
    reply = undo(api, created, seats[seat])
    assert reply.status_code == 403
    assert "acted since" in reply.json()["detail"]

"""Sorry-hand's reshuffle as the service records it (rules/sorry-hand.md section 4 step 5 and
tricky case 10): when the pile is empty as a seat must draw after playing, the state shows the
empty pile and every discard (the card just played included) until that draw, which shuffles
them into a new pile first, ``DeckShuffled`` just before its ``CardDrawn``, by whoever draws.
Games recorded under version 1 (the reshuffle with the play) still replay as recorded."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from domain import sorry_hand
from tests.service.conftest import auth, create
from tests.service.games.test_records import import_problem, rehash

REFERENCE = Path(__file__).parents[2] / "reference"
DECK = Counter(sorry_hand.DECK)
PLAYERS = 2
DEALT = sorry_hand.HAND * PLAYERS


def pile_of(state: dict[str, Any]) -> list[str]:
    """The cards left to draw, from the referee's view: the deck less the hands and discards."""
    held = Counter(card for hand in state["hands"] for card in hand["cards"])
    return sorted((DECK - held - Counter(state["discard"])).elements())


def events_since(api: TestClient[Any], game: str, version: int) -> list[dict[str, Any]]:
    page = api.get(f"/games/{game}/events", params={"after": version, "limit": 1000}).json()
    events: list[dict[str, Any]] = page["events"]
    return events


def play_until_a_draw_finds_the_pile_empty(
    api: TestClient[Any], created: dict[str, Any], external: bool
) -> dict[str, Any]:
    """Play each seat's first legal move (the referee dealing and posting the first cards of
    the pile) until a seat must draw from an empty pile; the referee's view then."""
    game, referee = created["id"], auth(created["tokens"]["referee"])
    for _ in range(500):
        state: dict[str, Any] = api.get(f"/games/{game}", headers=referee).json()
        assert state["status"] == "active"
        pending = state["to_act"][0]
        if pending["kind"] == "draw" and state["draw_pile"] == 0:
            return state
        if pending["kind"] in ("deal", "draw") and external:
            pile = pile_of(state)
            body: dict[str, Any] = {"expected_version": state["version"]}
            if pending["kind"] == "deal":
                body["hands"] = [pile[seat::PLAYERS][: sorry_hand.HAND] for seat in range(PLAYERS)]
            else:
                body["card"] = pile[0]
            reply = api.post(f"/games/{game}/chance", json=body, headers=referee)
        else:
            seat = auth(created["tokens"]["seats"][pending["seat"]])
            moves = api.get(f"/games/{game}/legal-moves", headers=seat).json()
            body = {"move": moves["moves"][0]["id"], "expected_version": state["version"]}
            reply = api.post(f"/games/{game}/moves", json=body, headers=seat)
        assert reply.status_code == 200, reply.text
    raise AssertionError("the draw pile never ran out")


@pytest.mark.parametrize("external", [True, False], ids=["external-chance", "server-chance"])
def test_case_10_the_pile_is_empty_when_a_seat_must_draw_after_playing(
    api: TestClient[Any], external: bool
) -> None:
    created = create(
        api, "sorry-hand", players=PLAYERS, chance="external" if external else "server"
    )
    game, referee = created["id"], auth(created["tokens"]["referee"])
    state = play_until_a_draw_finds_the_pile_empty(api, created, external)
    seat = state["to_act"][0]["seat"]
    played = events_since(api, game, state["version"] - 1)
    assert [event["type"] for event in played] == ["MovePlayed"]
    for viewer in (None, *created["tokens"]["seats"]):
        shown = api.get(f"/games/{game}", headers=auth(viewer) if viewer else {}).json()
        assert shown["to_act"] == [{"seat": seat, "kind": "draw"}]
        assert shown["draw_pile"] == 0
        assert len(shown["discard"]) == DECK.total() - DEALT + 1  # the drawer holds 4
        assert shown["discard"][-1] == played[0]["data"]["uses"]  # the card just played
    kinds = [event["type"] for event in events_since(api, game, 1)]
    assert "DeckShuffled" not in kinds
    if external:
        body = {"card": state["discard"][0], "expected_version": state["version"]}
        reply = api.post(f"/games/{game}/chance", json=body, headers=referee)
    else:
        body = {"move": "draw", "expected_version": state["version"]}
        drawer = auth(created["tokens"]["seats"][seat])
        reply = api.post(f"/games/{game}/moves", json=body, headers=drawer)
    assert reply.status_code == 200, reply.text
    by = "referee" if external else seat
    after = events_since(api, game, state["version"])
    assert [(e["type"], e["by"]) for e in after[:2]] == [("DeckShuffled", by), ("CardDrawn", by)]
    assert after[0]["data"] == {"cards": len(state["discard"])}
    shown = api.get(f"/games/{game}").json()
    assert (shown["draw_pile"], shown["discard"]) == (len(state["discard"]) - 1, [])
    audit = api.get(f"/games/{game}/audit", headers=referee).json()
    assert audit["verification"]["valid"], audit["verification"]


def test_a_version_1_record_replays_as_recorded_and_not_as_version_2(api: TestClient[Any]) -> None:
    record = json.loads((REFERENCE / "sorry-hand-1.record.json").read_text())
    assert "ruleset_version" not in record["events"][0]["data"]
    types = [event["type"] for event in record["events"]]
    at = types.index("DeckShuffled")
    assert types[at - 1] == "MovePlayed"  # version 1: with the play, before the draw
    assert record["events"][at]["at"] == record["events"][at - 1]["at"]
    reply = api.post("/games/import", json=record)
    assert reply.status_code == 201, reply.text
    record["ruleset_version"] = 2
    record["events"][0]["data"]["ruleset_version"] = 2
    problem = import_problem(api, rehash(record))
    assert problem["first_bad_event"] == record["events"][at]["version"]

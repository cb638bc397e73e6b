"""Sorry!'s reshuffle as the service records it (rules/sorry.md section 4, step 1): the state
after the move that used the last card shows the empty pile and every discard; the next draw
shuffles them back first, ``DeckShuffled`` just before its ``CardDrawn``, by whoever draws.
Games recorded under version 1 (the reshuffle with that move) still replay as recorded."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from domain import sorry
from tests.service.conftest import auth, create
from tests.service.games.test_records import import_problem, rehash

REFERENCE = Path(__file__).parents[2] / "reference"
DECK = Counter(sorry.DECKS["standard45"])


def pile_of(state: dict[str, Any]) -> list[str]:
    """The cards left to draw: the deck less the discards and the card held."""
    held = Counter([state["chance"]["card"]] if state["chance"] else [])
    return sorted((DECK - Counter(state["discard"]) - held).elements())


def events_since(api: TestClient[Any], game: str, version: int) -> list[tuple[str, Any]]:
    page = api.get(f"/games/{game}/events", params={"after": version}).json()
    return [(event["type"], event["by"]) for event in page["events"]]


def play_until_the_pile_is_empty(
    api: TestClient[Any], created: dict[str, Any], external: bool
) -> dict[str, Any]:
    """Play the first legal move (the referee posting the first card of the pile) until a draw
    is due on an empty pile; that state."""
    game, referee = created["id"], auth(created["tokens"]["referee"])
    for _ in range(500):
        state: dict[str, Any] = api.get(f"/games/{game}").json()
        assert state["status"] == "active"
        pending = state["to_act"][0]
        if pending["kind"] == "draw" and state["draw_pile"] == 0:
            return state
        if pending["kind"] == "draw" and external:
            body = {"card": pile_of(state)[0], "expected_version": state["version"]}
            reply = api.post(f"/games/{game}/chance", json=body, headers=referee)
        else:
            seat = auth(created["tokens"]["seats"][pending["seat"]])
            moves = api.get(f"/games/{game}/legal-moves", headers=seat).json()
            body = {"move": moves["moves"][0]["id"], "expected_version": state["version"]}
            reply = api.post(f"/games/{game}/moves", json=body, headers=seat)
        assert reply.status_code == 200, reply.text
    raise AssertionError("the draw pile never ran out")


@pytest.mark.parametrize("external", [True, False], ids=["external-chance", "server-chance"])
def test_rule_4_1_discards_reshuffled_at_the_next_draw_that_finds_the_pile_empty(
    api: TestClient[Any], external: bool
) -> None:
    created = create(api, "sorry", players=4, chance="external" if external else "server")
    game, referee = created["id"], auth(created["tokens"]["referee"])
    state = play_until_the_pile_is_empty(api, created, external)
    assert (state["draw_pile"], len(state["discard"])) == (0, 45)
    drawn = [t for t, _ in events_since(api, game, 1)]
    assert drawn.count("CardDrawn") == 45 and "DeckShuffled" not in drawn
    seat = state["to_act"][0]["seat"]
    if external:
        body = {"card": "sorry", "expected_version": state["version"]}
        reply = api.post(f"/games/{game}/chance", json=body, headers=referee)
    else:
        body = {"move": "draw", "expected_version": state["version"]}
        reply = api.post(
            f"/games/{game}/moves", json=body, headers=auth(created["tokens"]["seats"][seat])
        )
    assert reply.status_code == 200, reply.text
    by = "referee" if external else seat
    after = events_since(api, game, state["version"])
    assert after[:2] == [("DeckShuffled", by), ("CardDrawn", by)]
    state = api.get(f"/games/{game}").json()
    assert (state["draw_pile"], state["discard"]) == (44, [])
    audit = api.get(f"/games/{game}/audit", headers=referee).json()
    assert audit["verification"]["valid"], audit["verification"]


def test_with_auto_chance_the_reshuffle_comes_with_the_servers_draw(api: TestClient[Any]) -> None:
    created = create(api, "sorry", players=2, auto_chance=True)
    game, referee = created["id"], auth(created["tokens"]["referee"])
    seats = created["tokens"]["seats"]
    for _ in range(500):
        log = api.get(f"/games/{game}/events", params={"limit": 1000}).json()["events"]
        types = [event["type"] for event in log]
        if "DeckShuffled" in types:
            break
        state = api.get(f"/games/{game}").json()
        seat = auth(seats[state["to_act"][0]["seat"]])
        moves = api.get(f"/games/{game}/legal-moves", headers=seat).json()
        body = {"move": moves["moves"][0]["id"], "expected_version": state["version"]}
        assert api.post(f"/games/{game}/moves", json=body, headers=seat).status_code == 200
    at = types.index("DeckShuffled")
    assert (log[at]["by"], types[at + 1], log[at + 1]["by"]) == ("server", "CardDrawn", "server")
    assert types[:at].count("CardDrawn") == 45
    assert api.get(f"/games/{game}/audit", headers=referee).json()["verification"]["valid"]


def test_a_version_1_record_replays_as_recorded_and_not_as_version_2(api: TestClient[Any]) -> None:
    record = json.loads((REFERENCE / "sorry-1.record.json").read_text())
    assert "ruleset_version" not in record["events"][0]["data"]
    types = [event["type"] for event in record["events"]]
    at = types.index("DeckShuffled")
    assert types[at - 1] != "CardDrawn"  # version 1: with the move, before the next draw
    reply = api.post("/games/import", json=record)
    assert reply.status_code == 201, reply.text
    record["ruleset_version"] = 2
    record["events"][0]["data"]["ruleset_version"] = 2
    problem = import_problem(api, rehash(record))
    assert problem["first_bad_event"] == record["events"][at]["version"]

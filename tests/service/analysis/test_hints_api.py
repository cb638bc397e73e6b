"""``GET /games/{id}/hints``: only a seat's own, only in games created with ``allow_hints``
(never rated, never a tournament's), recorded in the log once per position, judged from what
the seat can see."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from litestar.testing import TestClient

from domain.events import CardsDealt, Event, parse_event
from domain.model import HIDDEN, Move
from domain.registry import find_ruleset
from service.usecases.analysis import hints
from tests.service.conftest import auth, create
from tests.service.live.test_spectator_delay import play, referee_log


def hinted(api: TestClient[Any], ruleset: str = "race35", players: int = 2) -> dict[str, Any]:
    return create(api, ruleset, players=players, allow_hints=True, rated=False)


def to_act(api: TestClient[Any], created: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The seat to act and its legal moves (read with its token)."""
    referee = auth(created["tokens"]["referee"])
    state = api.get(f"/games/{created['id']}", headers=referee).json()
    seat = state["to_act"][0]["seat"]
    moves = api.get(
        f"/games/{created['id']}/legal-moves", headers=auth(created["tokens"]["seats"][seat])
    ).json()
    return seat, moves


def at_a_choice(
    api: TestClient[Any], ruleset: str, players: int
) -> tuple[dict[str, Any], int, dict[str, Any]]:
    """A game with hints played on until the seat to act has more than one legal move."""
    created = hinted(api, ruleset, players=players)
    for _ in range(40):
        seat, legal = to_act(api, created)
        if len(legal["moves"]) > 1:
            break
        play(api, created, 1)
    return created, seat, legal


def watch_fills(monkeypatch: pytest.MonkeyPatch) -> list[list[Event]]:
    """The logs the hints fill from here on, one per fill."""
    logs: list[list[Event]] = []
    real = hints.filled

    def watched(seen: list[Event], viewer: int, rng: Any, count: int) -> Iterator[Any]:
        for replay in real(seen, viewer, rng, count):
            logs.append(list(seen))
            yield replay

    monkeypatch.setattr(hints, "filled", watched)
    return logs


def test_a_seat_gets_its_legal_moves_ranked_by_the_chance_each_keeps(
    api: TestClient[Any],
) -> None:
    created, seat, legal = at_a_choice(api, "sorry", 3)
    token = auth(created["tokens"]["seats"][seat])
    reply = api.get(f"/games/{created['id']}/hints", headers=token)
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["seat"] == seat and body["judged_at"] == legal["version"]
    assert sorted(h["move"]["id"] for h in body["hints"]) == sorted(m["id"] for m in legal["moves"])
    chances = [h["chance"] for h in body["hints"]]
    assert chances == sorted(chances, reverse=True) and all(0 <= c <= 1 for c in chances)
    assert body["hints"][0]["loss"] == 0 and all(h["loss"] >= 0 for h in body["hints"])
    move = {"move": body["hints"][0]["move"]["id"], "expected_version": body["version"]}
    played = api.post(f"/games/{created['id']}/moves", json=move, headers=token)
    assert played.status_code == 200, "a hint's version is the one a move expects"


def test_the_log_records_that_hints_were_shown_once_per_position(api: TestClient[Any]) -> None:
    created = hinted(api)
    seat, legal = to_act(api, created)
    token = auth(created["tokens"]["seats"][seat])
    first = api.get(f"/games/{created['id']}/hints", headers=token).json()
    again = api.get(f"/games/{created['id']}/hints", headers=token).json()
    assert again == first
    shown = [e for e in referee_log(api, created) if e["type"] == "HintsShown"]
    assert len(shown) == 1
    assert shown[0]["by"] == seat and shown[0]["data"]["seat"] == seat
    assert shown[0]["data"]["version"] == legal["version"] and shown[0]["data"]["method"]
    audit = api.get(f"/games/{created['id']}/audit", headers=auth(created["tokens"]["referee"]))
    assert audit.json()["verification"]["valid"] is True, "the referee judges HintsShown again"


def test_a_seat_cannot_get_hints_for_another_seat(api: TestClient[Any]) -> None:
    created = hinted(api, "sorry", players=3)
    seat, _ = to_act(api, created)
    other = (seat + 1) % 3
    reply = api.get(
        f"/games/{created['id']}/hints", headers=auth(created["tokens"]["seats"][other])
    )
    assert reply.status_code == 200, reply.text
    assert reply.json()["seat"] == other and reply.json()["hints"] == []
    assert not [e for e in referee_log(api, created) if e["type"] == "HintsShown"]


def test_no_spectator_nor_referee_reads_hints(api: TestClient[Any]) -> None:
    created = hinted(api)
    for headers in [{}, auth(created["tokens"]["referee"])]:
        reply = api.get(f"/games/{created['id']}/hints", headers=headers)
        assert reply.status_code == 403, reply.text
        assert reply.json()["type"].endswith("/forbidden")
    wrong = api.get(f"/games/{created['id']}/hints", headers=auth("not-a-token"))
    assert wrong.status_code == 401


def test_a_game_without_allow_hints_refuses_them_with_a_problem_type(
    api: TestClient[Any],
) -> None:
    created = create(api, players=2, rated=False)
    seat, _ = to_act(api, created)
    reply = api.get(f"/games/{created['id']}/hints", headers=auth(created["tokens"]["seats"][seat]))
    assert reply.status_code == 403, reply.text
    assert reply.json()["type"].endswith("/hints-not-allowed")
    assert not [e for e in referee_log(api, created) if e["type"] == "HintsShown"]


def test_hints_are_refused_in_rated_and_tournament_games(api: TestClient[Any]) -> None:
    seats = [{"name": "Ann"}, {"name": "Bo"}]
    for body in [
        {"allow_hints": True},
        {"allow_hints": True, "rated": True},
        {"allow_hints": True, "rated": False, "tags": {"tournament": "t-1"}},
    ]:
        reply = api.post("/games", json={"ruleset": "race35", "seats": seats, **body})
        assert reply.status_code == 422, reply.text
        assert reply.json()["type"].endswith("/bad-setup")
        assert reply.json()["pointer"] == "/allow_hints"


def test_a_finished_game_gives_no_hints(api: TestClient[Any]) -> None:
    created = hinted(api)
    assert play(api, created, 2000)["status"] == "finished"
    reply = api.get(f"/games/{created['id']}/hints", headers=auth(created["tokens"]["seats"][0]))
    assert reply.status_code == 409 and reply.json()["type"].endswith("/game-over")


def test_hints_are_judged_from_what_the_seat_sees_never_another_hand(
    api: TestClient[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    created, seat, _ = at_a_choice(api, "sorry-hand", 2)
    logs = watch_fills(monkeypatch)
    reply = api.get(f"/games/{created['id']}/hints", headers=auth(created["tokens"]["seats"][seat]))
    assert reply.status_code == 200, reply.text
    assert logs, "the hints were judged on a fill of the seat's log"
    dealt = [e for log in logs for e in log if isinstance(e, CardsDealt)]
    assert dealt
    for deal in dealt:
        for owner, cards in zip(deal.seats, deal.hands, strict=True):
            assert owner == seat or set(cards) == {HIDDEN}, "another seat's hand was read"


def test_fills_stop_once_two_agree_and_a_position_is_judged_once(
    api: TestClient[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    created, seat, _ = at_a_choice(api, "sorry-hand", 2)
    calls = watch_fills(monkeypatch)
    token = auth(created["tokens"]["seats"][seat])
    first = api.get(f"/games/{created['id']}/hints", headers=token).json()
    assert hints.SETTLED <= len(calls) <= hints.SAMPLES
    judged = len(calls)
    again = api.get(f"/games/{created['id']}/hints", headers=token).json()
    assert again == first and len(calls) == judged, "the same position is not judged twice"


def test_fills_that_disagree_go_on_to_every_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    class Folded:
        state = None

    chances = iter([0.1, 0.6, 0.3, 0.6] * (hints.SAMPLES // 2))
    monkeypatch.setattr(
        hints, "filled", lambda seen, seat, rng, count: (Folded() for _ in range(count))
    )
    monkeypatch.setattr(hints, "kept", lambda valuer, state, seat, move: next(chances))
    moves = [Move("a", 0), Move("b", 0)]
    ranked = hints.rank(find_ruleset("sorry-hand"), [], 0, moves, random.Random(0), hints.SAMPLES)
    assert next(chances, None) is None, "every sample was filled"
    assert [h.chance for h in ranked] == [0.6, 0.2]


def test_each_hint_is_judged_from_the_seats_whole_log_read_past_its_last_hint(
    api: TestClient[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat's log is read from the store only past what its last hint read: at every choice
    of a game, the log a hint is judged from is the seat's view of the whole log, as the
    referee's log redacted for that seat."""
    rules = find_ruleset("sorry-hand")
    created = hinted(api, "sorry-hand", players=2)
    logs = watch_fills(monkeypatch)
    asked = 0
    for _ in range(60):
        seat, legal = to_act(api, created)
        if len(legal["moves"]) > 1:
            token = auth(created["tokens"]["seats"][seat])
            del logs[:]
            judged = api.get(f"/games/{created['id']}/hints", headers=token).json()["judged_at"]
            whole = [parse_event(e["type"], e["data"]) for e in referee_log(api, created)]
            assert logs[0] == [rules.redact(event, seat) for event in whole[:judged]]
            asked += 1
        if play(api, created, 1)["status"] == "finished":
            break
    assert asked >= 10

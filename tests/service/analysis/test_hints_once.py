"""``GET /games/{id}/hints`` records a showing once per seat and position, whoever else asks
in between and however many ask at once; a read is never a 409; the route spends the
caller's write budget."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from service.usecases.games.commands import Commands
from tests.service.conftest import auth, create
from tests.service.live.test_spectator_delay import referee_log

AT_ONCE = 12
HELD = 4
"""Reads held before their showing's commit until this many have judged (fewer than the
threads the app runs its handlers on: five at the least)."""


def exchanging(api: TestClient[Any]) -> dict[str, Any]:
    """A partners game with hints, dealt: every seat is to pass a card to its partner."""
    created = create(api, "partners", players=4, allow_hints=True, rated=False)
    dealer = auth(created["tokens"]["seats"][0])
    dealt = api.post(f"/games/{created['id']}/moves", json={"move": "deal"}, headers=dealer)
    assert dealt.status_code == 200, dealt.text
    state = api.get(f"/games/{created['id']}").json()
    assert {a["seat"] for a in state["to_act"]} == {0, 1, 2, 3}
    return created


def showings(api: TestClient[Any], created: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in referee_log(api, created) if e["type"] == "HintsShown"]


def test_seats_asking_in_turn_record_one_showing_each_per_position(
    api: TestClient[Any],
) -> None:
    created = exchanging(api)
    game, seats = created["id"], created["tokens"]["seats"]
    replies: dict[int, list[dict[str, Any]]] = {0: [], 1: []}
    for ask in range(40):
        reply = api.get(f"/games/{game}/hints", headers=auth(seats[ask % 2]))
        assert reply.status_code == 200, reply.text
        replies[ask % 2].append(reply.json())
    shown = showings(api, created)
    assert sorted(e["data"]["seat"] for e in shown) == [0, 1], f"{len(shown)} showings"
    first = {seat: asked[0] for seat, asked in replies.items()}
    for seat, asked in replies.items():
        assert first[seat]["hints"], "a seat passing a card has moves to rank"
        for body in asked:
            assert (body["judged_at"], body["hints"]) == (
                first[seat]["judged_at"],
                first[seat]["hints"],
            ), "the same position, judged alike"
    assert api.get(f"/games/{game}").json()["version"] == first[1]["version"]
    referee = auth(created["tokens"]["referee"])
    audit = api.get(f"/games/{game}/audit", headers=referee).json()
    assert audit["verification"]["valid"] is True
    passed = api.post(
        f"/games/{game}/moves",
        json={"move": first[0]["hints"][0]["move"]["id"]},
        headers=auth(seats[0]),
    )
    assert passed.status_code == 200, passed.text
    again = api.get(f"/games/{game}/hints", headers=auth(seats[1])).json()
    assert again["judged_at"] > first[1]["judged_at"], "a move makes a new position"
    assert len(showings(api, created)) == 3, "a new position is shown anew"


def test_identical_reads_at_once_all_answer_alike_and_record_one_showing(
    api: TestClient[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first ``HELD`` reads to commit a showing are held until all of them have judged
    the position, so all but one of them meet another's showing at the store."""
    created = exchanging(api)
    game, token = created["id"], auth(created["tokens"]["seats"][2])
    before = api.get(f"/games/{game}").json()["version"]
    barrier, held, lock = threading.Barrier(HELD, timeout=10), [0], threading.Lock()
    real = Commands.write

    def write(self: Commands, *args: Any, **kwargs: Any) -> Any:
        with lock:
            held[0] += 1
            hold = held[0] <= HELD
        if hold:
            with suppress(threading.BrokenBarrierError):
                barrier.wait()
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Commands, "write", write)
    with ThreadPoolExecutor(max_workers=AT_ONCE) as pool:
        replies = list(
            pool.map(lambda _: api.get(f"/games/{game}/hints", headers=token), range(AT_ONCE))
        )
    assert [r.status_code for r in replies] == [200] * AT_ONCE, [r.text for r in replies]
    assert held[0] >= HELD, "reads came to commit a showing at once"
    assert all(r.json() == replies[0].json() for r in replies)
    assert len(showings(api, created)) == 1
    assert api.get(f"/games/{game}").json()["version"] == before + 1 == replies[0].json()["version"]


def test_hints_spend_the_seats_write_budget(tmp_path: Path) -> None:
    settings = Settings(
        database=str(tmp_path / "budget.db"), log_level="warning", write_rate=0.001, write_burst=3
    )
    with TestClient(create_app(settings)) as api:
        created = exchanging(api)
        game, seats = created["id"], created["tokens"]["seats"]
        replies = [api.get(f"/games/{game}/hints", headers=auth(seats[1])) for _ in range(3)]
        assert [r.status_code for r in replies] == [200, 200, 200]
        over = api.get(f"/games/{game}/hints", headers=auth(seats[1]))
        assert over.status_code == 429, over.text
        assert (
            over.json()["type"].endswith("/rate-limited") and int(over.headers["retry-after"]) >= 1
        )
        other = api.get(f"/games/{game}/hints", headers=auth(seats[3]))
        assert other.status_code == 200, "another seat has its own budget"
        assert len(showings(api, created)) == 2

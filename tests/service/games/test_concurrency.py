"""Racing writers on one game: one winner per version, no gaps, a verified chain."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from litestar.testing import TestClient

from eventstore import verify_chain
from tests.service.conftest import auth, create
from tests.service.logcheck import read_log
from tests.service.logcheck import stored as stored_events


def test_threads_racing_the_same_move_append_it_once(api: TestClient[Any]) -> None:
    created = create(api, players=2)
    game, referee = created["id"], auth(created["tokens"]["referee"])

    def attempt(_: int) -> int:
        state = api.get(f"/games/{game}").json()
        if state["status"] == "finished":
            return 0
        body = {"move": "roll", "expected_version": state["version"]}
        return int(api.post(f"/games/{game}/moves", json=body, headers=referee).status_code)

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(attempt, range(200)))
    assert set(statuses) <= {0, 200, 409}
    assert statuses.count(200) >= 1
    events = read_log(api, game)
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    stored = stored_events(events)
    assert verify_chain(stored) is None
    rolls = [e for e in stored if e.type == "DiceRolled"]
    assert len(rolls) == statuses.count(200)


def test_racing_moves_without_expected_version_each_apply_to_the_state_they_meet(
    api: TestClient[Any],
) -> None:
    created = create(api, players=2)
    game, referee = created["id"], auth(created["tokens"]["referee"])

    def attempt(_: int) -> int:
        reply = api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=referee)
        return int(reply.status_code)

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(attempt, range(120)))
    assert set(statuses) <= {200, 409, 422}
    assert statuses.count(200) >= 2
    events = read_log(api, game)
    stored = stored_events(events)
    assert [e.version for e in stored] == list(range(1, len(stored) + 1))
    assert verify_chain(stored) is None
    assert len([e for e in stored if e.type == "DiceRolled"]) == statuses.count(200)

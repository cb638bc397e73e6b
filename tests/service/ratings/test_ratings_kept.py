"""Ratings and the standings without a tag are derived data kept in the store: a finish is
folded onto what is kept, an undone finish refolds from that game on only, an old game
reopened refolds the games after it to what a fold from nothing gives, and a player's
history comes a page at a time. The games are of registered players who each play their own
seat (``seating``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import pytest
from litestar.testing import TestClient

from eventstore import SqliteEventStore
from service.app import create_app
from service.settings import Settings
from service.usecases.cursors import Cursors
from service.usecases.ratings.fold import RulesetFold
from service.usecases.ratings.ratings import Ratings
from tests.clocks import ManualClock
from tests.service.conftest import auth, seed_for_test
from tests.service.ratings.seating import board, race
from tests.service.ratings.test_ratings import won

NAMES = ["Ann", "Bob", "Cal", "Dee", "Eve"]


@pytest.fixture
def rated(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The games folded into the kept ratings (one entry per game rated)."""
    calls: list[int] = []
    fold: Callable[..., Any] = RulesetFold.fold

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return fold(*args, **kwargs)

    monkeypatch.setattr(RulesetFold, "fold", counted)
    return calls


def season(api: TestClient[Any], games: int) -> None:
    for n in range(games):
        race(api, [NAMES[n % 5], NAMES[(n + 2) % 5]], f"kept-{n}")


def won_then_undone(api: TestClient[Any]) -> tuple[str, dict[str, str], dict[str, Any]]:
    """A sorry game between Ann and Bob played to its end (it counts); its path, the headers
    of the seat whose move finished it (which may undo that move) and the creation reply."""
    created = won(api, ["Ann", "Bob"], seed_for_test())
    path = f"/games/{created['id']}"
    events = api.get(f"{path}/events", params={"limit": 1000}).json()["events"]
    (mover,) = {e["by"] for e in events if e["type"] == "GameFinished"}
    return path, auth(created["tokens"]["seats"][mover]), created


def test_a_finish_is_folded_onto_the_kept_ratings(api: TestClient[Any], rated: list[int]) -> None:
    season(api, 10)
    board(api, "race35")
    rated.clear()
    race(api, ["Ann", "Cal"], "one-more")
    assert board(api, "race35")["Ann"]["games"] == 5
    assert len(rated) == 1  # the new game only, not the season again
    board(api, "race35")
    api.get("/players/Ann")
    assert len(rated) == 1  # reads fold nothing new


def test_undoing_the_last_finish_folds_none_of_the_games_before_it_again(
    api: TestClient[Any], rated: list[int]
) -> None:
    for n in range(5):
        race(api, [NAMES[n % 5], NAMES[(n + 1) % 5]], f"sorry-{n}")  # other rule set: race35
    for _ in range(9):
        won_then_undone(api)
    before = board(api, "sorry")
    path, mover, _ = won_then_undone(api)
    assert board(api, "sorry")["Ann"]["games"] == 10
    rated.clear()
    undone = api.post(f"{path}/undo", json={"reason": "again"}, headers=mover)
    assert undone.status_code == 200, undone.text
    assert board(api, "sorry") == before
    assert rated == []  # the reopened game is dropped; none of the nine before it is folded


def test_an_old_game_reopened_refolds_the_games_after_it_as_a_fold_from_nothing(
    api: TestClient[Any], settings: Settings
) -> None:
    path, mover, _ = won_then_undone(api)
    for _ in range(4):
        won_then_undone(api)
    board(api, "sorry")
    undone = api.post(f"{path}/undo", json={"reason": "first table"}, headers=mover)
    assert undone.status_code == 200, undone.text
    kept = api.get("/ratings", params={"ruleset": "sorry"}).json()["ratings"]
    history = api.get("/players/Ann").json()["rulesets"][0]["history"]
    assert len(history) == 4 and path.rsplit("/", 1)[1] not in [g["game_id"] for g in history]
    copy = f"{settings.database}.copy"
    with sqlite3.connect(settings.database) as live, sqlite3.connect(copy) as target:
        live.backup(target)
    store = SqliteEventStore(copy)  # a fold from nothing, on a copy of the store
    try:
        store.drop_summaries()
        from service.usecases.games import summaries

        summaries.fill(store)
        fresh = Ratings(store, ManualClock(), Cursors()).board("sorry")
    finally:
        store.close()
    assert [(r.name, r.mu, r.sigma, r.games, r.wins) for r in fresh] == [
        (r["name"], r["mu"], r["sigma"], r["games"], r["wins"]) for r in kept
    ]


def test_a_player_s_history_comes_a_page_at_a_time(api: TestClient[Any]) -> None:
    season(api, 10)
    whole = api.get("/players/Ann", params={"ruleset": "race35"}).json()["rulesets"][0]
    assert whole["next"] is None and len(whole["history"]) == 4
    seen, path = [], "/players/Ann?limit=3"
    while path:
        (ruleset,) = api.get(path).json()["rulesets"]
        assert len(ruleset["history"]) <= 3 and ruleset["rating"] == whole["rating"]
        seen += ruleset["history"]
        path = ruleset["next"]
    assert seen == whole["history"]
    bad = api.get("/players/Ann", params={"cursor": "x"})
    assert bad.status_code == 400 and bad.json()["parameter"] == "cursor"


def test_the_standings_without_a_tag_follow_finishes_and_undos(api: TestClient[Any]) -> None:
    season(api, 6)
    path, mover, _ = won_then_undone(api)

    def by_name() -> dict[str, tuple[int, int, int]]:
        rows = api.get("/standings").json()["standings"]
        return {r["name"]: (r["games"], r["wins"], r["pieces_home"]) for r in rows}

    def scanned() -> dict[str, tuple[int, int, int]]:
        table: dict[str, list[int]] = {}
        for game in api.get("/games", params={"status": "finished"}).json()["games"]:
            for name in game["seats"]:
                row = table.setdefault(name, [0, 0, 0])
                row[0] += 1
                row[1] += name in game["winners"]
                row[2] += game["pieces_home"].get(name, 0)
        return {name: (g, w, h) for name, (g, w, h) in table.items()}

    assert by_name() == scanned() and by_name()["Ann"][0] == 4
    assert api.post(f"{path}/undo", json={"reason": "no"}, headers=mover).status_code == 200
    assert by_name() == scanned() and by_name()["Ann"][0] == 3


def test_two_processes_on_one_file_serve_the_same_ratings(settings: Settings) -> None:
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        for n in range(6):
            race(one if n % 2 else two, [NAMES[n % 5], NAMES[(n + 1) % 5]], f"two-{n}")
            assert board(one, "race35") == board(two, "race35")


def test_the_standings_without_a_tag_count_a_delayed_game_once_its_delay_has_passed(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    race(clocked, ["Ann", "Bob"], "on-time")
    race(clocked, ["Cal", "Dee"], "late", spectator_delay={"seconds": 60})

    def names() -> list[str]:
        return sorted(r["name"] for r in clocked.get("/standings").json()["standings"])

    assert names() == ["Ann", "Bob"]
    clock.advance(59)
    assert names() == ["Ann", "Bob"]
    clock.advance(2)
    assert names() == ["Ann", "Bob", "Cal", "Dee"]
    assert set(board(clocked, "race35")) == {"Ann", "Bob", "Cal", "Dee"}

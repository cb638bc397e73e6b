"""Ratings that mean something, end to end: only registered players (by handle) and bots
(by level) are rated, only by games every player took part in, so nobody moves someone
else's rating.

The "Ann" attack of issue #46 was: create a rated game between "Ann" and "Mallory", hold both
tokens, lose as Ann, and Ann's rating falls. Now Ann's seat has no token (only her key plays
it), a game with a guest moves no rating, and a game Ann never acted in does not count."""

from __future__ import annotations

from functools import partial
from typing import Any

from litestar.testing import TestClient

from eventstore import DerivedRow
from service.app import create_app
from service.core.actor import Player
from service.settings import Settings
from service.usecases.games.summaries import players_in
from service.usecases.ratings.fold import RULES
from service.usecases.ratings.rule import RULE_VERSION
from tests.clocks import ManualClock
from tests.service.conftest import auth
from tests.service.ratings.seating import (
    board,
    key_of,
    play_to_end,
    race,
    relabelled,
    seated,
    store_of,
)
from tests.waiting import wait_until


def history(api: TestClient[Any], name: str) -> list[str]:
    """The ids of the games behind a rating (none when ``GET /players/{name}`` is 404)."""
    reply = api.get(f"/players/{name}")
    if reply.status_code == 404:
        return []
    assert reply.status_code == 200, reply.text
    return [game["game_id"] for ruleset in reply.json()["rulesets"] for game in ruleset["history"]]


def test_a_summary_names_the_player_each_seat_belongs_to(api: TestClient[Any]) -> None:
    created = seated(api, "race35", ["ann", "Mallory"], guests=(1,), seed="summary")
    row = store_of(api).summary(created["id"])
    assert row is not None and row.summary.document["players"] == ["ann", None]
    assert players_in(row.summary.document) == ["ann", None]
    kept_before = {"seats": ["Ann", "Mallory"], "winners": [], "pieces_home": {}}
    assert players_in(kept_before) == [None, None]  # a summary from before: guests


def test_the_ann_attack_fails(api: TestClient[Any]) -> None:
    key_of(api, "ann")
    body = {"ruleset": "race35", "seats": [{"player": "ann"}, {"name": "Mallory"}]}
    created = api.post("/games", json={**body, "seed": "attack"}).json()
    game_id, (ann_token, mallory) = created["id"], created["tokens"]["seats"]
    assert ann_token is None  # the creator holds no token for Ann's seat
    referee = auth(created["tokens"]["referee"])
    for stranger in (referee, auth(mallory)):
        move = {"move": "roll", "seat": 0}
        refused = api.post(f"/games/{game_id}/moves", json=move, headers=stranger)
        assert refused.status_code == 403, refused.text
    # Ann herself plays it to the end against the guest: still no rating moves
    played = {**created, "tokens": {**created["tokens"], "seats": [key_of(api, "ann"), mallory]}}
    play_to_end(api, played)
    assert board(api, "race35") == {}
    assert api.get("/players/ann").status_code == 404
    assert api.get("/players/Mallory").status_code == 404


def test_a_guest_named_for_a_registered_player_moves_no_rating(api: TestClient[Any]) -> None:
    key_of(api, "ann")
    created = seated(api, "race35", ["ann", "Mallory"], guests=(0, 1), seed="free names")
    play_to_end(api, created)
    assert board(api, "race35") == {} and history(api, "ann") == []


def test_two_registered_players_who_both_played_are_both_rated(api: TestClient[Any]) -> None:
    created = seated(api, "race35", ["ann", "bob"], seed="duel")
    (winner,) = play_to_end(api, created)
    after = board(api, "race35")
    assert set(after) == {"ann", "bob"}
    assert after[["ann", "bob"][winner]]["mu"] > 25 > after[["bob", "ann"][winner]]["mu"]
    assert history(api, "ann") == history(api, "bob") == [created["id"]]
    assert history(api, "ANN") == [created["id"]]  # as registration matches handles


def test_a_player_whose_clock_ran_out_before_she_acted_is_not_rated(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    timed = {"per_decision": 10, "on_timeout": "forfeit"}
    created = seated(api, "race35", ["bob", "ann"], clock=timed, seed="no show")  # Ann never comes
    game_id, bob = created["id"], auth(created["tokens"]["seats"][0])
    referee = auth(created["tokens"]["referee"])

    def to_act() -> int:
        return int(api.get(f"/games/{game_id}", headers=referee).json()["to_act"][0]["seat"])

    while to_act() == 0:
        assert api.post(f"/games/{game_id}/moves", json={"move": "roll"}, headers=bob).is_success
    clock.advance(11)

    def ended() -> bool:
        return bool(api.get(f"/games/{game_id}", headers=referee).json()["status"] == "finished")

    wait_until(ended, message="Ann's clock did not run out")
    assert board(api, "race35") == {}
    assert history(api, "ann") == history(api, "bob") == []


def test_a_referee_cannot_forfeit_a_players_seat_and_her_game_is_not_rated(
    api: TestClient[Any],
) -> None:
    created = seated(api, "race35", ["bob", "ann"], seed="forfeit")
    game_id, referee = created["id"], auth(created["tokens"]["referee"])
    bob = auth(created["tokens"]["seats"][0])
    assert api.post(f"/games/{game_id}/moves", json={"move": "roll"}, headers=bob).is_success
    forfeit = {"kind": "forfeit", "reason": "no show", "seat": 1}
    refused = api.post(f"/games/{game_id}/adjudicate", json=forfeit, headers=referee)
    assert refused.status_code == 403, refused.text
    assert api.get(f"/games/{game_id}").json()["status"] != "finished"
    assert board(api, "race35") == {} and history(api, "ann") == []


def test_a_game_against_a_bot_counts_and_rates_the_bot_by_its_level(
    api: TestClient[Any],
) -> None:
    key = key_of(api, "ann")
    seats = [{"player": "ann"}, {"name": "Robin", "bot": "greedy"}]
    body = {"ruleset": "sorry", "seats": seats, "auto_chance": True, "seed": "anchor"}
    created = api.post("/games", json=body).json()
    game_id = created["id"]

    def moved_on(version: int) -> bool:
        return int(api.get(f"/games/{game_id}").json()["version"]) > version

    for _ in range(3000):
        view = api.get(f"/games/{game_id}").json()
        if view["status"] == "finished":
            break
        if not any(p["seat"] == 0 for p in view["to_act"]):
            wait_until(partial(moved_on, int(view["version"])), message="the bot did not play")
            continue
        legal = api.get(f"/games/{game_id}/legal-moves", headers=auth(key)).json()
        move = {"move": legal["moves"][0]["id"], "expected_version": legal["version"]}
        reply = api.post(f"/games/{game_id}/moves", json=move, headers=auth(key))
        assert reply.status_code in (200, 409), reply.text
    after = board(api, "sorry")
    assert set(after) == {"ann", "bot:greedy"} and after["bot:greedy"]["games"] == 1
    assert history(api, "bot:greedy") == history(api, "ann") == [game_id]
    assert history(api, "bot:random") == []


def test_external_chance_and_imported_games_never_count(api: TestClient[Any]) -> None:
    created = seated(api, "race35", ["ann", "bob"], seed="original")
    play_to_end(api, created)
    kept = board(api, "race35")
    store = store_of(api)
    players = {0: "ann", 1: "bob"}
    relabelled(store, created["id"], players, chance="external")
    relabelled(store, created["id"], players, meta={"imported_from": created["id"]})
    assert board(api, "race35") == kept
    assert history(api, "ann") == [created["id"]]


def test_a_retired_handle_leaves_the_leaderboard_and_its_games_stay(
    api: TestClient[Any],
) -> None:
    for n in range(3):
        race(api, ["ann", "bob", "cy"][n % 2 : n % 2 + 2], f"before-{n}")
    first = board(api, "race35")
    api.app.state.players.retire(Player("ann"))
    after = board(api, "race35")
    assert set(after) == {"bob", "cy"}
    assert [row["rank"] for row in sorted(after.values(), key=lambda r: r["rank"])] == [1, 2]
    assert {name: after[name]["mu"] for name in after} == {n: first[n]["mu"] for n in after}
    assert api.get("/players/ann").status_code == 404
    assert len(history(api, "bob")) == 3  # with the games against Ann


def test_ratings_kept_under_the_old_rule_are_folded_again(settings: Settings) -> None:
    """Rows folded when free names were rated (no rule recorded): a guest's rating among
    them. The next process to read them drops them and folds every game again."""
    with TestClient(create_app(settings)) as api:
        race(api, ["ann", "bob"], "kept")
        kept = board(api, "race35")
        store = store_of(api)
        mark = store.derived_mark("ratings/race35")
        old = {"mu": 30.0, "sigma": 5.0, "games": 9, "wins": 9}
        rows = [DerivedRow("ratings/race35", "Mallory", -15.0, old), DerivedRow(RULES, "race35")]
        assert store.derived_save("ratings/race35", mark, mark, rows)
        assert "Mallory" in board(api, "race35")  # this process has read the rule already
    with TestClient(create_app(settings)) as again:
        assert board(again, "race35") == kept
        (rule,) = store_of(again).derived_rows(RULES, since="race35", limit=1)
        assert rule.document == {"version": RULE_VERSION}

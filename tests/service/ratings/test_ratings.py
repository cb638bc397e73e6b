"""Ratings end to end: games that count move them the expected way, unrated ones do not
count, an undo that reopens a game takes its result back, pages and problems, and ratings
rebuilt from the logs equal those the app kept while games finished. Every game here is of
registered players who each acted for their own seat (``seating``); which games count at all
is tests/service/ratings/test_rated_players.py's."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import pytest
from litestar.testing import TestClient

from eventstore import Summarised, Summary
from service.settings import Settings
from service.usecases.ratings.ratings import placing
from tests.clocks import ManualClock
from tests.service.conftest import auth
from tests.service.games.test_undo import decide_once
from tests.service.ratings.seating import board, play_to_end, race, seated

Board = dict[str, dict[str, Any]]


def partners(api: TestClient[Any], handles: list[str], seed: str) -> list[str]:
    """A partners game of four registered players, each playing their own seat to the end;
    the winners' handles."""
    created = seated(api, "partners", handles, seed=seed, auto_chance=True)
    return [handles[seat] for seat in play_to_end(api, created)]


def test_a_rated_game_moves_its_winner_up_and_its_loser_down(api: TestClient[Any]) -> None:
    for n in range(6):
        before = board(api, "race35")
        (winner,) = race(api, ["Ann", "Bob"], f"duel-{n}")
        (loser,) = {"Ann", "Bob"} - {winner}
        after = board(api, "race35")
        start = {"mu": 25.0, "sigma": 25 / 3, "games": 0, "wins": 0}
        was = {name: before.get(name, start) for name in ("Ann", "Bob")}
        assert after[winner]["mu"] > was[winner]["mu"]
        assert after[loser]["mu"] < was[loser]["mu"]
        for name in ("Ann", "Bob"):
            assert after[name]["sigma"] < was[name]["sigma"]
            assert after[name]["games"] == n + 1
        assert after[winner]["wins"] == was[winner]["wins"] + 1
    ranked = sorted(after.values(), key=lambda row: row["rank"])
    assert [row["ordinal"] for row in ranked] == sorted(
        (r["ordinal"] for r in ranked), reverse=True
    )
    for row in ranked:
        assert row["ordinal"] == row["mu"] - 3 * row["sigma"]


def test_losers_level_on_pieces_home_share_a_place(api: TestClient[Any]) -> None:
    (winner,) = race(api, ["Cal", "Dee", "Eve"], "three")
    losers = sorted({"Cal", "Dee", "Eve"} - {winner})
    after = board(api, "race35")
    assert after[winner]["mu"] > 25 > after[losers[0]]["mu"] == after[losers[1]]["mu"]
    history = api.get(f"/players/{losers[0]}").json()["rulesets"][0]["history"]
    assert [(game["place"], game["places"]) for game in history] == [(2, 3)]


def test_partners_rate_the_winning_team_up_together(api: TestClient[Any]) -> None:
    handles = ["Ann", "Bob", "Cal", "Dee"]
    won = partners(api, handles, "pair")
    lost = sorted(set(handles) - set(won))
    after = board(api, "partners")
    assert len(won) == 2 and after[won[0]]["mu"] == after[won[1]]["mu"] > 25
    assert after[lost[0]]["mu"] == after[lost[1]]["mu"] < 25
    assert after[won[0]]["wins"] == 1 and after[lost[0]]["wins"] == 0
    games = api.get(f"/players/{lost[0]}").json()["rulesets"]
    assert [(r["ruleset"], [(g["place"], g["places"]) for g in r["history"]]) for r in games] == [
        ("partners", [(2, 2)])
    ]


def test_unrated_games_do_not_count(api: TestClient[Any]) -> None:
    race(api, ["Ann", "Bob"], "rated-1")
    kept = board(api, "race35")
    for n in range(3):
        race(api, ["Ann", "Bob"], f"friendly-{n}", rated=False)
        race(api, ["Ann", "Zoe"], f"friendly-zoe-{n}", rated=False)
    assert board(api, "race35") == kept
    listed = api.get("/games", params={"ruleset": "race35", "status": "finished"}).json()
    assert [game["rated"] for game in listed["games"]] == [True] + [False] * 6
    assert len(api.get("/players/Ann").json()["rulesets"][0]["history"]) == 1
    missing = api.get("/players/Zoe")
    assert missing.status_code == 404
    assert missing.json()["type"].endswith("/player-not-found")


def test_a_game_whose_end_its_delay_hides_is_rated_only_once_the_delay_has_passed(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    created = seated(api, "race35", ["Ann", "Bob"], seed="late", spectator_delay={"seconds": 2})
    winners = play_to_end(api, created)
    clock.advance(1)
    race(api, ["Cy", "Dee"], "on-time")  # finishes after the delayed game, rated at once
    assert set(board(api, "race35")) == {"Cy", "Dee"}
    assert api.get("/players/Ann").status_code == 404
    clock.advance(0.9)
    assert set(board(api, "race35")) == {"Cy", "Dee"}  # 1.9 s after the end: still hidden
    clock.advance(0.2)
    shown = board(api, "race35")
    assert set(shown) == {"Ann", "Bob", "Cy", "Dee"} and shown["Ann"]["games"] == 1
    (history,) = [r["history"] for r in api.get("/players/Ann").json()["rulesets"]]
    assert [game["game_id"] for game in history] == [created["id"]]
    assert shown[["Ann", "Bob"][winners[0]]]["wins"] == 1


def test_a_batch_table_may_be_unrated_and_its_guests_are_never_rated(api: TestClient[Any]) -> None:
    table = {"ruleset": "race35", "seats": [{"name": "Ann"}, {"name": "Bob"}], "auto_chance": True}
    reply = api.post("/games/batch", json={"games": [table, {**table, "rated": False}]})
    assert reply.status_code == 201, reply.text
    listed = api.get("/games").json()["games"]
    assert [game["rated"] for game in listed] == [True, False]
    assert board(api, "race35") == {}


def test_an_undo_that_reopens_a_game_takes_its_result_back(api: TestClient[Any]) -> None:
    reopen_and_finish_again(api)


def won(api: TestClient[Any], handles: list[str], seed: str) -> dict[str, Any]:
    """A sorry game of registered players that allows undo, played to its end; its creation
    reply."""
    created = seated(api, "sorry", handles, seed=seed, auto_chance=True, allow_undo=True)
    decide_once(api, created, random.Random(7))
    play_to_end(api, created)
    return created


def reopen_and_finish_again(api: TestClient[Any]) -> None:
    """A sorry game between Ann and Bob played to its end (it counts), reopened by its last
    mover's undo after the seed was revealed (it counts no more), then played to its end
    again (it still does not: its cards were known)."""
    created = won(api, ["Ann", "Bob"], "reopened")
    assert set(board(api, "sorry")) == {"Ann", "Bob"}
    path = f"/games/{created['id']}"
    last = api.get(f"{path}/events", params={"limit": 1000}).json()["events"]
    (mover,) = {e["by"] for e in last if e["type"] == "GameFinished"}
    token = auth(created["tokens"]["seats"][mover])
    undone = api.post(f"{path}/undo", json={"reason": "misclick"}, headers=token)
    assert undone.status_code == 200, undone.text
    assert api.get(path).json()["status"] != "finished"
    assert board(api, "sorry") == {}
    play_to_end(api, created)
    assert board(api, "sorry") == {}


def test_rated_survives_export_and_import(api: TestClient[Any]) -> None:
    for rated in (True, False):
        body = {"ruleset": "race35", "seats": [{"name": "Ann"}, {"name": "Bob"}]}
        created = api.post("/games", json={**body, "auto_chance": True, "rated": rated}).json()
        record = api.get(f"/games/{created['id']}/export").json()
        assert record["events"][0]["data"].get("rated", True) is rated
        imported = api.post("/games/import", json=record)
        assert imported.status_code == 201, imported.text
        again = api.get(f"/games/{imported.json()['id']}/export").json()
        assert again["events"][0]["data"] == record["events"][0]["data"]
    listed = api.get("/games").json()["games"]
    assert [game["rated"] for game in listed] == [True, True, False, False]


def test_pages_list_every_player_once_best_first(api: TestClient[Any]) -> None:
    names = ["Ann", "Bob", "Cal", "Dee", "Eve"]
    for n in range(5):
        race(api, [names[n], names[(n + 1) % 5], names[(n + 3) % 5]], f"page-{n}")
    whole = list(board(api, "race35"))
    seen, path = [], "/ratings?ruleset=race35&limit=2"
    while path:
        reply = api.get(path)
        page = reply.json()
        assert len(page["ratings"]) <= 2 and page["ruleset"] == "race35"
        seen += [row["name"] for row in page["ratings"]]
        path = page["next"]
        assert reply.headers.get("link") == (None if path is None else f'<{path}>; rel="next"')
    assert seen == whole and sorted(seen) == names
    assert [row["rank"] for row in board(api, "race35").values()] == [1, 2, 3, 4, 5]


def test_bad_leaderboard_requests_are_problems(api: TestClient[Any]) -> None:
    cases = {
        "": ("validation-failed", "ruleset"),
        "?ruleset=chess": ("unknown-ruleset", "ruleset"),
        "?ruleset=sorry&cursor=nonsense": ("validation-failed", "cursor"),
        "?ruleset=sorry&limit=0": ("validation-failed", "limit"),
        "?ruleset=sorry&limit=1001": ("out-of-range", "limit"),
    }
    for query, (slug, parameter) in cases.items():
        reply = api.get(f"/ratings{query}")
        assert reply.status_code == 400, (query, reply.text)
        problem = reply.json()
        assert problem["type"] == f"https://tabula.dev/problems/{slug}", query
        assert problem["parameter"] == parameter and parameter in problem["detail"]
    assert "race35" in api.get("/ratings?ruleset=chess").json()["allowed"]


def summarised(document: dict[str, Any]) -> Summarised:
    summary = Summary("race35", "finished", {}, document)
    return Summarised("g", 9, "t0", "t1", summary)


def test_places_go_by_winners_then_pieces_home_with_ties_shared() -> None:
    names = ["A", "B", "C", "D"]
    keys = ["a", "b", "bot:greedy", "d"]
    home = {"A": 2, "B": 3, "C": 3, "D": 0}
    game = placing(summarised({"seats": names, "winners": [], "pieces_home": home}), keys)
    assert game is not None and game.places == [3, 1, 1, 4]
    won = placing(summarised({"seats": names, "winners": ["A"], "pieces_home": home}), keys)
    assert won is not None and won.places == [1, 2, 2, 4] and won.winners == ["a"]
    teams = {"seats": names, "winners": ["B", "D"], "pieces_home": home, "teams": [[0, 2], [1, 3]]}
    paired = placing(summarised(teams), keys)
    assert paired is not None and paired.teams == [["a", "bot:greedy"], ["b", "d"]]
    assert paired.places == [2, 1] and paired.winners == ["b", "d"]


def test_a_name_or_a_key_at_two_seats_is_not_placed() -> None:
    home = {"A": 1, "B": 0}
    placed = {"seats": ["A", "B"], "winners": ["A"], "pieces_home": home}
    assert placing(summarised(placed), ["a", "b"]) is not None
    assert placing(summarised(placed), ["bot:random", "bot:random"]) is None
    twice = {"seats": ["A", "A"], "winners": ["A"], "pieces_home": {"A": 1}}
    assert placing(summarised(twice), ["a", "b"]) is None
    own_partner = {**twice, "seats": ["A", "B", "A", "C"], "teams": [[0, 2], [1, 3]]}
    assert placing(summarised(own_partner), ["a", "b", "c", "d"]) is None


@pytest.mark.parametrize("command", [["ratings", "rebuild"], ["rebuild-ratings"]])
def test_ratings_rebuilt_from_the_logs_equal_the_kept_ones(
    api: TestClient[Any], settings: Settings, command: list[str]
) -> None:
    names = ["Ann", "Bob", "Cal", "Dee", "Eve", "Fay"]
    for n in range(6):  # read after each game, so the kept ratings are folded a game at a time
        players = [names[(n + 5 * k) % 6] for k in range(2 + n % 3)]
        race(api, players, f"season-{n}", rated=n % 5 != 3)
        board(api, "race35")
        if n == 0:
            partners(api, names[:4], "pairs")
            board(api, "partners")
    reopen_and_finish_again(api)
    won(api, ["Cal", "Dee"], "kept")
    kept = boards(api)
    done = subprocess.run(
        [sys.executable, "-m", "service", *command, "--database", settings.database],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rebuilt = [json.loads(line) for line in done.stdout.splitlines()]
    assert {row["ruleset"]: row for row in rebuilt} == kept
    assert all(kept[ruleset]["ratings"] for ruleset in ("race35", "partners", "sorry"))
    assert boards(api) == kept  # the app reads the rebuilt rows


def boards(api: TestClient[Any]) -> dict[str, Any]:
    """Every rule set's first page of ratings."""
    return {ruleset: api.get("/ratings", params={"ruleset": ruleset}).json() for ruleset in RULES}


RULES = ["ludo", "parchis", "parchis-2dice", "partners", "race35", "sorry", "sorry-hand"]

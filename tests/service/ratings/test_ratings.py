"""Ratings end to end: rated games move them the expected way, unrated ones do not count, an
undo takes a result back, pages and problems, and ratings rebuilt from the logs equal those
the app kept while games finished."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any
from urllib.parse import quote

from litestar.testing import TestClient

from eventstore import Summarised, Summary
from service.settings import Settings
from service.usecases.ratings.ratings import placing
from tests.clocks import ManualClock
from tests.service.conftest import auth
from tests.service.games.test_undo import decide_once

Board = dict[str, dict[str, Any]]


def race(api: TestClient[Any], names: list[str], seed: str, **body: Any) -> list[str]:
    """A race35 game with automatic throws (it plays itself to its end at once); its winners."""
    seats = [{"name": name} for name in names]
    created = api.post(
        "/games",
        json={"ruleset": "race35", "seats": seats, "auto_chance": True, "seed": seed, **body},
    )
    assert created.status_code == 201, created.text
    state = api.get(f"/games/{created.json()['id']}").json()
    assert state["status"] == "finished"
    return [names[seat] for seat in state["winners"]]


def agreed(api: TestClient[Any], ruleset: str, names: list[str], winners: list[int]) -> str:
    """A game ended at once by the referee's agreement naming the winning seats; its id."""
    body = {"ruleset": ruleset, "seats": [{"name": name} for name in names]}
    created = api.post("/games", json=body).json()
    ending = {"kind": "agreement", "reason": "agreed", "winners": winners}
    path = f"/games/{created['id']}/adjudicate"
    reply = api.post(path, json=ending, headers=auth(created["tokens"]["referee"]))
    assert reply.status_code == 200, reply.text
    return str(created["id"])


def board(api: TestClient[Any], ruleset: str) -> Board:
    """The rule set's whole leaderboard, by name."""
    reply = api.get("/ratings", params={"ruleset": ruleset})
    assert reply.status_code == 200, reply.text
    return {row["name"]: row for row in reply.json()["ratings"]}


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
    agreed(api, "partners", ["Ann", "Bob", "Cal", "Dee"], [0, 2])  # Ann and Cal win
    after = board(api, "partners")
    assert after["Ann"]["mu"] == after["Cal"]["mu"] > 25 > after["Bob"]["mu"] == after["Dee"]["mu"]
    assert after["Ann"]["wins"] == 1 and after["Bob"]["wins"] == 0
    games = api.get("/players/Bob").json()["rulesets"]
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
    listed = api.get("/games", params={"ruleset": "race35"}).json()["games"]
    assert [game["rated"] for game in listed] == [True] + [False] * 6
    assert len(api.get("/players/Ann").json()["rulesets"][0]["history"]) == 1
    missing = api.get("/players/Zoe")
    assert missing.status_code == 404
    assert missing.json()["type"].endswith("/player-not-found")


def test_a_game_whose_end_its_delay_hides_is_rated_only_once_the_delay_has_passed(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    seats = [{"name": "Ann"}, {"name": "Bob"}]
    body = {"ruleset": "race35", "seats": seats, "auto_chance": True, "seed": "late"}
    created = api.post("/games", json=body | {"spectator_delay": {"seconds": 2}}).json()
    referee = auth(created["tokens"]["referee"])
    live = api.get(f"/games/{created['id']}", headers=referee).json()
    assert live["status"] == "finished"
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
    winner = seats[live["winners"][0]]["name"]
    assert shown[winner]["wins"] == 1


def test_a_batch_table_may_be_unrated(api: TestClient[Any]) -> None:
    table = {"ruleset": "race35", "seats": [{"name": "Ann"}, {"name": "Bob"}], "auto_chance": True}
    reply = api.post("/games/batch", json={"games": [table, {**table, "rated": False}]})
    assert reply.status_code == 201, reply.text
    listed = api.get("/games").json()["games"]
    assert [game["rated"] for game in listed] == [True, False]
    assert board(api, "race35")["Ann"]["games"] == 1


def test_an_undo_that_reopens_a_game_takes_its_result_back(api: TestClient[Any]) -> None:
    reopen_and_finish_again(api)


def reopen_and_finish_again(api: TestClient[Any]) -> None:
    """A sorry game Ann wins by agreement, reopened by an undo (her rating goes), then won by
    Bob."""
    body = {"ruleset": "sorry", "seats": [{"name": "Ann"}, {"name": "Bob"}], "auto_chance": True}
    created = api.post("/games", json=body).json()
    referee, path = auth(created["tokens"]["referee"]), f"/games/{created['id']}"
    decide_once(api, created, random.Random(7))  # the decision the undo reverts
    ending = {"kind": "agreement", "reason": "tea", "winners": [0]}
    assert api.post(f"{path}/adjudicate", json=ending, headers=referee).status_code == 200
    assert board(api, "sorry")["Ann"]["mu"] > 25
    undone = api.post(f"{path}/undo", json={"reason": "wrong table"}, headers=referee)
    assert undone.status_code == 200, undone.text
    assert board(api, "sorry") == {}
    again = {"kind": "agreement", "reason": "right table", "winners": [1]}
    assert api.post(f"{path}/adjudicate", json=again, headers=referee).status_code == 200
    assert board(api, "sorry")["Bob"]["mu"] > 25 > board(api, "sorry")["Ann"]["mu"]


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
    assert board(api, "race35")["Ann"]["games"] == 2


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
    home = {"A": 2, "B": 3, "C": 3, "D": 0}
    game = placing(summarised({"seats": names, "winners": [], "pieces_home": home}))
    assert game is not None and game.places == [3, 1, 1, 4]
    won = placing(summarised({"seats": names, "winners": ["A"], "pieces_home": home}))
    assert won is not None and won.places == [1, 2, 2, 4]
    teams = {"seats": names, "winners": ["B", "D"], "pieces_home": home, "teams": [[0, 2], [1, 3]]}
    paired = placing(summarised(teams))
    assert paired is not None and paired.teams == [["A", "C"], ["B", "D"]]
    assert paired.places == [2, 1]


def test_unrated_games_and_a_name_at_two_seats_are_not_placed() -> None:
    home = {"A": 1, "B": 0}
    assert (
        placing(summarised({"seats": ["A", "B"], "winners": ["A"], "pieces_home": home}))
        is not None
    )
    unrated = {"seats": ["A", "B"], "winners": ["A"], "pieces_home": home, "rated": False}
    assert placing(summarised(unrated)) is None
    twice = {"seats": ["A", "A"], "winners": ["A"], "pieces_home": {"A": 1}}
    assert placing(summarised(twice)) is None
    own_partner = {**twice, "seats": ["A", "B", "A", "C"], "teams": [[0, 2], [1, 3]]}
    assert placing(summarised(own_partner)) is None


def test_ratings_rebuilt_from_the_logs_equal_the_kept_ones(
    api: TestClient[Any], settings: Settings
) -> None:
    names = ["Ann", "Bob", "Cal", "Dee", "Eve", "Fay"]
    for n in range(12):  # read after each game, so the kept ratings are folded a game at a time
        players = [names[(n + k * (1 + n % 2)) % 6] for k in range(2 + n % 3)]
        race(api, players, f"season-{n}", rated=n % 5 != 3)
        board(api, "race35")
        if n % 4 == 0:
            agreed(api, "partners", names[n % 2 : n % 2 + 4], [n % 2, n % 2 + 2])
            board(api, "partners")
    reopen_and_finish_again(api)
    kept = {ruleset: api.get("/ratings", params={"ruleset": ruleset}).json() for ruleset in RULES}
    done = subprocess.run(
        [sys.executable, "-m", "service", "rebuild-ratings", "--database", settings.database],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rebuilt = [json.loads(line) for line in done.stdout.splitlines()]
    assert {row["ruleset"]: row for row in rebuilt} == kept
    assert all(kept[ruleset]["ratings"] for ruleset in ("race35", "partners", "sorry"))


RULES = ["ludo", "parchis", "parchis-2dice", "partners", "race35", "sorry", "sorry-hand"]


def test_a_player_is_found_whatever_characters_the_name_holds(api: TestClient[Any]) -> None:
    names = ["A/C", "Zoë ?#"]
    race(api, names, "odd names")
    for name in names:
        reply = api.get("/players/" + quote(name, safe=""))
        assert reply.status_code == 200, (name, reply.text)
        assert reply.json()["name"] == name
        assert reply.json()["rulesets"][0]["rating"]["games"] == 1

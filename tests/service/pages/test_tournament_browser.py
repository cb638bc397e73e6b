"""Tournaments in the lobby and on their own page, end to end in headless Chromium (issue 20,
item 6): a tournament created from the lobby, its round paired by the director's link, its
tables followed to a game's viewer and a player's link to their table; once the games (played
through the API) finish, the page's standings are the API's; axe finds no serious or critical
violation on the page, at 1280 and 390 px wide (screenshots in ``tests/artifacts/``)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.service.browser import PHONE, WIDE, Axe, Page, browser, person, url  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser


ARTIFACTS = Path(__file__).parents[2] / "artifacts"
NAMES = ["Ann", "Bob", "Cat", "Dan"]
QUICK = {"special_squares": {}}  # race35 without special squares: short games


def token_of(link: str) -> str:
    return link.split("#token=")[1].split("&")[0]


def play_out(url: str, game_id: str, tokens: list[str]) -> None:
    """Random legal moves of whoever is to act until the game ends."""
    rng = random.Random(game_id)
    with httpx.Client(base_url=url, timeout=10) as http:
        for _ in range(5000):
            state = http.get(f"/games/{game_id}").json()
            if state["status"] == "finished":
                return
            seat = state["to_act"][0]["seat"]
            headers = {"Authorization": f"Bearer {tokens[seat]}"}
            moves = http.get(f"/games/{game_id}/legal-moves", headers=headers).json()["moves"]
            body = {"move": rng.choice(moves)["id"]}
            reply = http.post(f"/games/{game_id}/moves", json=body, headers=headers)
            assert reply.status_code == 200, reply.text
    raise AssertionError(f"game {game_id} did not end")


def create_in_lobby(page: Page) -> dict[str, str]:
    """Fill the lobby's tournament form (race35, one Swiss round of four at tables of two):
    the links it shows, by whose they are."""
    page.wait_for_selector("#tournament-form #t-ruleset option", state="attached")
    page.fill("#t-name", "Browser cup")
    page.select_option("#t-ruleset", "race35")
    page.select_option("#t-format", "swiss")
    page.fill("#t-rounds", "1")
    page.fill("#t-seats", "2")
    page.fill("#t-players", "\n".join(NAMES))
    page.click("#create-tournament")
    page.wait_for_selector("#tournament-links")
    links = {"director": page.locator("#tournament-director").get_attribute("href") or ""}
    for i, name in enumerate(NAMES):
        links[name] = page.locator(f"#tournament-player-{i}").get_attribute("href") or ""
    return links


def page_standings(page: Page) -> list[list[str]]:
    rows = page.locator("#standings tbody tr")
    return [rows.nth(i).locator("th, td").all_inner_texts() for i in range(rows.count())]


def api_standings(url: str, tournament_id: str) -> list[list[str]]:
    rows = httpx.get(f"{url}/tournaments/{tournament_id}/standings").json()["standings"]
    keys = ("rank", "name", "points", "games", "wins", "byes", "pieces_home", "opponents_points")
    return [[str(row[key]) for key in keys] for row in rows]


def test_a_tournament_from_the_lobby_is_paired_played_and_its_standings_shown(
    url: str, person: Any
) -> None:
    lobby = person(f"{url}/")
    links = create_in_lobby(lobby)
    tournament_id = links["director"].split("/tournaments/")[1].split("/")[0]
    assert all(token_of(links[name]) for name in NAMES)
    lobby.wait_for_selector(f"#tournaments-list a[href$='/tournaments/{tournament_id}/view']")

    director = person(links["director"])
    assert "#" not in director.url  # the token left the address bar
    director.wait_for_selector("#pair-round:not([disabled])")
    for _ in range(5):  # the keyboard alone: Tab to the button, Enter pairs
        director.keyboard.press("Tab")
        if director.evaluate("document.activeElement.id") == "pair-round":
            break
    director.keyboard.press("Enter")
    director.wait_for_selector(".tournament-table >> nth=1")
    director.wait_for_function("document.activeElement.id === 'round-1'")  # the new round
    assert director.locator("#pair-round").is_disabled()  # the round is in play
    shown = httpx.get(f"{url}/tournaments/{tournament_id}").json()
    tables = shown["rounds"][0]["tables"]
    for table in tables:
        seats = director.locator(
            f".tournament-table[data-table='{table['table']}'] .table-seats li"
        )
        assert seats.all_inner_texts() == table["seats"]

    ann = person(links["Ann"])
    ann.wait_for_selector("#my-table-link")
    (mine,) = [t for t in tables if "Ann" in t["seats"]]
    play = ann.locator("#my-table-link").get_attribute("href") or ""
    assert play.startswith(f"/games/{mine['game_id']}/play#token=")
    assert token_of(play) == token_of(links["Ann"])
    assert play.endswith(f"&seat={mine['seats'].index('Ann')}")

    for table in tables:
        play_out(url, table["game_id"], [token_of(links[name]) for name in table["seats"]])
    director.wait_for_selector("#refresh:has-text('finished')", timeout=15_000)
    assert page_standings(director) == api_standings(url, tournament_id)
    rows = page_standings(director)
    assert sorted(row[1] for row in rows) == NAMES and all(row[3] == "1" for row in rows)

    director.click(".tournament-table[data-table='1'] a")
    director.wait_for_url(f"**/games/{tables[0]['game_id']}/view")
    director.wait_for_selector("#seats li")
    assert director.locator("#seats .name").all_inner_texts() == tables[0]["seats"]


def serious(page: Page) -> list[str]:
    """axe's serious and critical violations on the page, each with where it was found."""
    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def test_the_tournament_page_passes_axe_and_fits_a_phone(url: str, person: Any) -> None:
    body = {
        "name": "Axe open",
        "ruleset": "race35",
        "rounds": 2,
        "seats_per_table": 3,
        "options": QUICK,
        "players": [{"name": f"Player {i}"} for i in range(7)],
    }
    created = httpx.post(f"{url}/tournaments", json=body).json()
    director = {"Authorization": f"Bearer {created['tokens']['director']}"}
    httpx.post(f"{url}/tournaments/{created['id']}/rounds", json={}, headers=director)
    page = f"{url}/tournaments/{created['id']}/view"
    player = created["tokens"]["players"][0]["token"]
    ARTIFACTS.mkdir(exist_ok=True)
    for viewport, label in ((WIDE, "1280"), (PHONE, "390")):
        for who, address in (
            ("director", f"{page}#token={created['tokens']['director']}&as=director"),
            ("player", f"{page}#token={player}&as=player"),
        ):
            shown = person(address, viewport)
            shown.wait_for_selector(".tournament-table")
            shown.wait_for_selector("#director:not([hidden]), #my-table-link")
            assert shown.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            assert not serious(shown), serious(shown)
            shown.screenshot(path=str(ARTIFACTS / f"tournament-{who}-{label}.png"), full_page=True)
    assert httpx.get(f"{url}/tournaments/nope/view").status_code == 404


def test_a_line_with_a_level_in_brackets_enters_a_computer_player_in_the_lobby(
    url: str, person: Any
) -> None:
    lobby = person(f"{url}/")
    lobby.wait_for_selector("#tournament-form #t-ruleset option", state="attached")
    assert "[expert]" in lobby.locator("#t-players-help").inner_text()
    lobby.select_option("#t-ruleset", "race35")
    lobby.fill("#t-seats", "2")
    lobby.fill("#t-players", "Ann\nBob\nCat\nRobin [expert]")
    lobby.click("#create-tournament")
    lobby.wait_for_selector("#tournament-links")
    shown = lobby.locator("#tournament-links a[id^='tournament-player-']").all_inner_texts()
    assert len(shown) == 3 and not any("Robin" in text for text in shown)  # no link for a bot
    director = lobby.locator("#tournament-director").get_attribute("href") or ""
    tournament_id = director.split("/tournaments/")[1].split("/")[0]
    headers = {"Authorization": f"Bearer {token_of(director)}"}
    record = httpx.get(f"{url}/tournaments/{tournament_id}/record", headers=headers).json()
    created = record["events"][0]["data"]
    assert created["bots"] == {"Robin": "expert"}
    assert [
        p["name"] for p in httpx.get(f"{url}/tournaments/{tournament_id}").json()["players"]
    ] == [
        "Ann",
        "Bob",
        "Cat",
        "Robin",
    ]

"""The viewer page end to end in headless Chromium (Debian's ``chromium``, driven by Playwright).

The real app is served by uvicorn. Without Debian's Chromium the test is skipped with a
message, so ``make test`` works on a bare machine; ``.ci/run`` installs Chromium and sets
``TABULA_REQUIRE_BROWSER=1``, which turns a missing browser into a failure. Set
``TABULA_SKIP_BROWSER=1`` to skip it even where Chromium is installed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.service.browser import Page, chromium, url  # noqa: F401 (fixtures)
from tests.waiting import wait_until

PIECES = "els => Object.fromEntries(els.map(e => [e.dataset.piece, e.dataset.at]))"

pytestmark = pytest.mark.browser


@pytest.fixture
def page() -> Iterator[Page]:
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1100, "height": 760})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
    assert not errors, errors


def play(url: str, ruleset: str, players: int, moves: int, seed: int = 1) -> dict[str, Any]:
    """A game played by random legal moves, ``moves`` times or to its end; its creation reply."""
    rng = random.Random(seed)
    with httpx.Client(base_url=url, timeout=10) as http:
        body = {"ruleset": ruleset, "seats": [{}] * players, "auto_chance": True}
        created: dict[str, Any] = http.post("/games", json=body).json()
        for _ in range(moves):
            if not move(http, created, rng):
                break
    return created


def move(http: httpx.Client, created: dict[str, Any], rng: random.Random) -> bool:
    """One random legal move of a pending seat; False once the game has finished."""
    game = created["id"]
    state = http.get(f"/games/{game}").json()
    if state["status"] == "finished":
        return False
    seat = rng.choice(state["to_act"])["seat"]
    token = {"Authorization": f"Bearer {created['tokens']['seats'][seat]}"}
    moves = http.get(f"/games/{game}/legal-moves", headers=token).json()["moves"]
    reply = http.post(f"/games/{game}/moves", json={"move": rng.choice(moves)["id"]}, headers=token)
    assert reply.status_code == 200, reply.text
    return True


def version_of(url: str, game: str) -> int:
    """A game's current version."""
    version: int = httpx.get(f"{url}/games/{game}").json()["version"]
    return version


def shows(page: Page, version: int) -> dict[str, str]:
    """Wait until the board shows ``version``; its pieces' positions by id."""
    page.wait_for_selector(f'#board[data-version="{version}"] svg .piece', timeout=10_000)
    pieces: dict[str, str] = page.eval_on_selector_all("#board .piece", PIECES)
    return pieces


def screenshot(page: Page, tmp_path: Path, name: str, record_property: Any) -> None:
    """Save the page as a PNG in the test's folder and report where."""
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    record_property("screenshot", str(path))
    print(f"screenshot: {path}")


@pytest.mark.parametrize(
    ("ruleset", "players"), [("race35", 2), pytest.param("sorry", 2, marks=pytest.mark.slow)]
)
def test_viewer_steps_through_a_finished_game(
    url: str, page: Page, tmp_path: Path, record_property: Any, ruleset: str, players: int
) -> None:
    created = play(url, ruleset, players, moves=5000)
    game, last = created["id"], version_of(url, created["id"])
    page.goto(f"{url}/games/{game}/view")
    at_end = shows(page, last)
    assert page.locator("#moves li").count() == last
    assert "finished" in page.inner_text("#status")
    page.click("#first")
    at_start = shows(page, 1)
    assert at_start.keys() == at_end.keys() and at_start != at_end
    shown, pieces = 1, at_start
    while pieces == at_start and shown < last:
        page.click("#next")
        shown += 1
        pieces = shows(page, shown)
    assert pieces != at_start, "stepping through the game never moved a piece"
    page.click("#prev")
    shows(page, shown - 1)
    middle = last // 2
    page.eval_on_selector("#slider", "(s, v) => { s.value = v; s.oninput(); }", middle)
    shows(page, middle)
    assert page.locator("#moves li.current").get_attribute("data-version") == str(middle)
    page.click("#last")
    assert shows(page, last) == at_end
    screenshot(page, tmp_path, f"viewer-{ruleset}", record_property)


def test_viewer_follows_a_live_game(
    url: str, page: Page, tmp_path: Path, record_property: Any
) -> None:
    created = play(url, "sorry", 2, moves=3)
    page.goto(f"{url}/games/{created['id']}/view")
    shows(page, version_of(url, created["id"]))
    rng = random.Random(7)
    with httpx.Client(base_url=url, timeout=10) as http:
        for _ in range(3):
            move(http, created, rng)
    now = version_of(url, created["id"])
    shows(page, now)
    assert page.locator("#moves li").count() == now
    screenshot(page, tmp_path, "viewer-live", record_property)


def test_viewer_of_a_delayed_game_follows_it_behind_live(url: str, page: Page) -> None:
    rng = random.Random(3)
    with httpx.Client(base_url=url, timeout=10) as http:
        body = {"ruleset": "sorry", "seats": [{}, {}], "auto_chance": True}
        created = http.post("/games", json={**body, "spectator_delay": {"moves": 2}}).json()
        game, referee = created["id"], {"Authorization": f"Bearer {created['tokens']['referee']}"}

        def play_moves(count: int) -> int:
            """``count`` random moves, chosen from the referee's live view; the version then."""
            for _ in range(count):
                state = http.get(f"/games/{game}", headers=referee).json()
                seat = rng.choice(state["to_act"])["seat"]
                token = {"Authorization": f"Bearer {created['tokens']['seats'][seat]}"}
                moves = http.get(f"/games/{game}/legal-moves", headers=token).json()["moves"]
                reply = http.post(
                    f"/games/{game}/moves", json={"move": moves[0]["id"]}, headers=token
                )
                assert reply.status_code == 200, reply.text
            live: int = http.get(f"/games/{game}", headers=referee).json()["version"]
            return live

        live = play_moves(4)
        page.goto(f"{url}/games/{game}/view")
        behind = version_of(url, game)
        assert behind < live
        shows(page, behind)
        assert page.locator("#moves li").count() == behind
        live = play_moves(3)
        caught_up = version_of(url, game)
        assert behind < caught_up < live
        shows(page, caught_up)
        assert page.locator("#moves li").count() == caught_up


def test_viewer_names_the_players_and_lists_every_event_type(
    url: str, page: Page, tmp_path: Path, record_property: Any
) -> None:
    with httpx.Client(base_url=url, timeout=10) as http:
        seats = [{"name": "Ann"}, {"name": "Bob"}]
        clock = {"per_decision": 0.3, "on_timeout": "pass"}
        created = http.post("/games", json={"ruleset": "race35", "seats": seats, "clock": clock})
        game, referee = created.json()["id"], created.json()["tokens"]["referee"]

        def log() -> list[dict[str, Any]]:
            events: list[dict[str, Any]] = http.get(f"/games/{game}/events").json()["events"]
            return events

        wait_until(lambda: any(e["type"] == "TimeExpired" for e in log()), timeout=10)
        body = {"kind": "penalty", "reason": "slow play", "seat": 1}
        headers = {"Authorization": f"Bearer {referee}"}
        adjudicated = http.post(f"/games/{game}/adjudicate", json=body, headers=headers)
        assert adjudicated.status_code == 200, adjudicated.text
        # No clock may run out while the page is read: the game ends by a forfeit.
        body = {"kind": "forfeit", "reason": "left the table", "seat": 1}
        http.post(f"/games/{game}/adjudicate", json=body, headers=headers)
        events = log()
    page.goto(f"{url}/games/{game}/view")
    shows(page, events[-1]["version"])
    items = page.locator("#moves li")
    assert items.count() == len(events)
    assert items.evaluate_all("els => els.map(e => e.dataset.type)") == [e["type"] for e in events]
    text = page.inner_text("#moves")
    assert "Ann ran out of time" in text
    assert "referee's penalty for Bob: slow play" in text
    assert "seat 0" not in text and "seat 1" not in text
    assert "Ann" in page.inner_text("#seats") and "(blue)" in page.inner_text("#seats")
    assert "Game over" in page.inner_text("#turn")
    page.click("#first")
    shows(page, 1)
    assert page.inner_text("#turn") == "Ann must roll the dice."
    screenshot(page, tmp_path, "viewer-events", record_property)

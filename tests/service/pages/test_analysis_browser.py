"""The analysis under the viewer's board, in headless Chromium: every seat's line in its
colour and named, the same figures as a table for screen readers, the version shown marked, a
click on the chart going to that version, costly decisions marked, each seat's luck and skill;
and the play page's "analyse this game" once the game is over. Screenshots at 1280 and 390 px
go to ``tests/artifacts/``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.service.browser import PHONE, WIDE, Axe, Page, browser, person, url  # noqa: F401 (fixtures)
from tests.waiting import wait_until

pytestmark = pytest.mark.browser


ARTIFACTS = Path(__file__).parents[2] / "artifacts"


@pytest.fixture(scope="module")
def game(url: str) -> dict[str, Any]:
    """A finished three-seat sorry game of random legal moves, and its analysis."""
    rng = random.Random(7)
    with httpx.Client(base_url=url, timeout=30) as http:
        seats = [{"name": name} for name in ("Ann", "Bo", "Cy")]
        body = {"ruleset": "sorry", "seats": seats, "auto_chance": True, "seed": "chart-7"}
        created: dict[str, Any] = http.post("/games", json=body).json()
        for _ in range(5000):
            state = http.get(f"/games/{created['id']}").json()
            if state["status"] == "finished":
                break
            seat = rng.choice(state["to_act"])["seat"]
            token = {"Authorization": f"Bearer {created['tokens']['seats'][seat]}"}
            moves = http.get(f"/games/{created['id']}/legal-moves", headers=token).json()
            move = {"move": rng.choice(moves["moves"])["id"]}
            assert http.post(f"/games/{created['id']}/moves", json=move, headers=token).is_success

        def analysed() -> Any:
            reply = http.get(f"/games/{created['id']}/analysis")
            return reply.json() if reply.status_code == 200 else None

        analysis = wait_until(
            analysed, timeout=60, message="the analysis did not finish", interval=0.1
        )
    return {**created, "analysis": analysis, "state": state}


def ready(page: Page) -> None:
    page.wait_for_selector('#analysis[data-ready="true"]', timeout=60_000)


def serious(page: Page) -> list[str]:
    """axe's serious and critical violations on the page."""
    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def test_the_chart_shows_every_seats_chances_coloured_named_and_as_a_table(
    url: str, game: dict[str, Any], person: Any
) -> None:
    analysis, seats = game["analysis"], game["state"]["seats"]
    page = person(f"{url}/games/{game['id']}/view#analysis")
    ready(page)
    for seat in seats:
        line = page.locator(f'#chart polyline[data-seat="{seat["seat"]}"]')
        assert f"colour-{seat['colour']}" in (line.get_attribute("class") or "")
        points = (line.get_attribute("points") or "").split()
        assert len(points) == len(analysis["positions"])
        tag = f'#chart g.tag[data-seat="{seat["seat"]}"] text'
        assert page.text_content(tag) == seat["name"]
    assert page.get_attribute("#chart svg", "role") == "img"
    assert page.get_attribute("#chart svg", "aria-label")
    headers = page.locator("#chart-table thead th").all_inner_texts()
    assert headers[1:] == [seat["name"] for seat in seats]
    rows = page.locator("#chart-table tbody tr")
    assert rows.count() == len(analysis["positions"])
    first = analysis["positions"][0]
    assert rows.first.locator("th").inner_text() == str(first["version"])
    shown = rows.first.locator("td").all_inner_texts()
    assert [int(cell.rstrip("%")) for cell in shown] == [round(c * 100) for c in first["chances"]]
    costly = [d for d in analysis["decisions"] if d.get("label") in ("mistake", "blunder")]
    assert page.locator("#chart circle.costly").count() == len(costly)
    summary = page.locator("#analysis-summary li")
    assert summary.count() == len(seats)
    assert all(
        seat["name"] in text for seat, text in zip(seats, summary.all_inner_texts(), strict=True)
    )
    assert "analysis." not in page.inner_text("#analysis"), "a message key shows untranslated"
    assert serious(page) == []


def test_the_chart_marks_the_version_shown_and_a_click_goes_to_its_version(
    url: str, game: dict[str, Any], person: Any
) -> None:
    last = game["state"]["version"]
    page = person(f"{url}/games/{game['id']}/view")
    ready(page)
    assert page.get_attribute("#chart svg", "data-version") == str(last)
    at_end = page.get_attribute("#chart-now", "x1")
    page.click("#first")
    page.wait_for_selector('#board[data-version="1"]')
    assert page.get_attribute("#chart svg", "data-version") == "1"
    assert page.get_attribute("#chart-now", "x1") != at_end
    box = page.locator("#chart svg").bounding_box()
    assert box is not None
    middle = {"x": box["width"] * 0.45, "y": box["height"] / 2}
    page.locator("#chart svg").click(position=middle)  # type: ignore[arg-type]
    page.wait_for_function(
        "() => +document.querySelector('#board').dataset.version > 1"
        " && document.querySelector('#chart svg').dataset.version"
        " === document.querySelector('#board').dataset.version"
    )
    version = int(page.get_attribute("#board", "data-version") or 0)
    assert 1 < version < last, "a click in the chart's middle goes to a version in the middle"
    assert page.locator("#moves li.current").get_attribute("data-version") == str(version)


@pytest.mark.parametrize(("name", "viewport"), [("1280", WIDE), ("390", PHONE)])
def test_the_chart_fits_the_screen(
    url: str, game: dict[str, Any], person: Any, name: str, viewport: dict[str, int]
) -> None:
    page = person(f"{url}/games/{game['id']}/view#analysis", viewport)
    ready(page)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= viewport["width"], "the page scrolls sideways"
    box = page.locator("#chart svg").bounding_box()
    assert box is not None and box["width"] <= viewport["width"]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"analysis-chart-{name}.png"), full_page=True)


def test_the_play_page_offers_analyse_this_game_once_it_is_over(
    url: str, game: dict[str, Any], person: Any
) -> None:
    token = game["tokens"]["seats"][0]
    page = person(f"{url}/games/{game['id']}/play#token={token}")
    page.wait_for_selector('body[data-status="finished"]')
    link = page.locator("#analyse-link")
    assert link.is_visible()
    assert link.get_attribute("href") == f"/games/{game['id']}/view#analysis"
    with httpx.Client(base_url=url) as http:
        body = {"ruleset": "sorry", "seats": [{"name": "Di"}, {"name": "Ed"}]}
        running = http.post("/games", json=body).json()
    other = person(f"{url}/games/{running['id']}/play#token={running['tokens']['seats'][0]}")
    other.wait_for_selector('body[data-status="active"]')
    assert not other.locator("#analyse-link").is_visible()

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

from tests.service.browser import PHONE, WIDE, Axe, Browser, Page, browser, person, url  # noqa: F401 (fixtures)
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
    page.locator("#chart svg").click(position=middle)
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


LOCALES = {"en": "en-GB", "es": "es-ES"}


def phone_or_desk(browser: Browser, address: str, viewport: dict[str, int], lang: str) -> Page:
    """The page in a browser context of its own, at ``viewport`` (a touch screen at 390 px)
    and in ``lang``."""
    touch = viewport["width"] < 600
    context = browser.new_context(
        viewport=viewport,  # type: ignore[arg-type]
        has_touch=touch,
        is_mobile=touch,
        locale=LOCALES[lang],
    )
    page = context.new_page()
    page.goto(address)
    return page


SMALLEST_TEXT = """() => {
  const sizes = [];
  for (const node of document.querySelectorAll('#analysis *')) {
    const own = [...node.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim());
    if (!own || !node.getClientRects().length) continue;
    if (node.closest('.visually-hidden') || node.closest('title')) continue;
    const css = parseFloat(getComputedStyle(node).fontSize);
    const scale = node instanceof SVGElement ? node.ownerSVGElement.getScreenCTM().a : 1;
    sizes.push([css * scale, node.textContent.trim().slice(0, 30)]);
  }
  return sizes.sort((a, b) => a[0] - b[0]);
}"""

CLIPPED = """() => {
  const svg = document.querySelector('#chart svg').getBoundingClientRect();
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const text of document.querySelectorAll('#chart svg text')) {
    const box = text.getBoundingClientRect();
    const inside = box.left >= svg.left - 0.5 && box.right <= svg.right + 0.5
      && box.top >= svg.top - 0.5 && box.bottom <= svg.bottom + 0.5;
    if (!inside || box.left < 0 || box.right > width) {
      out.push([text.textContent, box.left - svg.left, svg.right - box.right]);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_text_of_the_analysis_is_at_least_12_px_on_a_phone(
    url: str, game: dict[str, Any], browser: Browser, lang: str
) -> None:
    page = phone_or_desk(browser, f"{url}/games/{game['id']}/view#analysis", PHONE, lang)
    ready(page)
    sizes = page.evaluate(SMALLEST_TEXT)
    assert any(text.replace("\xa0", " ") in ("100 %", "100%") for _, text in sizes), "the axis"
    assert sizes[0][0] >= 12, sizes[:5]
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1280", "390"])
def test_no_text_of_the_chart_is_clipped(
    url: str, game: dict[str, Any], browser: Browser, lang: str, viewport: dict[str, int]
) -> None:
    page = phone_or_desk(browser, f"{url}/games/{game['id']}/view#analysis", viewport, lang)
    ready(page)
    clipped = page.evaluate(CLIPPED)
    assert clipped == []
    page.context.close()


def test_a_tap_on_a_costly_mark_explains_it_beside_the_chart(
    url: str, game: dict[str, Any], browser: Browser
) -> None:
    analysis, seats = game["analysis"], game["state"]["seats"]
    page = phone_or_desk(browser, f"{url}/games/{game['id']}/view#analysis", PHONE, "en")
    ready(page)
    costly = [d for d in analysis["decisions"] if d.get("label") in ("mistake", "blunder")]
    decision = costly[len(costly) // 2]
    mark = page.locator(f'#chart circle.costly[data-version="{decision["version"]}"]').first
    mark.scroll_into_view_if_needed()
    box = mark.bounding_box()
    assert box is not None
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    note = page.locator("#chart-note")
    page.wait_for_function(
        "v => document.getElementById('chart-note')?.dataset.version === String(v)",
        arg=decision["version"],
    )
    assert note.is_visible()
    said = note.inner_text()
    name = next(s["name"] for s in seats if s["seat"] == decision["seat"])
    assert name in said and f"a {decision['label']}" in said and "points" in said, said
    page.wait_for_selector(f'#board[data-version="{decision["version"]}"]')
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#analysis").screenshot(path=str(ARTIFACTS / "analysis-chart-tap-390.png"))
    page.context.close()


def test_a_legend_explains_the_marks_and_the_totals_say_what_a_point_is(
    url: str, game: dict[str, Any], person: Any
) -> None:
    page = person(f"{url}/games/{game['id']}/view#analysis", PHONE)
    ready(page)
    legend = page.locator("#chart-legend")
    assert legend.is_visible()
    said = legend.inner_text()
    assert "mistake" in said and "blunder" in said, said
    assert legend.locator("svg circle.costly.mistake").count() == 1
    assert legend.locator("svg circle.costly.blunder").count() == 1
    units = page.locator("#analysis-units")
    assert units.is_visible()
    assert "percentage point" in units.inner_text() and "chance of winning" in units.inner_text()
    summary = page.locator("#analysis-summary")
    units_box, summary_box = units.bounding_box(), summary.bounding_box()
    assert units_box is not None and summary_box is not None
    assert abs(units_box["y"] - (summary_box["y"] + summary_box["height"])) < 80, (
        "beside the totals"
    )

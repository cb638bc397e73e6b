"""Small things a person meets in headless Chromium: seats are numbered from 1 everywhere a
person reads them (the lobby's seat options send the wire's number from 0), the seat's name
box keeps its height when the help of a computer level appears beside it, no page load meets
a 404 (the icon is served), and the pages' words agree with the language's word for a piece
(a piece sent back is *devuelta* in Spanish)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.service.browser import PHONE, WIDE, Browser, Page, browser, url  # noqa: F401 (fixtures)
from tests.service.pages.test_languages_browser import open_as

pytestmark = pytest.mark.browser


def lobby(browser: Browser, url: str, viewport: dict[str, int], locale: str = "en-GB") -> Page:
    page = open_as(browser, f"{url}/", locale, viewport)
    page.wait_for_selector("body[data-ready='true'] #create-form #seats input")
    return page


def height(page: Page, selector: str) -> float:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return float(box["height"])


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1280", "390"])
def test_the_seat_name_box_keeps_its_height_when_the_bots_help_appears(
    browser: Browser, url: str, viewport: dict[str, int]
) -> None:
    page = lobby(browser, url, viewport)
    page.click('button[data-choose="sorry"]')
    before = height(page, "#seat-1")
    assert page.inner_text("#seat-1-meaning") == ""
    page.select_option("#seat-1-bot", "expert")
    assert page.inner_text("#seat-1-meaning") != ""
    assert height(page, "#seat-1") == before
    page.context.close()


def test_the_lobby_numbers_the_first_player_from_1_and_sends_the_wires_number(
    browser: Browser, url: str
) -> None:
    page = lobby(browser, url, WIDE)
    page.click('button[data-choose="sorry"]')
    first = page.locator("#option-first_player")
    assert first.input_value() == "1" and first.get_attribute("min") == "1"
    assert page.inner_text("label[for='seat-0'] span") == "Seat 1: name"
    first.fill("2")
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/games")) as sent:
        page.click("#create-game")
    body: dict[str, Any] = json.loads(sent.value.post_data or "{}")
    assert body["options"]["first_player"] == 1
    page.context.close()


def test_loading_the_pages_meets_no_404(browser: Browser, url: str) -> None:
    context = browser.new_context(viewport=WIDE)  # type: ignore[arg-type]
    page = context.new_page()
    missing: list[str] = []
    icons: list[int] = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    page.on("response", lambda r: icons.append(r.status) if "favicon" in r.url else None)
    page.goto(f"{url}/")
    page.wait_for_selector("body[data-ready='true'] #create-form #seats input")
    page.wait_for_function("() => [...document.images].every((i) => i.complete)")
    assert missing == []
    context.close()
    assert icons and all(status == 200 for status in icons), icons


SENT_BACK = {
    "piece": "blue-1",
    "seat": 1,
    "uses": "8",
    "steps": [{"piece": "red-2", "from": "track:10", "to": "track:18"}],
    "effects": [
        {"piece": "blue-1", "from": "track:18", "to": "start:blue", "why": "bumped by red-2"}
    ],
    "move": "8:red-2",
}
"""A move whose effect sends a piece back to its start, as a MovePlayed event's data."""


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        ("es-ES", "Ficha azul 1 va a la salida: devuelta a la salida por la ficha roja 2"),
        ("fr-FR", "pion bleu 1 va en case départ : renvoyé au départ par le pion rouge 2"),
        ("de-DE", "blaue Figur 1 kommt auf Start: rote Figur 2 schlägt sie zurück auf den Start"),
    ],
)
def test_a_piece_sent_back_is_told_in_words_that_agree_with_it(
    browser: Browser, url: str, locale: str, expected: str
) -> None:
    page = lobby(browser, url, WIDE, locale)
    said = page.evaluate(
        "async (move) => (await import('/static/words.js')).describeMove(move)", SENT_BACK
    )
    assert expected.casefold() in said.casefold(), said
    unknown = page.evaluate("async () => (await import('/static/words.js')).seatName([], 0)")
    assert unknown.endswith(" 1"), unknown
    page.context.close()

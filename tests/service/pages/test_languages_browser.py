"""The pages in six languages in headless Chromium: the message formatter (plurals, selects,
placeholders), the language taken from the browser's (Accept-Language, navigator.languages),
a picker that overrides it and is remembered, and the play page of every rule set in each
language with no English catalogue string left, nothing wider than a phone, and no serious
or critical axe violation. Screenshots at 390 and 1280 px go to ``tests/artifacts/``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from domain.registry import RULESETS
from tests.service.browser import PHONE, WIDE, Axe, Browser, Page, browser, url  # noqa: F401 (fixtures)
from tests.service.message_formats import FORMATS, GROUPED

pytestmark = pytest.mark.browser


STATIC = Path(__file__).parents[3] / "service" / "static"
ARTIFACTS = Path(__file__).parents[2] / "artifacts"
LANGUAGES = ("en", "es", "nl", "da", "de", "fr")
ENGLISH: dict[str, str] = json.loads((STATIC / "i18n" / "en.json").read_text())


def open_as(browser: Browser, address: str, locale: str, viewport: dict[str, int] = WIDE) -> Page:
    context = browser.new_context(locale=locale, viewport=viewport)  # type: ignore[arg-type]
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(address)
    page.wait_for_function(
        "() => document.documentElement.lang && document.getElementById('language')"
    )
    assert not errors, errors
    return page


def test_the_formatter_fills_plurals_selects_and_placeholders(url: str, browser: Browser) -> None:
    body = {"ruleset": "race35", "seats": [{"name": "Ann"}, {"name": "Bob"}]}
    created = httpx.post(f"{url}/games", json=body).json()
    page = open_as(browser, f"{url}/games/{created['id']}/view", "en-GB")
    for message, params, lang, expected in [*FORMATS, GROUPED]:
        got = page.evaluate(
            "async ([m, p, l]) => (await import('/static/i18n.js')).render(m, p, l)",
            [message, params, lang],
        )
        assert got == expected, (message, params, lang)
    page.context.close()


def test_the_browser_language_is_followed_and_the_picked_one_remembered(
    url: str, browser: Browser
) -> None:
    created = httpx.post(
        f"{url}/games", json={"ruleset": "sorry", "seats": [{"name": "Ann"}, {"name": "Bob"}]}
    ).json()
    token = created["tokens"]["seats"][0]
    page = open_as(browser, f"{url}/games/{created['id']}/play#token={token}&seat=0", "de-AT")
    assert page.evaluate("document.documentElement.lang") == "de"
    assert page.inner_text("#account-heading") == "Was geschah"
    page.wait_for_selector("#actions button")
    assert page.inner_text("#actions button") == "Karte ziehen"
    page.select_option("#language", "es")
    page.wait_for_function("() => document.documentElement.lang === 'es'")
    page.wait_for_selector("#actions button")
    assert page.inner_text("#actions button") == "Robar una carta"
    assert page.inner_text("#account-heading") == "Qué ha pasado"
    page.context.close()


def english_fragments() -> set[str]:
    """The words of the English catalogue a person would read, without arguments: each run of
    literal text of 10 characters or more."""
    fragments: set[str] = set()
    for message in ENGLISH.values():
        literal = re.sub(r"\{[^{}]*\}", "\0", message)
        while "{" in literal:
            literal = re.sub(r"\{[^{}]*\}", "\0", literal)
        fragments |= {part.strip() for part in literal.split("\0") if len(part.strip()) >= 10}
    return fragments


def readable(page: Page) -> str:
    """What a person (or a screen reader) gets of the page: its text and its labels."""
    labels: list[str] = page.eval_on_selector_all(
        "[aria-label]", "els => els.map(e => e.getAttribute('aria-label'))"
    )
    return "\n".join([page.inner_text("body"), page.title(), *labels])


def serious(page: Page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def game_under_way(url: str, name: str) -> tuple[dict[str, Any], int]:
    """A game of rule set ``name`` a few moves in; its creation reply and the seat to act."""
    names = ["Ann", "Bob", "Cat", "Dan"][: max(2, RULESETS[name].MIN_PLAYERS)]
    body = {"ruleset": name, "seats": [{"name": n} for n in names], "seed": f"languages-{name}"}
    with httpx.Client(base_url=url, timeout=10) as http:
        created: dict[str, Any] = http.post("/games", json=body).json()
        for _ in range(6):
            state = http.get(f"/games/{created['id']}").json()
            seat = state["to_act"][0]["seat"]
            auth = {"Authorization": f"Bearer {created['tokens']['seats'][seat]}"}
            moves = http.get(f"/games/{created['id']}/legal-moves", headers=auth).json()["moves"]
            http.post(f"/games/{created['id']}/moves", json={"move": moves[0]["id"]}, headers=auth)
        seat = http.get(f"/games/{created['id']}").json()["to_act"][0]["seat"]
    return created, seat


def widths(index: int, lang: str) -> list[tuple[dict[str, int], str]]:
    """The phone's width for every rule set in every language, and the wide one for a third
    of the pairs, in turn: each rule set is seen wide in two languages and each language in
    two or three rule sets (the wide layout shows the same words, and each page costs a
    browser's load)."""
    wide = (index + LANGUAGES.index(lang)) % 3 == 0
    return [(PHONE, "390"), *([(WIDE, "1280")] if wide else [])]


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_play_page_of_every_rule_set_is_in_the_language_fits_a_phone_and_passes_axe(
    url: str, browser: Browser, lang: str
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    fragments = english_fragments()
    for index, name in enumerate(RULESETS):
        created, seat = game_under_way(url, name)
        token = created["tokens"]["seats"][seat]
        address = f"{url}/games/{created['id']}/play#token={token}&seat={seat}"
        for viewport, label in widths(index, lang):
            page = open_as(browser, address, lang, viewport)
            page.wait_for_function("() => document.getElementById('account').children.length > 6")
            assert page.evaluate("document.documentElement.lang") == lang
            titles = page.eval_on_selector_all("svg title", "ts => ts.map(t => t.textContent)")
            text = "\n".join([readable(page), *titles])
            left = sorted(f for f in fragments if f in text) if lang != "en" else []
            assert not left, (name, lang, left)
            title = page.inner_text("#title")
            assert name not in title.split(":")[0] or name in ("partners",), (name, title)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= viewport["width"], (name, lang, width)
            if label == "390":
                assert not serious(page), (name, lang, serious(page))
            page.screenshot(path=str(ARTIFACTS / f"play-{name}-{lang}-{label}.png"), full_page=True)
            page.context.close()

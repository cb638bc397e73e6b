"""The pages' words in headless Chromium: the tournament page (director's and player's) and
the viewer in each of the six languages hold no string of the English catalogue (names and ids
aside), fit a 390 px phone and pass axe; Partners through the card exchange shows card names,
the teams, the exchange said once, a swap explained where it is offered, and no internal card
or piece id anywhere a person or a screen reader reads; a tournament's game links back to it;
titles name the rule set as people do."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from tests.service.browser import PHONE, WIDE, Browser, Page, browser, url  # noqa: F401 (fixtures)
from tests.service.pages.test_languages_browser import (
    ENGLISH,
    LANGUAGES,
    STATIC,
    english_fragments,
    open_as,
    readable,
    serious,
)

pytestmark = pytest.mark.browser


CARD_IDS = re.compile(r"\b(BACK_4|ONE_14|START_8|START_13|SEVEN|SWAP|START|N\d{1,2})\b")
PIECE_IDS = re.compile(r"\b(red|blue|yellow|green)-\d\b")
DRAWN = (
    "^(id|class|href|style|type|viewBox|d|points|transform|src|for|lang|x|y|r|c[xy]|x[12]|y[12]"
    "|width|height|fill|stroke.*|font.*|text-anchor|ref[XY]|marker.*|orient|opacity|xmlns|role"
    "|tabindex|aria-(live|relevant|hidden)|value|min|max|hidden|focusable|disabled)$"
)
SEEN = """(drawn) => {
  const DRAWN = new RegExp(drawn);
  const said = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) said.push(walker.currentNode.textContent);
  for (const element of document.querySelectorAll('*')) {
    for (const a of element.attributes) {
      if (!a.name.startsWith('data-') && !DRAWN.test(a.name)) said.push(a.value);
    }
  }
  return said.join('\\n') + '\\n' + document.title;
}"""
"""Every text node and every attribute a person or a screen reader gets (ids, classes, data
attributes and drawing attributes aside)."""


def play(http: httpx.Client, game: dict[str, Any], seat: int, move: str) -> None:
    auth = {"Authorization": f"Bearer {game['tokens']['seats'][seat]}"}
    reply = http.post(f"/games/{game['id']}/moves", json={"move": move}, headers=auth)
    assert reply.status_code == 200, reply.text


def legal(http: httpx.Client, game: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    auth = {"Authorization": f"Bearer {game['tokens']['seats'][seat]}"}
    moves: list[dict[str, Any]] = http.get(f"/games/{game['id']}/legal-moves", headers=auth).json()[
        "moves"
    ]
    return moves


@pytest.fixture(scope="module")
def tournament(url: str) -> dict[str, Any]:
    """A race35 tournament of four at tables of two, its first round paired and one table a
    few moves in, the second finished."""
    body = {
        "name": "Spring Cup",
        "ruleset": "race35",
        "format": "swiss",
        "rounds": 2,
        "seats_per_table": 2,
        "options": {"special_squares": {}},
        "players": [{"name": n} for n in ("Ann", "Bob", "Cat", "Dan")],
    }
    with httpx.Client(base_url=url, timeout=10) as http:
        created: dict[str, Any] = http.post("/tournaments", json=body).json()
        director = {"Authorization": f"Bearer {created['tokens']['director']}"}
        paired = http.post(f"/tournaments/{created['id']}/rounds", json={}, headers=director)
        tokens = {p["name"]: p["token"] for p in created["tokens"]["players"]}
        for number, table in enumerate(paired.json()["round"]["tables"]):
            game = {
                "id": table["game_id"],
                "tokens": {"seats": [tokens[n] for n in table["seats"]]},
            }
            for _ in range(6 if number == 0 else 5000):
                state = http.get(f"/games/{game['id']}").json()
                if state["status"] == "finished":
                    break
                seat = state["to_act"][0]["seat"]
                play(http, game, seat, legal(http, game, seat)[0]["id"])
        created["tables"] = paired.json()["round"]["tables"]
    return created


def check_page(page: Page, lang: str, viewport: dict[str, int], where: str) -> None:
    """The page in ``lang``: no English catalogue string left (but in English), no wider
    than ``viewport``, and (on a phone) no serious or critical axe violation."""
    assert page.evaluate("document.documentElement.lang") == lang
    if lang != "en":
        titles = page.eval_on_selector_all("svg title", "ts => ts.map(t => t.textContent)")
        text = "\n".join([readable(page), *titles])
        left = sorted(f for f in english_fragments() if f in text)
        assert not left, (where, lang, left)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"], (where, lang, width)
    if viewport is PHONE:
        assert not serious(page), (where, lang, serious(page))


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_tournament_page_and_the_viewer_are_in_the_language_fit_a_phone_and_pass_axe(
    url: str, browser: Browser, tournament: dict[str, Any], lang: str
) -> None:
    tid = tournament["id"]
    player = tournament["tokens"]["players"][0]["token"]
    addresses = {
        "director": f"{url}/tournaments/{tid}/view#token={tournament['tokens']['director']}"
        "&as=director",
        "player": f"{url}/tournaments/{tid}/view#token={player}&as=player",
        "viewer": f"{url}/games/{tournament['tables'][0]['game_id']}/view",
        "finished": f"{url}/games/{tournament['tables'][1]['game_id']}/view",
    }
    for where, address in addresses.items():
        for viewport in (PHONE, WIDE):
            page = open_as(browser, address, lang, viewport)
            if where in ("director", "player"):
                page.wait_for_selector("#standings tbody tr")
                page.wait_for_selector("#my-table-link, #pair-status:not(:empty)")
            else:
                page.wait_for_selector("#board svg")
                page.wait_for_selector("#tournament-link:not([hidden])")
                back = page.get_attribute("#tournament-link", "href")
                assert back == f"/tournaments/{tid}/view"
                ruleset = page.evaluate(
                    "async () => (await import('/static/i18n.js')).t('ruleset.race35.title')"
                )
                assert page.inner_text("#title").startswith(ruleset)
                assert "race35" not in page.inner_text("#title")
            check_page(page, lang, viewport, where)
            page.context.close()


def partners_game(url: str) -> dict[str, Any]:
    body = {
        "ruleset": "partners",
        "seats": [{"name": n} for n in ("Ann", "Bob", "Cat", "Dan")],
        "seed": "words-partners",
    }
    with httpx.Client(base_url=url, timeout=10) as http:
        game: dict[str, Any] = http.post("/games", json=body).json()
        for _ in range(4):
            state = http.get(f"/games/{game['id']}").json()
            if state["phase"] == "exchange":
                return game
            seat = state["to_act"][0]["seat"]
            play(http, game, seat, legal(http, game, seat)[0]["id"])
    raise AssertionError("no exchange after the deal")


def seat_page(browser: Browser, url: str, game: dict[str, Any], seat: int, lang: str) -> Page:
    token = game["tokens"]["seats"][seat]
    page = open_as(browser, f"{url}/games/{game['id']}/play#token={token}&seat={seat}", lang, PHONE)
    page.wait_for_selector("#teams li")
    page.wait_for_function("() => document.getElementById('account').children.length > 1")
    return page


def speaker(page: Page) -> Any:
    """The page's message of a key, filled in: ``say("teams.you", partner="Cat")``."""

    def say(key: str, **params: Any) -> str:
        text: str = page.evaluate(
            "async ([k, p]) => (await import('/static/i18n.js')).t(k, p)", [key, params]
        )
        return text

    return say


def no_internal_ids(page: Page) -> None:
    seen = page.evaluate(SEEN, DRAWN)
    assert not CARD_IDS.findall(seen), CARD_IDS.findall(seen)
    assert not PIECE_IDS.findall(seen), PIECE_IDS.findall(seen)


@pytest.mark.parametrize("lang", ["en", "da"])
def test_partners_through_the_exchange_says_cards_by_name_and_teams_once(
    url: str, browser: Browser, lang: str
) -> None:
    game = partners_game(url)
    with httpx.Client(base_url=url, timeout=10) as http:
        state = http.get(f"/games/{game['id']}").json()
    names = {s["seat"]: s["name"] for s in state["seats"]}
    for seat in range(4):
        page = seat_page(browser, url, game, seat, lang)
        say = speaker(page)
        partner = next(s for team in state["teams"] if seat in team for s in team if s != seat)
        teams = page.locator("#teams li").all_inner_texts()
        assert len(teams) == 2 and any(say("teams.you", partner=names[partner]) in t for t in teams)
        others = [s for s in range(4) if s not in (seat, partner)]
        together = say("teams.together", first=names[others[0]], second=names[others[1]])
        assert any(together in t for t in teams), (teams, together)
        assert page.inner_text("#turn") == say("turn.exchangeYou", partner=names[partner])
        exchange = say("todo.exchange")
        assert exchange not in page.inner_text("#seats")  # said once, in the turn's line
        hand = page.locator("#hands .card").all_inner_texts()
        assert len(hand) == 4 and all(hand)
        buttons = page.locator("#moves button")
        first = buttons.first.inner_text()
        assert any(card in first for card in hand), (first, hand)
        no_internal_ids(page)
        buttons.first.click()
        page.wait_for_function(
            "() => !document.querySelector('#moves button[data-move^=\"exchange:\"]')"
        )
        no_internal_ids(page)
        page.context.close()
    page = seat_page(browser, url, game, 0, lang)
    page.wait_for_function(
        "() => [...document.querySelectorAll('#account li')]"
        ".some(l => l.dataset.type === 'CardExchanged')"
    )
    no_internal_ids(page)
    page.context.close()


def test_a_swap_is_explained_where_it_is_offered(url: str, browser: Browser) -> None:
    """Partners played on (first moves) until a seat holds a swap it can play: its page says
    how to play it on the board, and reads no internal id."""
    game = partners_game(url)
    with httpx.Client(base_url=url, timeout=10) as http:
        for _ in range(400):
            state = http.get(f"/games/{game['id']}").json()
            assert state["status"] == "active"
            seat = state["to_act"][0]["seat"]
            moves = legal(http, game, seat)
            if any(m["id"].startswith("SWAP:") for m in moves):
                break
            plain = [m for m in moves if not m["id"].startswith("SWAP:")]
            play(http, game, seat, plain[0]["id"])
        else:
            raise AssertionError("no swap offered in 400 moves")
    page = seat_page(browser, url, game, seat, "de")
    page.wait_for_selector("#swap-hint:not(:empty)")
    hint = page.evaluate("async () => (await import('/static/i18n.js')).t('play.swapHintPartners')")
    assert page.inner_text("#swap-hint") == hint
    assert ENGLISH["play.swapHintPartners"] != hint
    no_internal_ids(page)
    page.context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_api_reference_page_says_its_own_words_in_the_language(
    url: str, browser: Browser, lang: str
) -> None:
    """The reference itself (the OpenAPI document) is English; the page's title, header and
    its note saying so are the catalogue's, with the picker."""
    catalogue = json.loads((STATIC / "i18n" / f"{lang}.json").read_text())
    page = open_as(browser, f"{url}/schema", lang, PHONE)
    page.wait_for_selector(".opblock", timeout=20_000)
    assert page.evaluate("document.documentElement.lang") == lang
    page.wait_for_function("t => document.title === t", arg=catalogue["docs.title"])
    assert page.inner_text(".docs-note") == catalogue["docs.english"]
    assert page.inner_text(".docs-header span") == catalogue["docs.heading"]
    page.context.close()

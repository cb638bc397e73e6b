"""The SVG board's words in the page's language: ``GET /games/{id}/board.svg?lang=`` (else the
request's Accept-Language, else English) draws its caption, legend, labels and every title
from the pages' catalogues, with the rule set's name and the move, never its id or "version";
the service's message formatter agrees with the pages' (plurals, selects, placeholders)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from domain.registry import RULESETS
from service import words
from tests.service.conftest import auth, play_to_end
from tests.service.message_formats import FORMATS

STATIC = Path(__file__).parents[3] / "service" / "static" / "i18n"
ENGLISH: dict[str, str] = json.loads((STATIC / "en.json").read_text())
SVG = "{http://www.w3.org/2000/svg}"


def said(svg: str) -> str:
    """Every word the board holds: its texts and titles."""
    root = ET.fromstring(svg)
    return "\n".join(e.text or "" for e in root.iter() if e.tag in (f"{SVG}text", f"{SVG}title"))


def board_fragments() -> set[str]:
    """The literal runs of 8 characters or more of the English board messages."""
    found: set[str] = set()
    for key, message in ENGLISH.items():
        if not key.startswith("svg."):
            continue
        literal = message
        while "{" in literal:
            literal = re.sub(r"\{[^{}]*\}", "\0", literal)
        found |= {part.strip() for part in literal.split("\0") if len(part.strip()) >= 8}
    return found


def game(api: TestClient[Any], ruleset: str, moves: int = 12) -> dict[str, Any]:
    names = ["Ann", "Bob", "Cat", "Dan"][: max(2, RULESETS[ruleset].MIN_PLAYERS)]
    body = {"ruleset": ruleset, "seats": [{"name": n} for n in names], "seed": "board-words"}
    created: dict[str, Any] = api.post("/games", json=body).json()
    for _ in range(moves):
        state = api.get(f"/games/{created['id']}").json()
        seat = state["to_act"][0]["seat"]
        headers = auth(created["tokens"]["seats"][seat])
        listed = api.get(f"/games/{created['id']}/legal-moves", headers=headers).json()
        api.post(
            f"/games/{created['id']}/moves",
            json={"move": listed["moves"][0]["id"]},
            headers=headers,
        )
    return created


@pytest.mark.parametrize("lang", words.LANGUAGES[1:])
def test_every_board_speaks_the_language_asked_for(api: TestClient[Any], lang: str) -> None:
    fragments = board_fragments()
    say = words.sayer(lang)
    for ruleset in RULESETS:
        created = game(api, ruleset)
        reply = api.get(f"/games/{created['id']}/board.svg", params={"lang": lang})
        assert reply.headers["content-language"] == lang
        text = said(reply.text)
        version = api.get(f"/games/{created['id']}").json()["version"]
        caption = say(
            "svg.caption",
            ruleset=say(f"ruleset.{ruleset}.title"),
            version=version,
            status="active",
        )
        assert caption in text, (ruleset, lang)
        left = sorted(f for f in fragments if f in text)
        assert not left, (ruleset, lang, left)
        assert "version" not in text and f" {ruleset} " not in text


def test_the_caption_names_the_rule_set_the_move_and_the_winner(api: TestClient[Any]) -> None:
    created = game(api, "race35", moves=0)
    finished = play_to_end(api, created)
    svg = api.get(f"/games/{created['id']}/board.svg").text
    root = ET.fromstring(svg)
    caption = next(e for e in root.iter(f"{SVG}text") if e.get("id") == "caption").text
    winner = finished["seats"][finished["winners"][0]]["name"]
    expected = f"The 35-square race · move {finished['version']} · finished · won by {winner}"
    assert caption == expected


def test_the_language_follows_accept_language_when_no_lang_is_given(api: TestClient[Any]) -> None:
    created = game(api, "sorry", moves=2)
    path = f"/games/{created['id']}/board.svg"
    reply = api.get(path, headers={"Accept-Language": "nl-BE, fr;q=0.9, en;q=0.5"})
    assert reply.headers["content-language"] == "nl" and "Accept-Language" in reply.headers["vary"]
    assert " · zet " in said(reply.text)
    asked = api.get(path, params={"lang": "da"}, headers={"Accept-Language": "nl"})
    assert asked.headers["content-language"] == "da" and " · træk " in said(asked.text)
    unknown = api.get(path, params={"lang": "tlh"}, headers={"Accept-Language": "sv, pt;q=0.8"})
    assert unknown.headers["content-language"] == "en" and " · move " in said(unknown.text)


@pytest.mark.parametrize("lang", ["en", "es", "nl", "da", "de", "fr"])
def test_the_lobbys_picture_of_each_rule_set_speaks_the_language_asked_for(
    api: TestClient[Any], lang: str
) -> None:
    say = words.sayer(lang)
    for ruleset in RULESETS:
        reply = api.get(f"/rulesets/{ruleset}/board.svg", params={"lang": lang})
        assert reply.headers["content-language"] == lang
        root = ET.fromstring(reply.text)
        caption = next(e for e in root.iter(f"{SVG}text") if e.get("id") == "caption").text
        assert caption == say(f"ruleset.{ruleset}.title")
    german = api.get("/rulesets/ludo/board.svg", headers={"Accept-Language": "de-AT, en;q=0.5"})
    assert german.headers["content-language"] == "de"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, "en"),
        ("", "en"),
        ("de-AT", "de"),
        ("fr;q=0.4, es;q=0.8", "es"),
        ("sv, da;q=0.1", "da"),
        ("en;q=0, nl;q=0.2", "nl"),
        ("es;q=oops, fr", "fr"),
    ],
)
def test_the_language_chosen_from_an_accept_language_header(
    header: str | None, expected: str
) -> None:
    assert words.choose(None, header) == expected


@pytest.mark.parametrize(("message", "params", "lang", "expected"), FORMATS)
def test_the_service_formats_messages_as_the_pages_do(
    message: str, params: dict[str, Any], lang: str, expected: str
) -> None:
    """The cases of the pages' formatter test (test_languages_browser.py), but its grouped
    1.200 (the board's numbers are small and shown without grouping)."""
    assert words.render(message, params, lang) == expected

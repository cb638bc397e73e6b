"""One word for each thing on the table, per language: the glossary of the languages guide
(docs/guides/languages.md) against the catalogues. Every message naming a start, a home, a
lane, a square, a piece, a card, a die, a seat or a move uses the glossary's word; no message
uses a word the glossary sets aside (Spanish *casa* for the start or home); a piece sent back
agrees with the language's word for a piece (``piece.gender``) in Spanish, French and German;
the lobby's picture of every rule set holds no English in any other language."""

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

ROOT = Path(__file__).parents[3]
GUIDE = ROOT / "docs" / "guides" / "languages.md"
CATALOGUES = ROOT / "service" / "static" / "i18n"
LANGUAGES = words.LANGUAGES
SVG = "{http://www.w3.org/2000/svg}"


def tables(text: str) -> list[list[list[str]]]:
    """The Markdown tables of ``text``: rows of cells, the header first, the rule left out."""
    found: list[list[list[str]]] = []
    rows: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not all(set(cell) <= {"-", ":", " "} for cell in cells):
                rows.append(cells)
        elif rows:
            found.append(rows)
            rows = []
    return found


def glossary() -> tuple[dict[str, dict[str, str]], dict[str, list[str]]]:
    """The glossary's word for each term in each language, and the words each language sets
    aside."""
    section = GUIDE.read_text("utf-8").split("### The glossary", 1)[1].split("\n### ", 1)[0]
    terms_table, aside_table = tables(section)
    header = terms_table[0]
    assert header[1:] == list(LANGUAGES), header
    terms = {
        row[0].split(" (")[0]: dict(zip(header[1:], row[1:], strict=True))
        for row in terms_table[1:]
    }
    aside = {row[0]: [word.strip() for word in row[1].split(",")] for row in aside_table[1:]}
    assert set(aside) == set(LANGUAGES), aside
    return terms, aside


TERMS, ASIDE = glossary()
NAMED: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "start": [
        ("place.start", {}),
        ("svg.label", {"kind": "start", "letter": "R"}),
        ("svg.at", {"kind": "start"}),
        ("svg.square", {"kind": "start", "colour": "red", "number": ""}),
    ],
    "home": [
        ("place.home", {}),
        ("svg.label", {"kind": "home", "letter": "R"}),
        ("svg.at", {"kind": "home"}),
        ("svg.square", {"kind": "home", "colour": "red", "number": ""}),
        ("svg.square", {"kind": "home", "colour": "none", "number": ""}),
    ],
    "lane": [
        ("place.lane", {"number": 3}),
        ("svg.at", {"kind": "lane", "number": 3}),
        ("svg.square", {"kind": "lane", "colour": "red", "number": 3}),
    ],
    "square of the track": [("place.track", {"number": 12})],
    "safe square": [("svg.note.safe", {})],
    "piece": [("svg.piece", {"owner": "Ann", "colour": "red", "number": 2, "where": ""})],
    "card": [("uses.card", {"card": "7"})],
    "die": [("uses.die", {"die": 3})],
    "seat": [("seat.unknown", {"seat": 2}), ("lobby.seatName", {"number": 2})],
    "move": [("svg.caption", {"ruleset": "x", "version": 4, "status": "active"})],
}
"""The messages that name each term of the glossary, with arguments to render them."""


def test_the_glossary_has_a_word_for_every_term_in_every_language() -> None:
    assert set(NAMED) <= set(TERMS), set(NAMED) - set(TERMS)
    for term, by_language in TERMS.items():
        assert all(by_language[lang] for lang in LANGUAGES), term


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_naming_a_place_or_thing_uses_the_glossarys_word(lang: str) -> None:
    say = words.sayer(lang)
    for term, messages in NAMED.items():
        word = TERMS[term][lang].casefold()
        for key, params in messages:
            said = say(key, **params)
            assert word in said.casefold(), (lang, term, key, said)


def aside_pattern(word: str) -> re.Pattern[str]:
    """A word set aside, with the endings of its plural and inflected forms."""
    return re.compile(rf"(?<!\w){re.escape(word)}(s|es|e|n|en|er|ne)?(?!\w)", re.IGNORECASE)


def wording(message: str) -> str:
    """The words of a message a reader may see: its select and plural heads, case names and
    placeholders left out."""
    text = re.sub(r"\{\s*\w+\s*,\s*(select|plural)\s*,", "{", message)
    text = re.sub(r"=?\w+\s*\{", "{", text)
    return re.sub(r"\{\s*\w+\s*\}", " ", text).replace("{", " ").replace("}", " ")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_message_uses_a_word_the_glossary_sets_aside(lang: str) -> None:
    catalogue: dict[str, str] = json.loads((CATALOGUES / f"{lang}.json").read_text("utf-8"))
    patterns = [aside_pattern(word) for word in ASIDE[lang]]
    found = {
        key: match.group(0)
        for key, message in catalogue.items()
        for pattern in patterns
        if (match := pattern.search(wording(message)))
    }
    assert not found, (lang, found)


RETURNED = {
    "es": ("feminine", "ficha azul 1 va a la salida: devuelta a la salida por la ficha roja 2"),
    "fr": ("masculine", "pion bleu 1 va en case départ : renvoyé au départ par le pion rouge 2"),
    "de": (
        "feminine",
        "blaue Figur 1 kommt auf Start: rote Figur 2 schlägt sie zurück auf den Start",
    ),
}
"""A piece bumped back to its start, said as the account says it, in each language whose
words agree with the piece: the gender of its word for a piece and the sentence."""


@pytest.mark.parametrize("lang", sorted(RETURNED))
def test_a_piece_sent_back_agrees_with_the_languages_word_for_a_piece(lang: str) -> None:
    say = words.sayer(lang)
    gender, expected = RETURNED[lang]
    assert say("piece.gender") == gender
    piece = say("piece.name", colour="blue", number=1)
    by = say("why.bumped", piece=say("piece.name", colour="red", number=2), gender=gender)
    assert say("move.effectWhy", piece=piece, to=say("place.start"), why=by) == expected


def said(svg: str) -> str:
    """Every word a picture holds: its texts and titles."""
    root = ET.fromstring(svg)
    return "\n".join(e.text or "" for e in root.iter() if e.tag in (f"{SVG}text", f"{SVG}title"))


ENGLISH_WORDS = re.compile(r"\b(Player|player|piece|seat|start|home|track|lane|plays)\b")
"""English words a picture of a board could hold: the seats' names, the pieces' titles."""


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_the_lobbys_pictures_hold_no_english(api: TestClient[Any], lang: str) -> None:
    say = words.sayer(lang)
    for ruleset in RULESETS:
        reply = api.get(f"/rulesets/{ruleset}/board.svg", params={"lang": lang})
        text = said(reply.text)
        own = {word.casefold() for term in TERMS.values() for word in term[lang].split()}
        english = sorted({w for w in ENGLISH_WORDS.findall(text) if w.casefold() not in own})
        assert not english, (ruleset, lang, english)
        assert say("svg.player", number=1) in text, (ruleset, lang)

"""The pages' catalogues (service/static/i18n/<lang>.json): one per language, each with every
key of the English one and no other, each translation with the English message's arguments,
every key used by the pages and every key the pages use in the catalogue."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from domain.model import options_schema
from domain.registry import RULESETS
from service.api.problems import PROBLEMS
from service.usecases.bots import driver
from tests.domain.playout import random_events

STATIC = Path(__file__).parents[3] / "service" / "static"
LANGUAGES = ("en", "es", "nl", "da", "de", "fr")
CATALOGUES = {
    lang: json.loads((STATIC / "i18n" / f"{lang}.json").read_text()) for lang in LANGUAGES
}
ENGLISH = CATALOGUES["en"]
PAGES = "\n".join(p.read_text() for p in sorted(STATIC.glob("*")) if p.suffix in {".js", ".html"})
BOARD = "\n".join(p.read_text() for p in sorted((STATIC.parent / "board").glob("*.py")))
"""The SVG board's code: its words are keys of the same catalogues (``say("key", ...)``)."""


def arguments(message: str) -> set[str]:
    """The argument names of a message (`{name}`, `{count, plural, ...}`), nested ones too; a
    plural or select without an `other` case is an error."""
    found: set[str] = set()
    depth, start = 0, 0
    for i, char in enumerate(message):
        if char == "{":
            depth += 1
            if depth == 1:
                start = i + 1
        elif char == "}":
            depth -= 1
            assert depth >= 0, f"unbalanced braces: {message}"
            if depth == 0:
                found |= argument(message[start:i])
    assert depth == 0, f"unbalanced braces: {message}"
    return found


def argument(body: str) -> set[str]:
    name, _, rest = body.partition(",")
    if not rest:
        return {name.strip()}
    kind, _, cases = rest.partition(",")
    assert kind.strip() in {"plural", "select"}, body
    branches = re.findall(r"\s*(=?\w+)\s*\{", cases)
    assert "other" in branches, f"no other case in {body}"
    found = {name.strip()}
    depth, start = 0, 0
    for i, char in enumerate(cases):  # each case's message, for its own arguments
        if char == "{":
            depth += 1
            if depth == 1:
                start = i + 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                found |= arguments(cases[start:i])
    return found


def test_every_catalogue_has_every_english_key_and_no_other() -> None:
    for lang, catalogue in CATALOGUES.items():
        assert set(catalogue) == set(ENGLISH), (lang, set(catalogue) ^ set(ENGLISH))


AGREEMENT = {"gender"}
"""The argument a translation may use beside the English message's: the grammatical gender of
its word for a piece (``piece.gender``), which the pages pass to every ``why.*`` message."""


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_translation_has_the_english_messages_arguments(lang: str) -> None:
    for key, message in CATALOGUES[lang].items():
        extra = AGREEMENT if key.startswith("why.") else set()
        assert arguments(message) - extra == arguments(ENGLISH[key]), (lang, key, message)


def named_keys() -> set[str]:
    """The keys the lobby builds from the API's names (lobby-words.js): each rule set's title
    and summary, each option of a simple form (a choice, a number or a yes/no), its meaning and
    each allowed value, each bot level and its meaning."""
    keys: set[str] = set()
    for rules in RULESETS.values():
        keys |= {f"ruleset.{rules.NAME}.title", f"ruleset.{rules.NAME}.summary"}
        for name, schema in options_schema(rules.NAME, rules.Options)["properties"].items():
            if "enum" in schema or schema.get("type") in {"integer", "number", "boolean"}:
                keys |= {f"option.{name}", f"option.{name}.meaning"}
                keys |= {f"option.{name}.{value}" for value in schema.get("enum", [])}
    for level in driver.levels().bots:
        keys |= {f"bot.{level.name}", f"bot.{level.name}.meaning"}
    return keys


DYNAMIC = ("ruleset.", "option.", "bot.")


def test_every_rule_set_option_and_bot_level_has_its_words_and_every_such_key_a_use() -> None:
    """A rule set's title, an option's name, meaning and values and a bot level's name in
    words: a key for each the API names, and no key for a name it does not (a stale one)."""
    wanted = named_keys()
    present = {key for key in ENGLISH if key.startswith(DYNAMIC)}
    assert wanted <= present, sorted(wanted - present)
    assert present <= wanted, sorted(present - wanted)
    for prefix in ("`ruleset.${", "`option.${", "`bot.${"):
        assert prefix in PAGES, prefix


def test_every_key_is_used_by_a_page() -> None:
    named = [key for key in ENGLISH if not key.startswith(("problem.", *DYNAMIC))] + [
        "problem.shown"
    ]
    unused = [key for key in named if f'"{key}"' not in PAGES + BOARD]
    assert not unused, unused


def test_every_problem_type_has_a_message_and_every_problem_message_a_type() -> None:
    """Pages show a refusal by its type (``problem.<slug>``); the page's own "connection"."""
    slugs = {key.removeprefix("problem.") for key in ENGLISH if key.startswith("problem.")}
    assert slugs - {"shown"} == set(PROBLEMS) | {"connection"}
    assert "`problem.${error.slug}`" in PAGES


def test_every_key_a_page_asks_for_is_in_the_catalogue() -> None:
    asked = set(re.findall(r'\bt\(\s*"([\w.]+)"', PAGES))
    asked |= set(re.findall(r'\bwhy\(\s*"([\w.]+)"', PAGES))
    asked |= set(re.findall(r'data-i18n="([\w.]+)"', PAGES))
    asked |= set(re.findall(r'data-i18n-title="([\w.]+)"', PAGES))
    asked |= set(re.findall(r'\b(?:say|note)\(\s*"([\w.]+)"', BOARD))
    asked |= set(re.findall(r'\? "(\w+\.\w+)" : "(?:\w+\.\w+)"', PAGES))
    asked |= set(re.findall(r'\? "(?:\w+\.\w+)" : "(\w+\.\w+)"', PAGES))
    assert asked, "no key found: the pattern above is stale"
    assert asked <= set(ENGLISH), asked - set(ENGLISH)


def test_the_argument_reader_sees_nested_arguments_and_refuses_a_plural_without_other() -> None:
    message = "{colour, select, red {{name} red} other {{count, plural, one {#} other {# x}}}}"
    assert arguments(message) == {"colour", "name", "count"}
    with pytest.raises(AssertionError):
        arguments("{count, plural, one {# card}}")


def reason_patterns() -> list[re.Pattern[str]]:
    """The referee's reasons the pages put in their own words (``REASONS`` in words.js)."""
    source = (STATIC / "words.js").read_text()
    table = source[
        source.index("const REASONS = [") : source.index("];", source.index("const REASONS"))
    ]
    return [re.compile(literal) for literal in re.findall(r"\[/(\^.*?\$)/,", table)]


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_reason_a_random_game_gives_is_said_in_the_pages_words(ruleset: str) -> None:
    rules, patterns, unsaid = RULESETS[ruleset], reason_patterns(), set()
    for game in range(6):
        state = rules.setup({}, min(4, rules.MAX_PLAYERS))
        for _, events in random_events(rules, state, random.Random(game), limit=20_000):
            for event in events:
                reasons = [getattr(event, "reason", "")]
                reasons += [effect.why for effect in getattr(event, "effects", ())]
                unsaid |= {r for r in reasons if r and not any(p.match(r) for p in patterns)}
    assert not unsaid, f"{ruleset}: reasons the pages show in English: {sorted(unsaid)}"

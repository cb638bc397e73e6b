"""The rule sets as callers read them: options with their JSON Schema, and the rules text.

The rules texts are ``docs/rules/<name>.md`` of the checkout the service runs from (read once
each, on first use): they are documentation first, so they live with the docs, not inside a
package, and the service runs from its checkout (``make run`` installs it in editable mode)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from domain.model import options_schema
from domain.registry import RULESETS
from domain.ruleset import RuleSet
from service import board
from service.core.refusal import refuse
from service.usecases.replies import RuleSetDetail

RULES_DIR = Path(__file__).resolve().parents[3] / "docs" / "rules"


def found(name: str) -> RuleSet[Any]:
    """The rule set ``name``; ruleset-not-found names the known."""
    rules = RULESETS.get(name)
    if rules is None:
        known = ", ".join(f"`{known}`" for known in sorted(RULESETS))
        raise refuse(
            "ruleset-not-found", f"no rule set `{name}`; known: {known}", allowed=sorted(RULESETS)
        )
    return rules


def detail(name: str) -> RuleSetDetail:
    """A rule set with its options' schema and rules text; ruleset-not-found names the known."""
    rules = found(name)
    return RuleSetDetail(
        name=rules.NAME,
        version=rules.VERSION,
        min_players=rules.MIN_PLAYERS,
        max_players=rules.MAX_PLAYERS,
        options=rules.OPTIONS,
        options_schema=options_schema(rules.NAME, rules.Options),
        rules=rules_text(rules.NAME),
    )


@cache
def rules_text(name: str) -> str:
    """The markdown of ``docs/rules/<name>.md``."""
    return (RULES_DIR / f"{name}.md").read_text(encoding="utf-8")


THUMBNAIL_SEATS = 4
"""The seats of a rule set's picture (fewer where it takes fewer)."""


def thumbnail(name: str, lang: str = "en") -> str:
    """The picture of a rule set: its board, default options, as a game of the most seats up
    to four begins, its words in ``lang``."""
    return _thumbnail(found(name).NAME, lang)


@cache
def _thumbnail(name: str, lang: str) -> str:
    rules = RULESETS[name]
    seats = min(THUMBNAIL_SEATS, rules.MAX_PLAYERS)
    state = rules.setup(dict(rules.OPTIONS), seats)
    view = msgspec.to_builtins(rules.view(state, "referee"))
    return board.thumbnail({**view, "ruleset": name, "options": rules.OPTIONS}, lang)

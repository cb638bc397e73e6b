"""docs/rules/<name>.md tells the truth about move ids: its grammar (the fenced ``move-id-regex``
block) matches every legal move of random games, and every example of its ``move-ids`` blocks
(```` ```move-ids ```` or ```` ```move-ids {"option": value} ```` for games with those options)
is a legal move of one of those games."""

from __future__ import annotations

import json
import random
import re
from functools import cache
from itertools import chain
from pathlib import Path

import pytest

from domain.registry import RULESETS
from tests.domain.playout import random_events

DOCS = Path(__file__).parents[2] / "docs" / "rules"
GAMES = 4
"""Random games played per rule set and options: enough for every documented example."""


def fenced(name: str, tag: str) -> list[tuple[str, list[str]]]:
    """Every fenced block tagged ``tag`` in ``docs/rules/<name>.md``: the options JSON after
    the tag (``{}`` if none) and the block's lines."""
    text = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    found = re.findall(rf"^```{re.escape(tag)}(?: ([^\n]*))?\n(.*?)^```$", text, flags=re.M | re.S)
    return [
        (options or "{}", [ln.strip() for ln in body.splitlines() if ln.strip()])
        for options, body in found
    ]


@cache
def legal_ids(name: str, options: str = "{}") -> frozenset[str]:
    """Every legal move id of ``GAMES`` seeded random games of ``name`` with ``options``
    (a JSON object), 2, 3 and 4 players in turn (as many as the rule set takes)."""
    rules, seen = RULESETS[name], set()
    counts = range(rules.MIN_PLAYERS, min(rules.MAX_PLAYERS, 4) + 1)
    for game in range(GAMES):
        rng = random.Random(f"{name}#{options}#{game}")
        first = rules.setup(json.loads(options), counts[game % len(counts)])
        states = chain([first], (state for state, _ in random_events(rules, first, rng)))
        for state in states:
            for pending in rules.to_act(state):
                seen.update(move.id for move in rules.legal_moves(state, pending.seat))
    return frozenset(seen)


def grammar(name: str) -> re.Pattern[str]:
    """The doc's move id grammar."""
    ((_, (pattern,)),) = fenced(name, "move-id-regex")
    return re.compile(pattern)


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_move_id_grammar_matches_every_legal_move(name: str) -> None:
    variants = {"{}"} | {options for options, _ in fenced(name, "move-ids")}
    for options in sorted(variants):
        strays = sorted(i for i in legal_ids(name, options) if not grammar(name).fullmatch(i))
        assert not strays, f"docs/rules/{name}.md's grammar misses {strays[:10]} ({options})"


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_move_id_examples_are_legal_moves(name: str) -> None:
    blocks = fenced(name, "move-ids")
    assert blocks, f"docs/rules/{name}.md has no move-ids examples"
    for options, examples in blocks:
        assert all(grammar(name).fullmatch(example) for example in examples)
        unseen = sorted(set(examples) - legal_ids(name, options))
        assert not unseen, f"not legal in {GAMES} random games of {name} ({options}): {unseen}"

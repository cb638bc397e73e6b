"""The plain registry of rule sets."""

from __future__ import annotations

from domain import race35
from domain.ruleset import RuleSet

RULESETS: dict[str, RuleSet] = {
    race35.NAME: race35,
}


def find_ruleset(name: str) -> RuleSet:
    """The rule set called ``name``; KeyError names the known ones."""
    try:
        return RULESETS[name]
    except KeyError:
        raise KeyError(f"unknown rule set {name!r}; known: {sorted(RULESETS)}") from None

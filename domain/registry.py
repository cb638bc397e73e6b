"""The plain registry of rule sets."""

from __future__ import annotations

from typing import Any

from domain import ludo, parchis, parchis_2dice, partners, race35, sorry, sorry_hand
from domain.ruleset import RuleSet

GameView = (
    race35.Race35View
    | sorry.SorryView
    | sorry_hand.SorryHandView
    | partners.PartnersView
    | parchis.ParchisView
    | parchis.ParchisTwoDiceView
    | ludo.LudoView
)
"""The state view of a game of any rule set, told apart by its ``ruleset`` tag."""

RULESETS: dict[str, RuleSet[Any]] = {
    race35.NAME: race35,
    parchis.NAME: parchis,
    parchis_2dice.NAME: parchis_2dice,
    ludo.NAME: ludo,
    sorry.NAME: sorry,
    partners.NAME: partners,
    sorry_hand.NAME: sorry_hand,
}


def find_ruleset(name: str) -> RuleSet[Any]:
    """The rule set called ``name``; KeyError names the known ones."""
    try:
        return RULESETS[name]
    except KeyError:
        raise KeyError(f"unknown rule set {name!r}; known: {sorted(RULESETS)}") from None

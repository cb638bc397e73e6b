"""The plain registry of rule sets: the current version of each, and the earlier versions that
recorded games may have been played under (``GameCreated.ruleset_version``)."""

from __future__ import annotations

from typing import Any

from domain import (
    ludo,
    ludo_v1,
    parchis,
    parchis_2dice,
    parchis_2dice_v1,
    parchis_2dice_v2,
    partners,
    race35,
    sorry,
    sorry_hand,
    sorry_hand_v1,
    sorry_v1,
)
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


EARLIER: dict[tuple[str, int], RuleSet[Any]] = {
    (parchis_2dice_v1.NAME, parchis_2dice_v1.VERSION): parchis_2dice_v1,
    (parchis_2dice_v2.NAME, parchis_2dice_v2.VERSION): parchis_2dice_v2,
    (ludo_v1.NAME, ludo_v1.VERSION): ludo_v1,
    (sorry_v1.NAME, sorry_v1.VERSION): sorry_v1,
    (sorry_hand_v1.NAME, sorry_hand_v1.VERSION): sorry_hand_v1,
}
"""Earlier versions of rule sets, by (name, version), kept to replay the games played under
them; a new game always gets the version in ``RULESETS``."""


def find_ruleset(name: str, version: int | None = None) -> RuleSet[Any]:
    """The rule set called ``name`` at ``version`` (the current one when None); KeyError says
    which names or versions are known."""
    try:
        rules = RULESETS[name]
    except KeyError:
        raise KeyError(f"unknown rule set {name!r}; known: {sorted(RULESETS)}") from None
    if version is None or version == rules.VERSION:
        return rules
    try:
        return EARLIER[name, version]
    except KeyError:
        raise KeyError(
            f"rule set {name!r} has no version {version}; known: {versions(name)}"
        ) from None


def versions(name: str) -> list[int]:
    """The versions of rule set ``name`` that games can be replayed under, oldest first."""
    earlier = [version for known, version in EARLIER if known == name]
    return sorted([*earlier, RULESETS[name].VERSION])

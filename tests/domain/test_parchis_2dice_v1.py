"""Version 1 of parchis-2dice, kept for the games recorded under it: a die move that earns a
bonus or wins ends the play, and the dice left after a bonus are a new throw."""

from __future__ import annotations

from typing import Any

import pytest

from domain import parchis_2dice, parchis_2dice_v1, parchis_2dice_v2
from domain.registry import find_ruleset
from domain.ruleset import RuleSet
from tests.domain.race_positions import arrange, ids, play, throw

BONUSES = {"home_bonus": 10, "capture_bonus": 20}


def test_registry_finds_each_version_and_names_the_known_ones() -> None:
    assert find_ruleset("parchis-2dice") is parchis_2dice
    assert find_ruleset("parchis-2dice", 3) is parchis_2dice
    assert find_ruleset("parchis-2dice", 2) is parchis_2dice_v2
    assert find_ruleset("parchis-2dice", 1) is parchis_2dice_v1
    assert find_ruleset("race35", 1).VERSION == 1
    with pytest.raises(KeyError, match=r"no version 4; known: \[1, 2, 3\]"):
        find_ruleset("parchis-2dice", 4)
    with pytest.raises(KeyError, match="has no version 2; known: \\[1\\]"):
        find_ruleset("race35", 2)


@pytest.mark.parametrize(
    ("rules", "legal"),
    [
        (parchis_2dice_v1, {"2:lane:6>home"}),
        (parchis_2dice, {"2:lane:6>home", "1:lane:6>lane:7"}),
    ],
)
def test_version_1_counts_a_winning_die_as_the_whole_throw(
    rules: RuleSet[Any], legal: set[str]
) -> None:
    state = throw(rules, arrange(rules, {"yellow": ["lane:6"]}), 2, 1)
    assert ids(rules, state) == legal


def test_version_1_plays_the_die_left_after_a_bonus_as_a_new_throw() -> None:
    rules = parchis_2dice_v1
    places = {"yellow": ["start", "track:5", "track:5", "track:30"], "red": ["track:33"]}
    state = throw(rules, arrange(rules, places, options=BONUSES), 5, 3)
    state = play(rules, state, "3:track:30>track:33")
    state = play(rules, state, "bonus20:track:5>track:25")
    assert ids(rules, state) == {"5:start>track:5"}

"""Every rule set, current or earlier, plays its turn through one instance of its class of named
hooks: the module's turn functions are the bound methods of its ``RULES``, and an earlier
version's class comes from the same base class of hooks as the current one's."""

from __future__ import annotations

from typing import Any

import pytest

from domain.registry import EARLIER, RULESETS

TURN = ("to_act", "legal_moves", "chance", "automatic", "decide", "apply", "view")
MODULES = [*RULESETS.values(), *EARLIER.values()]


@pytest.mark.parametrize("rules", MODULES, ids=[f"{m.NAME}-v{m.VERSION}" for m in MODULES])
def test_turn_functions_are_the_bound_methods_of_the_one_instance(rules: Any) -> None:
    instance = rules.RULES
    for name in TURN:
        function = getattr(rules, name)
        assert function.__self__ is instance, name
        assert function.__func__ is getattr(type(instance), name), name


@pytest.mark.parametrize("key", sorted(EARLIER), ids=[f"{n}-v{v}" for n, v in sorted(EARLIER)])
def test_an_earlier_version_shares_the_base_class_of_hooks(key: tuple[str, int]) -> None:
    current: Any = RULESETS[key[0]]
    earlier: Any = EARLIER[key]
    base = type(current.RULES).__mro__[-2]  # the rule set's own class, just below object
    assert isinstance(earlier.RULES, base)
    assert earlier.RULES is not current.RULES

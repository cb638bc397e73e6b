"""Luck is honest: its expectation is zero, because the outcomes it is judged against carry the
true probabilities of the real chance event and are valued like it (pure, in process)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from analysis.game import Valuer, after, analyse, luck, luck_totals, outcomes
from analysis.model import load
from analysis.selfplay import recorded
from domain.events import CardDrawn, CardsDealt, DiceRolled, Event
from domain.model import Deal, Draw, Roll
from domain.registry import RULESETS
from domain.replay import Replay


def chance_positions(ruleset: str, seed: int, count: int) -> Iterator[tuple[Any, Any, Event]]:
    """(rules, state before, event) of the first ``count`` chance events of a self-play game."""
    log = recorded(ruleset, seed)
    _, created = log[0]
    replay = Replay(created)  # type: ignore[arg-type]
    found = 0
    for version, event in log[1:]:
        if isinstance(event, DiceRolled | CardDrawn | CardsDealt) and found < count:
            found += 1
            yield replay.rules, replay.state, event
        replay.push(version, event)


def close(a: dict[int, float], b: dict[int, float]) -> bool:
    return a.keys() == b.keys() and all(a[s] == pytest.approx(b[s], abs=1e-9) for s in a)


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_the_outcomes_luck_is_judged_against_carry_the_real_events_probabilities(
    ruleset: str,
) -> None:
    """Every ordered throw (as the referee rolls it) is valued as the sorted outcome it is
    counted under, with that outcome's weight its share of the throws; a draw's weights are
    the pile's; every sampled deal is a deal of the pile; the outcome that happened is one of
    those enumerated (or, for a deal, of that shape)."""
    model = load(ruleset)
    checked = 0
    for rules, state, event in chance_positions(ruleset, 7, 30):
        seat = getattr(event, "seat", getattr(event, "dealer", 0))
        found = outcomes(rules, state, seat, random.Random(1))
        weights = {outcome: weight for outcome, weight in found}
        assert sum(weights.values()) == pytest.approx(1.0)
        match rules.chance(state):
            case Roll(dice=count):
                throws = list(itertools.product(range(1, 7), repeat=count))
                shares = Counter(DiceRolled(seat, tuple(sorted(t))) for t in throws)
                assert weights == pytest.approx({o: n / len(throws) for o, n in shares.items()})
                valuer = Valuer(rules, model)
                for throw in throws:
                    counted = DiceRolled(seat, tuple(sorted(throw)))
                    real = valuer.value(after(rules, state, [DiceRolled(seat, throw)]))
                    assert close(real, valuer.value(after(rules, state, [counted])))
                assert isinstance(event, DiceRolled) and len(event.dice) == count
            case Draw(pile=pile):
                expected = {CardDrawn(seat, c): n / len(pile) for c, n in Counter(pile).items()}
                assert weights == pytest.approx(expected)
                assert event in weights
            case Deal(pile=pile, seats=seats, count=count):
                for dealt in [*weights, event]:
                    assert isinstance(dealt, CardsDealt) and dealt.seats == seats
                    assert all(len(hand) == count for hand in dealt.hands)
                    cards = Counter(card for hand in dealt.hands for card in hand)
                    assert not cards - Counter(pile)
        checked += 1
    assert checked


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_luck_averages_to_zero_over_the_outcomes_it_is_judged_against(ruleset: str) -> None:
    """The value of the outcome that happened and of the enumerated ones is one function, so
    each seat's luck weighed over every outcome is zero: with the true weights, its
    expectation is zero whatever the model."""
    model = load(ruleset)
    for rules, state, event in chance_positions(ruleset, 8, 10):
        seat = getattr(event, "seat", getattr(event, "dealer", 0))
        found = outcomes(rules, state, seat, random.Random(2))
        mean: dict[int, float] = {}
        for outcome, weight in found:
            valuer = Valuer(rules, model)
            for s, gained in luck(valuer, state, outcome, random.Random(2)).items():
                mean[s] = mean.get(s, 0.0) + weight * gained
        assert all(abs(gained) < 1e-9 for gained in mean.values()), mean


@pytest.mark.parametrize("ruleset", ["ludo", "sorry-hand"])
def test_luck_totals_are_the_analysis_luck_without_judging_decisions(ruleset: str) -> None:
    log = recorded(ruleset, 12)[:250]
    assert luck_totals(log, "g") == analyse(log, "g").luck

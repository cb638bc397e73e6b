"""The win-chance model: a multinomial logistic model over each seat's features, one per rule
set with weights for each table size, a small JSON file beside this module (made by
``train.py``)."""

from __future__ import annotations

import json
import math
import operator
from functools import lru_cache
from pathlib import Path
from typing import Any

import msgspec

from analysis.features import Distances, side_features, sides
from domain.model import View
from domain.ruleset import RuleSet

WEIGHTS = Path(__file__).parent / "weights"


class Model(msgspec.Struct, frozen=True):
    """One rule set's weights for each table size, its distance table (by squares still to
    travel, the same for every colour) and its calibration (the observed error by tenth of the
    predicted range, for the half-widths, for each table size)."""

    ruleset: str
    weights: dict[int, list[float]]
    start: float
    distances: Distances
    bins: dict[int, list[float]]
    """Per table size and tenth of the predicted range, the absolute gap between prediction and
    outcome plus a 95% sampling margin, over the training positions."""
    teams: bool = False

    def weights_of(self, seats: int) -> list[float]:
        """The weights of a table of ``seats`` (the nearest size trained where it is not)."""
        return self.weights[nearest(self.weights, seats)]


@lru_cache(maxsize=16)
def load(ruleset: str) -> Model:
    """The committed model of ``ruleset``; FileNotFoundError when it has none."""
    return msgspec.json.decode((WEIGHTS / f"{ruleset}.json").read_bytes(), type=Model)


def save(model: Model) -> None:
    """Write a model as small, readable JSON."""
    data = msgspec.to_builtins(model)
    text = json.dumps(data, indent=1, sort_keys=True)
    (WEIGHTS / f"{model.ruleset}.json").write_text(text + "\n")


def softmax(scores: dict[int, float]) -> dict[int, float]:
    """Scores as probabilities that sum to one."""
    top = max(scores.values())
    exp = {seat: math.exp(score - top) for seat, score in scores.items()}
    total = sum(exp.values())
    return {seat: value / total for seat, value in exp.items()}


def predict(weights: list[float], features: dict[int, list[float]]) -> dict[int, float]:
    """Each side's chance of winning under ``weights`` (a side: a seat, or a team)."""
    return softmax({seat: sum(map(operator.mul, weights, f)) for seat, f in features.items()})


def chances(
    rules: RuleSet[Any], state: Any, model: Model | None = None, shown: View | None = None
) -> dict[int, float]:
    """Each seat's chance of winning ``state`` (a finished game: 1 shared by the winners; in a
    team game, its team's chance shared by the team's seats); ``shown``: its public view, if
    known. The chances are those of the public view: no hand is read."""
    model = model or load(rules.NAME)
    shown = shown or rules.view(state, None)
    winners = shown.winners
    if winners or not shown.to_act:
        seats = {piece.seat for piece in shown.pieces}
        share = 1 / len(winners) if winners else 0.0
        return {seat: share if seat in winners else 0.0 for seat in sorted(seats)}
    features = side_features(rules.NAME, shown, model.distances, model.start)
    found = predict(model.weights_of(len({piece.seat for piece in shown.pieces})), features)
    shares = {seat: found[i] / len(side) for i, side in enumerate(sides(shown)) for seat in side}
    return dict(sorted(shares.items()))


def nearest(sizes: dict[int, Any], seats: int) -> int:
    """The table size among ``sizes`` nearest ``seats`` (the smaller of two as near)."""
    return min(sizes, key=lambda size: (abs(size - seats), size))


def half_width(model: Model, chance: float, seats: int) -> float:
    """The confidence half-width of a seat's predicted chance at a table of ``seats``: its
    side's tenth's calibration error (in a team game of pairs, a seat holds half its team's
    chance, and half its error)."""
    share = 2 if model.teams else 1
    bins = model.bins[nearest(model.bins, seats)]
    return bins[min(int(chance * share * 10), 9)] / share

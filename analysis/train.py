"""Train the win-chance model of each rule set on seeded self-play games and commit its weights.

Run ``python -m analysis.train [--games 400] [--ruleset sorry] [--seed 0] [--level greedy]``:
the same arguments give the same weights on any machine (pure Python, seeded games between
the service's bots of ``--level``, Newton's method). In a team game the model scores teams.
Training games use seeds ``seed * 100_000 + 0 .. games - 1``: the first ``TABLE_GAMES`` build
the distance table, and every game gives a few positions with its outcome. The benchmark holds
out seeds from ``HELD_OUT`` on.
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict
from typing import Any

from analysis.features import Distances, side_features, sides, winning_sides
from analysis.model import Model, predict, save
from analysis.selfplay import LEVEL, game
from domain.registry import RULESETS, find_ruleset

HELD_OUT = 10_000_000
EVERY = 15
"""One position in this many is kept as a training sample: neighbours are near copies and
share an outcome, so many games sampled thinly teach more than few sampled densely."""
TABLE_GAMES = 50

Sample = tuple[Any, tuple[int, ...]]


def play(
    ruleset: str, seeds: range, tables: int = TABLE_GAMES, level: str = LEVEL
) -> tuple[list[Sample], dict[tuple[int, str], list[int]]]:
    """Sampled (state, winners) pairs of self-play at ``level``, and each (seat, location)'s
    moves-to-home observations (from the first ``tables`` games)."""
    rules = find_ruleset(ruleset)
    samples: list[Sample] = []
    seen: dict[tuple[int, str], list[int]] = defaultdict(list)
    for number, seed in enumerate(seeds):
        states = [state for state, _ in game(ruleset, seed, level)]
        winners = tuple(rules.view(states[-1], None).winners)
        samples.extend((state, winners) for state in states[seed % EVERY : -1 : EVERY])
        if number >= tables:
            continue
        trails: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for state in states:
            for piece in rules.view(state, None).pieces:
                trail = trails[piece.id]
                if not trail or trail[-1][1] != piece.at:
                    trail.append((piece.seat, piece.at))
        for trail in trails.values():
            remember(trail, seen)
    return samples, seen


def remember(trail: list[tuple[int, str]], seen: dict[tuple[int, str], list[int]]) -> None:
    """Record the moves to home from each place of a piece that finished (since its last start)."""
    last = trail[-1][1]
    if not (last == "home" or last.startswith("lane")):
        return
    begin = max((i for i, (_, at) in enumerate(trail) if at == "start"), default=0)
    for i in range(begin, len(trail)):
        seat, at = trail[i]
        seen[seat, at].append(len(trail) - 1 - i)


def distance_table(seen: dict[tuple[int, str], list[int]]) -> tuple[Distances, float]:
    """Each (seat, location)'s mean moves to home, and the distance of a piece in start."""
    table: Distances = defaultdict(dict)
    for (seat, at), counts in sorted(seen.items()):
        table[seat][at] = round(sum(counts) / len(counts), 3)
    starts = [places["start"] for places in table.values() if "start" in places]
    widest = max(max(places.values()) for places in table.values())
    start = max(starts) if starts else widest
    return dict(table), max(start, widest, 1.0)


def fit(
    rows: list[tuple[dict[int, list[float]], tuple[int, ...]]], steps: int = 8, decay: float = 1e-3
) -> list[float]:
    """Multinomial logistic weights shared by the seats, by Newton's method on the mean log loss
    with a small L2 penalty (``steps`` iterations; it converges in about six)."""
    size = len(next(iter(rows[0][0].values())))
    weights = [0.0] * size
    for _ in range(steps):
        grad = [decay * w for w in weights]
        hess = [[decay if i == j else 0.0 for j in range(size)] for i in range(size)]
        for features, winners in rows:
            accumulate(weights, features, winners, grad, hess, 1 / len(rows))
        for i in range(size):
            for j in range(i):
                hess[i][j] = hess[j][i]
        weights = [w - d for w, d in zip(weights, solve(hess, grad), strict=True)]
    return [round(w, 5) for w in weights]


def accumulate(
    weights: list[float],
    features: dict[int, list[float]],
    winners: tuple[int, ...],
    grad: list[float],
    hess: list[list[float]],
    share: float,
) -> None:
    """Add one position's log-loss gradient and the upper triangle of its Hessian (weighted by
    ``share``)."""
    probs = predict(weights, features)
    size = len(weights)
    mean = [sum(probs[s] * f[k] for s, f in features.items()) for k in range(size)]
    for seat, f in features.items():
        target = 1 / len(winners) if seat in winners else 0.0
        gap, p = (probs[seat] - target) * share, probs[seat] * share
        centred = [x - m for x, m in zip(f, mean, strict=True)]
        for i, x in enumerate(f):
            grad[i] += gap * x
            row, ci = hess[i], centred[i] * p
            for j in range(i, size):
                row[j] += ci * centred[j]


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix`` x = ``vector`` by Gaussian elimination with partial pivoting."""
    size = len(vector)
    rows = [[*row, b] for row, b in zip(matrix, vector, strict=True)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, size):
            factor = rows[r][col] / rows[col][col]
            rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    found = [0.0] * size
    for r in reversed(range(size)):
        rest = sum(rows[r][c] * found[c] for c in range(r + 1, size))
        found[r] = (rows[r][size] - rest) / rows[r][r]
    return found


def calibration(pairs: list[tuple[float, float]]) -> list[float]:
    """Per tenth of the predicted range: |mean prediction - observed rate| + a 95% margin."""
    bins: list[list[tuple[float, float]]] = [[] for _ in range(10)]
    for chance, won in pairs:
        bins[min(int(chance * 10), 9)].append((chance, won))
    widths = []
    for tenth, pairs_in in enumerate(bins):
        if not pairs_in:
            widths.append(0.1)
            continue
        mean = sum(c for c, _ in pairs_in) / len(pairs_in)
        rate = sum(w for _, w in pairs_in) / len(pairs_in)
        centre = (tenth + 0.5) / 10
        margin = 1.96 * math.sqrt(centre * (1 - centre) / len(pairs_in))
        widths.append(round(abs(mean - rate) + margin, 4))
    return widths


def train(ruleset: str, games: int, seed: int, level: str = LEVEL) -> Model:
    """One rule set's model from ``games`` seeded self-play games at ``level``."""
    rules = find_ruleset(ruleset)
    seeds = range(seed * 100_000, seed * 100_000 + games)
    samples, seen = play(ruleset, seeds, level=level)
    table, start = distance_table(seen)
    rows = []
    for state, winners in samples:
        shown = rules.view(state, None)
        features = side_features(rules, state, table, start, shown)
        rows.append((features, winning_sides(sides(shown), winners)))
    weights = fit(rows)
    pairs = [
        (chance, float(side in winning))
        for (features, winning) in rows
        for side, chance in predict(weights, features).items()
    ]
    distances = {str(seat): places for seat, places in table.items()}
    teams = ruleset == "partners"
    return Model(ruleset, weights, start, distances, calibration(pairs), teams)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--ruleset", choices=sorted(RULESETS), action="append")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", choices=["random", "greedy", "expert"], default=LEVEL)
    args = parser.parse_args()
    for ruleset in args.ruleset or sorted(RULESETS):
        model = train(ruleset, args.games, args.seed, args.level)
        save(model)
        print(f"{ruleset}: weights {model.weights}, start distance {model.start:.1f}")


if __name__ == "__main__":
    main()

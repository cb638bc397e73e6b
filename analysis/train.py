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

from analysis.features import Distances, side_features, sides, winning_sides
from analysis.model import Model, predict, save
from analysis.pips import seat_count, to_go
from analysis.selfplay import LEVEL, game, seatings
from domain.model import View
from domain.registry import RULESETS, find_ruleset

HELD_OUT = 10_000_000
EVERY = 15
"""One position in this many is kept as a training sample: neighbours are near copies and
share an outcome, so many games sampled thinly teach more than few sampled densely."""
TABLE_GAMES = 50

Sample = tuple[View, tuple[int, ...]]


def play(
    ruleset: str, seeds: range, tables: int = TABLE_GAMES, level: str = LEVEL
) -> tuple[list[Sample], dict[int, list[int]]]:
    """Sampled (public view, winners) pairs of self-play at ``level``, each game at the next
    table size the rule set allows in turn, and each number of squares to go's moves-to-home
    observations (from the first ``tables`` games)."""
    rules = find_ruleset(ruleset)
    sizes = seatings(rules)
    samples: list[Sample] = []
    seen: dict[int, list[int]] = defaultdict(list)
    for number, seed in enumerate(seeds):
        players = sizes[number % len(sizes)]
        shown = [rules.view(state, None) for state, _ in game(ruleset, seed, level, None, players)]
        winners = tuple(shown[-1].winners)
        samples.extend((view, winners) for view in shown[seed % EVERY : -1 : EVERY])
        if number >= tables:
            continue
        squares = to_go(ruleset, shown[0])
        trails: dict[str, list[int]] = defaultdict(list)
        for view in shown:
            for piece in view.pieces:
                left, trail = squares(piece.seat, piece.at), trails[piece.id]
                if not trail or trail[-1] != left:
                    trail.append(left)
        for trail in trails.values():
            remember(trail, seen)
    return samples, seen


def remember(trail: list[int], seen: dict[int, list[int]]) -> None:
    """Record the moves to finish from each number of squares to go of a piece that finished
    (since its last start, where it had the most to go)."""
    if trail[-1] != 0:
        return
    most = max(trail)
    begin = max(i for i, left in enumerate(trail) if left == most)
    for i in range(begin, len(trail)):
        seen[trail[i]].append(len(trail) - 1 - i)


def distance_table(seen: dict[int, list[int]]) -> tuple[Distances, float]:
    """Each number of squares to go's mean moves to home (a number never seen: that of the
    nearest fewer seen), and the distance of a piece in start (the most squares)."""
    table: Distances = {0: 0.0}
    for left, counts in sorted(seen.items()):
        if left:
            table[left] = round(sum(counts) / len(counts), 3)
    last = 0.0
    for left in range(max(table) + 1):
        last = table.setdefault(left, last)
    start = table[max(table)]
    return dict(sorted(table.items())), max(start, max(table.values()), 1.0)


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
    """One rule set's model from ``games`` seeded self-play games at ``level``, of every table
    size in turn: one distance table, weights and calibration for each size."""
    seeds = range(seed * 100_000, seed * 100_000 + games)
    samples, seen = play(ruleset, seeds, level=level)
    table, start = distance_table(seen)
    rows: dict[int, list[tuple[dict[int, list[float]], tuple[int, ...]]]] = defaultdict(list)
    for shown, winners in samples:
        features = side_features(ruleset, shown, table, start)
        rows[seat_count(shown)].append((features, winning_sides(sides(shown), winners)))
    weights, bins = {}, {}
    for size, found in sorted(rows.items()):
        weights[size] = fit(found)
        pairs = [
            (chance, float(side in winning))
            for (features, winning) in found
            for side, chance in predict(weights[size], features).items()
        ]
        bins[size] = calibration(pairs)
    return Model(ruleset, weights, start, table, bins, ruleset == "partners")


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
        print(f"{ruleset}: weights {model.weights}, start distance {model.start:.1f}", flush=True)


if __name__ == "__main__":
    main()

"""How good and how fast the game analysis is: calibration, speed and luck over self-play.

For each rule set, over held-out self-play games between equal random bots (seeds never used
for training):

- calibration: the expected calibration error of every seat's (in ``partners`` every team's)
  predicted win chance by tenths of the predicted range, and the Brier score (summed over
  seats, per position) against the best single-feature baseline, a logistic model over the
  pieces' distance to home alone (fitted on the very positions it is scored on, which
  favours it);
- speed: CPU seconds of one position's chances, of one position's hint (every legal move
  valued) and of the analysis of a game's first 400 events;
- luck: each seat's luck summed over a game, its mean over the games and a 95% interval
  (equal bots: about zero).

Run ``python bench/analysis.py [--games 40] [--ruleset sorry] [--luck-games 20]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    # Run as a script, this file would shadow the packages it measures.
    sys.path[0] = str(ROOT)

import argparse  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from analysis.features import seat_features  # noqa: E402
from analysis.game import analyse, value  # noqa: E402
from analysis.model import load, predict  # noqa: E402
from analysis.selfplay import game, recorded  # noqa: E402
from analysis.train import HELD_OUT, fit  # noqa: E402
from domain.registry import RULESETS, find_ruleset  # noqa: E402

EVERY = 3


def positions(ruleset: str, games: int) -> list[tuple[Any, tuple[int, ...]]]:
    """(state, winners) of every third position of ``games`` held-out games."""
    rules = find_ruleset(ruleset)
    found = []
    for seed in range(HELD_OUT, HELD_OUT + games):
        states = [state for state, _ in game(ruleset, seed)]
        winners = tuple(rules.view(states[-1], None).winners)
        found.extend((state, winners) for state in states[:-1:EVERY])
    return found


def ece(pairs: list[tuple[float, float]]) -> float:
    """Expected calibration error over tenths of the predicted range."""
    bins: list[list[tuple[float, float]]] = [[] for _ in range(10)]
    for chance, won in pairs:
        bins[min(int(chance * 10), 9)].append((chance, won))
    total = 0.0
    for members in bins:
        if members:
            gap = sum(c for c, _ in members) / len(members) - sum(w for _, w in members) / len(
                members
            )
            total += len(members) / len(pairs) * abs(gap)
    return total


def brier(rows: list[tuple[dict[int, float], tuple[int, ...]]]) -> float:
    """Mean over positions of the squared error summed over seats."""
    total = 0.0
    for probs, winners in rows:
        total += sum(
            (p - (1 / len(winners) if s in winners else 0.0)) ** 2 for s, p in probs.items()
        )
    return total / len(rows)


def calibration(ruleset: str, games: int) -> str:
    rules, model = find_ruleset(ruleset), load(ruleset)
    found = positions(ruleset, games)
    feats = [(seat_features(rules, s, model.table(), model.start), w) for s, w in found]
    rows = [(predict(model.weights, f), w) for f, w in feats]
    teams = getattr(rules.view(found[0][0], None), "teams", None) or [[s] for s in rows[0][0]]
    pairs = [
        (sum(probs[s] for s in team), float(any(s in w for s in team)))
        for probs, w in rows
        for team in teams
    ]
    alone = [({s: [v[0]] for s, v in f.items()}, w) for f, w in feats]
    base_w = fit(alone, steps=150)
    base = brier([(predict(base_w, f), w) for f, w in alone])
    model_brier = brier(rows)
    return (
        f"  calibration over {len(found)} positions ({games} games, {len(pairs)} seat chances): "
        f"ECE {ece(pairs) * 100:.1f} points; Brier {model_brier:.4f} vs distance-only "
        f"{base:.4f} (ratio {model_brier / base:.2f})"
    )


def speed(ruleset: str) -> str:
    rules, model = find_ruleset(ruleset), load(ruleset)
    states = [state for state, _ in game(ruleset, HELD_OUT - 1)][::5]
    started = time.process_time()
    for state in states:
        predict(model.weights, seat_features(rules, state, model.table(), model.start))
    one = (time.process_time() - started) / len(states)
    started = time.process_time()
    for state in states:
        value(rules, state, model)
    hint = (time.process_time() - started) / len(states)
    log = recorded(ruleset, HELD_OUT - 2)[:400]
    started = time.process_time()
    analyse(log, "bench")
    whole = time.process_time() - started
    return (
        f"  speed (CPU): one position {one * 1000:.2f} ms, one hint {hint * 1000:.1f} ms, "
        f"a {len(log)}-event game {whole:.2f} s"
    )


def luck(ruleset: str, games: int) -> str:
    sums: list[list[float]] = []
    for seed in range(HELD_OUT + 50_000, HELD_OUT + 50_000 + games):
        sums.append(analyse(recorded(ruleset, seed), str(seed)).luck)
    parts = []
    for seat in range(len(sums[0])):
        values = [s[seat] for s in sums]
        mean = statistics.fmean(values)
        spread = (
            1.96 * statistics.stdev(values) / math.sqrt(len(values))
            if len(values) > 1
            else math.inf
        )
        parts.append(f"seat {seat} {mean:+.3f} ±{spread:.3f}")
    return f"  luck per game over {games} games (mean, 95% interval): " + ", ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--luck-games", type=int, default=20)
    parser.add_argument("--ruleset", choices=sorted(RULESETS), action="append")
    args = parser.parse_args()
    for ruleset in args.ruleset or sorted(RULESETS):
        print(ruleset)
        print(calibration(ruleset, args.games), flush=True)
        print(speed(ruleset), flush=True)
        print(luck(ruleset, args.luck_games), flush=True)


if __name__ == "__main__":
    main()

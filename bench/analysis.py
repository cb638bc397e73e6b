"""How good and how fast the game analysis is, target by target, for every rule set and seating.

For each rule set and each table size it allows (the seats' colours follow from the size),
over ``--games`` held-out self-play games between equal bots of ``--level`` (the service's
``greedy`` bots unless told otherwise; seeds never used for training), every ``--stride``-th
position of each game:

- calibration (targets: ECE at most 3 points, Brier at most 0.9 x the baseline), printed as a
  table, a row per rule set and table size: the positions, the expected calibration error of
  every seat's (in ``partners`` every team's) chance as the analysis shows it (the model
  looked one step ahead, ``analysis.game.examine``) by tenths of the predicted range, its
  Brier score (summed over seats or teams, per position), the Brier score of the pip-count
  logistic baseline (one weight on each side's pieces' squares still to travel, read off the
  board by colour, fitted on the very positions it is scored on, which favours it), their
  ratio, the best ratio any model can reach (the floor, below), and the model's own Brier
  score and ECE without the look-ahead. Each figure's 95% interval resamples the games, not
  the positions (the positions of one game share its outcome); the ECE's is the basic
  bootstrap's, which takes off the ECE's upward bias on few games;
- the floor (``--floor-positions``, none unless asked): on that many of a seating's
  positions, drawn across its games, each side's chance estimated as its share of
  ``--rollouts`` continuations between bots of the same level; their squared error less the
  estimate's own variance (p(1-p)/n for a side of chance p, estimated without bias by
  p^(1-p^)/(n-1)) is what a perfect model of that play scores, so its Brier score over the
  baseline's on the same positions is the best ratio any model can reach;
- speed (targets: a 400-event game at most 5 s, one position's hint at most 50 ms): CPU
  seconds of one position's chances, of one position's hint (every legal move valued: the
  mean and the slowest) and of the analysis of a four-seat game's first 400 events (the
  median of ``GAME_RUNS`` runs, each from a cold judge, with their range: one run on a
  shared machine can be a fifth off);
- luck (target: about zero): each seat's luck summed over each of ``--luck-games`` games
  (the luck alone, no decision judged), its mean and a 95% interval; met when every interval
  holds zero. ``--jobs`` analyses that many games at once (one process each); a partial line
  is printed every ``--every`` games. With ``--luck-file F`` each game's sums are appended to
  F (a JSON line per game: rule set, seed, sums) as it ends, and the games F already holds
  are not played again: a long run can stop and go on later, and its figures are the same.

Run ``python bench/analysis.py [--games 200] [--stride 10] [--players 2] [--floor-positions 0]
[--rollouts 16] [--level greedy] [--luck-games 1000] [--jobs 2] [--ruleset sorry]
[--skip luck]``; ``--ruleset`` again adds a rule set, in the order given, and ``--players``
again a table size.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    # Run as a script, this file would shadow the packages it measures.
    sys.path[0] = str(ROOT)

import argparse  # noqa: E402
import concurrent.futures  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any, NamedTuple  # noqa: E402

from analysis.danger import board_judge  # noqa: E402
from analysis.features import sides, winning_sides  # noqa: E402
from analysis.game import Valuer, analyse, examine, luck_totals  # noqa: E402
from analysis.model import chances, load, predict  # noqa: E402
from analysis.pips import length, pip_counts  # noqa: E402
from analysis.selfplay import LEVEL, game, recorded, rollout, seatings  # noqa: E402
from analysis.train import HELD_OUT, fit  # noqa: E402
from domain.events import Event  # noqa: E402
from domain.registry import RULESETS, find_ruleset  # noqa: E402

TARGET_ECE = 3.0
TARGET_RATIO = 0.9
TARGET_GAME = 5.0
"""CPU seconds of the analysis of a game's first 400 events."""
GAME_RUNS = 3
"""Analyses of the 400-event game timed, for the median."""
BOOTSTRAP = 400
"""Resamples of the games for a 95% interval."""
Rows = list[tuple[dict[int, float], tuple[int, ...]]]


class Position(NamedTuple):
    """A held-out position: its state, the game's winners, and the game's log with the number
    of its events up to the state."""

    state: Any
    event: Event
    winners: tuple[int, ...]
    log: list[Event]
    events: int
    seed: int
    """The game's seed: positions of one game share its outcome, so intervals resample games."""


def positions(ruleset: str, games: int, level: str, players: int, stride: int) -> list[Position]:
    """Every ``stride``-th position of ``games`` held-out games of ``players`` seats at
    ``level`` (the first of each game at a place of its own, so every kind of position
    comes)."""
    rules = find_ruleset(ruleset)
    found: list[Position] = []
    for seed in range(HELD_OUT, HELD_OUT + games):
        log: list[Event] = []
        states = [(s, e, len(log)) for s, e in game(ruleset, seed, level, log, players)]
        winners = tuple(rules.view(states[-1][0], None).winners)
        found.extend(
            Position(state, event, winners, log, n, seed)
            for state, event, n in states[seed % stride : -1 : stride]
            if event is not None
        )
    return found


def bootstrap(
    games: list[int], figure: Any, draws: int = BOOTSTRAP, seed: str = "bootstrap"
) -> tuple[float, float]:
    """The 95% percentile interval of ``figure`` (a function of a list of game indices, each
    as often as drawn) over ``draws`` resamples of the games with replacement: the positions
    of one game share its outcome, so games, not positions, are the independent draws."""
    rng = random.Random(seed)
    found = sorted(figure(rng.choices(games, k=len(games))) for _ in range(draws))
    return found[int(0.025 * draws)], found[min(draws - 1, int(0.975 * draws))]


def basic(figure: float, percentiles: tuple[float, float]) -> tuple[float, float]:
    """The basic bootstrap's 95% interval (the figure less the resamples' spread about it, at
    least 0): the ECE, a sum of absolute gaps, is larger on a resample than on the games
    themselves, and the basic interval corrects that bias, which the percentiles would carry."""
    low, high = percentiles
    return max(2 * figure - high, 0.0), max(2 * figure - low, 0.0)


def by_game(found: list[Position]) -> dict[int, list[int]]:
    """The indices of the positions of each game, by the game's seed."""
    grouped: dict[int, list[int]] = {}
    for index, p in enumerate(found):
        grouped.setdefault(p.seed, []).append(index)
    return grouped


def brier_of(probs: dict[int, float], winners: tuple[int, ...] | list[int]) -> float:
    """One position's squared error summed over sides (``winners``: the winning sides)."""
    return sum((p - (1 / len(winners) if s in winners else 0.0)) ** 2 for s, p in probs.items())


def brier(rows: Rows) -> float:
    """Mean over positions of the squared error summed over sides."""
    return statistics.fmean(brier_of(probs, winners) for probs, winners in rows)


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


class Seating(NamedTuple):
    """One rule set and table size's calibration on held-out games, with 95% intervals over
    the games."""

    ruleset: str
    players: int
    positions: int
    ece: float
    ece_interval: tuple[float, float]
    brier: float
    baseline: float
    ratio_interval: tuple[float, float]
    model: float
    """The Brier score of the model alone, without looking ahead."""
    model_ece: float
    floor: str = ""
    """The best reachable ratio with its interval, when measured (``floor``)."""

    @property
    def ratio(self) -> float:
        return self.brier / self.baseline

    def line(self) -> str:
        met = self.ece <= TARGET_ECE and self.ratio <= TARGET_RATIO
        (ece_low, ece_high), (low, high) = self.ece_interval, self.ratio_interval
        return (
            f"| {self.ruleset} | {self.players} | {self.positions:,} | {self.ece:.1f}"
            f" ({ece_low:.1f}-{ece_high:.1f}) | {self.brier:.4f} | {self.baseline:.4f} |"
            f" {self.ratio:.3f} ({low:.3f}-{high:.3f}) | {self.floor} | {self.model:.4f} |"
            f" {self.model_ece:.1f} | {verdict(met)} |"
        )


class Sums(NamedTuple):
    """One game's sums: per tenth of the predicted range the sides' count, chances and wins, as
    the analysis shows them and of the model alone; the analysis's, the baseline's and the
    model's squared errors; the positions."""

    bins: list[tuple[int, float, float]]
    alone_bins: list[tuple[int, float, float]]
    shown: float
    base: float
    alone: float
    positions: int


def tenths(indices: list[int], rows: Rows) -> list[tuple[int, float, float]]:
    """Per tenth of the predicted range, the sides' count, chances summed and wins summed."""
    bins = [[0, 0.0, 0.0] for _ in range(10)]
    for index in indices:
        probs, winners = rows[index]
        for side, chance in probs.items():
            cell = bins[min(int(chance * 10), 9)]
            cell[0] += 1
            cell[1] += chance
            cell[2] += float(side in winners)
    return [(int(n), c, w) for n, c, w in bins]


def game_sums(indices: list[int], rows: Rows, base_rows: Rows, alone: Rows) -> Sums:
    """The sums of one game's positions (``indices`` into the rows)."""
    return Sums(
        tenths(indices, rows),
        tenths(indices, alone),
        sum(brier_of(*rows[i]) for i in indices),
        sum(brier_of(*base_rows[i]) for i in indices),
        sum(brier_of(*alone[i]) for i in indices),
        len(indices),
    )


def pooled_ece(games: list[Sums], alone: bool = False) -> float:
    """The ECE, in points, of the positions of ``games`` (a game as often as listed), as the
    analysis shows them or (``alone``) of the model alone."""
    cells = [g.alone_bins if alone else g.bins for g in games]
    total = sum(n for bins in cells for n, _, _ in bins)
    return 100 * sum(abs(sum(b[t][1] - b[t][2] for b in cells)) for t in range(10)) / total


def pooled_ratio(games: list[Sums]) -> float:
    """The analysis's Brier score over the baseline's on the positions of ``games``."""
    return sum(g.shown for g in games) / sum(g.base for g in games)


def model_rows(ruleset: str, found: list[Position]) -> tuple[Rows, Rows]:
    """Every side's chances at each position with the winning sides: as the analysis shows
    them (looked one step ahead, ``analysis.game.examine``), and the model's alone."""
    rules, model = find_ruleset(ruleset), load(ruleset)
    valuer = Valuer(rules, model)
    shown_rows: Rows = []
    alone: Rows = []
    for p in found:
        shown = rules.view(p.state, None)
        parts, winning = sides(shown), winning_sides(sides(shown), p.winners)
        alone.append((by_side(parts, chances(rules, p.state, model, shown)), winning))
        point = examine(valuer, p.state, p.events + 1, p.event, random.Random(p.events))
        looked = alone[-1][0] if point is None else by_side(parts, dict(enumerate(point.chances)))
        shown_rows.append((looked, winning))
    return shown_rows, alone


def baseline_rows(ruleset: str, found: list[Position]) -> Rows:
    """The pip-count logistic baseline's chances: one weight on each side's pip count (its
    seats' pieces' squares still to travel, as a share of the whole path), fitted on the very
    positions it is scored on."""
    rules = find_ruleset(ruleset)
    alone = []
    for p in found:
        shown = rules.view(p.state, None)
        parts, pips, whole = sides(shown), pip_counts(ruleset, shown), 4 * length(ruleset, shown)
        features = {i: [sum(pips[s] for s in side) / whole] for i, side in enumerate(parts)}
        alone.append((features, winning_sides(parts, p.winners)))
    weights = fit(alone)
    return [(predict(weights, f), w) for f, w in alone]


def calibration(
    ruleset: str, players: int, games: int, level: str, stride: int
) -> tuple[Seating, list[Position], Rows, Rows]:
    """One seating's figures on ``games`` held-out games, with its positions and the
    analysis's and the baseline's rows."""
    found = positions(ruleset, games, level, players, stride)
    (rows, alone), base_rows = model_rows(ruleset, found), baseline_rows(ruleset, found)
    sums = [game_sums(indices, rows, base_rows, alone) for indices in by_game(found).values()]
    every = list(range(len(sums)))

    def ece_of(drawn: list[int]) -> float:
        return pooled_ece([sums[i] for i in drawn])

    def ratio_of(drawn: list[int]) -> float:
        return pooled_ratio([sums[i] for i in drawn])

    seating = Seating(
        ruleset,
        players,
        len(found),
        ece_of(every),
        basic(ece_of(every), bootstrap(every, ece_of)),
        brier(rows),
        brier(base_rows),
        bootstrap(every, ratio_of),
        brier(alone),
        pooled_ece(sums, alone=True),
    )
    return seating, found, rows, base_rows


def by_side(parts: list[tuple[int, ...]], probs: dict[int, float]) -> dict[int, float]:
    """Seats' chances summed by side."""
    return {i: sum(probs[seat] for seat in side) for i, side in enumerate(parts)}


def perfect(rules: Any, p: Position, rng: random.Random, rollouts: int, level: str) -> float:
    """A perfect model's squared error at one position, unbiased: each side's chance is
    estimated as its share of ``rollouts`` continuations between bots of ``level``, and the
    estimate's own variance (p(1-p)/n for a side of chance p) is taken off, estimated without
    bias by p^(1-p^)/(n-1)."""
    parts = sides(rules.view(p.state, None))
    shares: dict[int, float] = dict.fromkeys(range(len(parts)), 0.0)
    for _ in range(rollouts):
        winning = winning_sides(parts, rollout(rules, p.state, rng, level, p.log[: p.events]))
        for side in winning:
            shares[side] += 1 / (len(winning) * rollouts)
    return unbiased(shares, winning_sides(parts, p.winners), rollouts)


def unbiased(shares: dict[int, float], winners: tuple[int, ...], rollouts: int) -> float:
    """The squared error of the true chances, estimated without bias from each side's share
    of ``rollouts`` continuations: the shares' squared error less their own variance
    estimated without bias (a share's variance is p(1-p)/n, and E[s(1-s)] = p(1-p)(n-1)/n)."""
    noise = sum(q * (1 - q) for q in shares.values()) / (rollouts - 1)
    return brier_of(shares, winners) - noise


def floor(
    rules: Any, found: list[Position], rows: Rows, base_rows: Rows, count: int, args: Any
) -> tuple[str, str]:
    """The best ratio to the baseline any model of play at ``args.level`` can reach, on
    ``count`` of the positions (drawn at random across the games): a perfect model's Brier
    score (``perfect``, from ``args.rollouts`` continuations each) over the baseline's on the
    same positions, with its 95% interval over the games; the table's cell and a line with
    the figures behind it."""
    rng = random.Random(f"floor:{rules.NAME}:{len(found)}")
    picked = sorted(rng.sample(range(len(found)), min(count, len(found))))
    scores = {i: perfect(rules, found[i], rng, args.rollouts, args.level) for i in picked}
    games: dict[int, list[int]] = {}
    for i in picked:
        games.setdefault(found[i].seed, []).append(i)
    sums = [
        (
            sum(scores[i] for i in g),
            sum(brier_of(*base_rows[i]) for i in g),
            sum(brier_of(*rows[i]) for i in g),
        )
        for g in games.values()
    ]
    every = list(range(len(sums)))

    def ratio(drawn: list[int], column: int = 0) -> float:
        return sum(sums[i][column] for i in drawn) / sum(sums[i][1] for i in drawn)

    low, high = bootstrap(every, ratio, seed=f"floor:{rules.NAME}")
    best, ours = ratio(every), ratio(every, 2)
    base = statistics.fmean(brier_of(*base_rows[i]) for i in picked)
    line = (
        f"  {rules.NAME}, {len(sides(rules.view(found[0].state, None)))} sides: floor on"
        f" {len(picked)} positions of {len(sums)} games ({args.rollouts} {args.level} rollouts"
        f" each): perfect {best * base:.4f}, pip count {base:.4f}, analysis {ours * base:.4f};"
        f" best reachable ratio {best:.3f} ({low:.3f}-{high:.3f}), the analysis's {ours:.3f}"
    )
    return f"{best:.3f} ({low:.3f}-{high:.3f})", line


def speed(ruleset: str) -> list[str]:
    rules, model = find_ruleset(ruleset), load(ruleset)
    states = [state for state, _ in game(ruleset, HELD_OUT - 1)][:-1:5]
    started = time.process_time()
    for state in states:
        chances(rules, state, model)
    one = (time.process_time() - started) / len(states)
    hints = []
    for state in states:
        started = time.process_time()
        Valuer(rules, model).value(state)
        hints.append(time.process_time() - started)
    log = recorded(ruleset, HELD_OUT - 2)[:400]
    runs = []
    for _ in range(GAME_RUNS):
        board_judge.cache_clear()
        started = time.process_time()
        analyse(log, "bench")
        runs.append(time.process_time() - started)
    whole = statistics.median(runs)
    slowest = max(hints)
    return [
        f"  one position's chances {one * 1000:.2f} ms (CPU)",
        f"  target hint <= 50 ms: mean {statistics.fmean(hints) * 1000:.1f} ms, slowest "
        f"{slowest * 1000:.1f} ms over {len(states)} positions ({verdict(slowest <= 0.05)})",
        f"  target {len(log)}-event game <= {TARGET_GAME} s: median {whole:.2f} s CPU of"
        f" {GAME_RUNS} runs ({min(runs):.2f}-{max(runs):.2f}) ({verdict(whole <= TARGET_GAME)})",
    ]


def game_luck(ruleset: str, seed: int) -> list[float]:
    """Each seat's luck summed over one held-out self-play game (a worker process's task)."""
    return luck_totals(recorded(ruleset, seed), str(seed))


def luck(
    ruleset: str, games: int, every: int, pool: concurrent.futures.Executor, kept: Path | None
) -> list[str]:
    started = time.perf_counter()
    seeds = range(HELD_OUT + 50_000, HELD_OUT + 50_000 + games)
    done = earlier_luck(kept, ruleset, seeds)
    todo = [seed for seed in seeds if seed not in done]
    if done:
        print(f"  {len(done)} games from {kept}, {len(todo)} to play", flush=True)
    for seed, found in zip(todo, pool.map(game_luck, [ruleset] * len(todo), todo), strict=True):
        done[seed] = found
        if kept is not None:
            with kept.open("a") as lines:
                lines.write(json.dumps({"ruleset": ruleset, "seed": seed, "sums": found}) + "\n")
        if len(done) % every == 0 and len(done) < games:
            print(f"  partial: {luck_line(list(done.values()))}", flush=True)
    sums = [done[seed] for seed in seeds]
    return [f"  {luck_line(sums)} ({time.perf_counter() - started:.0f} s)"]


def earlier_luck(kept: Path | None, ruleset: str, seeds: range) -> dict[int, list[float]]:
    """The sums of this rule set's games among ``seeds`` that the file ``kept`` holds."""
    if kept is None or not kept.exists():
        return {}
    rows = (json.loads(line) for line in kept.read_text().splitlines() if line.strip())
    return {r["seed"]: r["sums"] for r in rows if r["ruleset"] == ruleset and r["seed"] in seeds}


def luck_line(sums: list[list[float]]) -> str:
    """Each seat's mean luck per game with its 95% interval; met when every interval holds 0."""
    parts, met = [], True
    for seat in range(len(sums[0])):
        values = [s[seat] for s in sums]
        mean = statistics.fmean(values)
        spread = (
            1.96 * statistics.stdev(values) / math.sqrt(len(values))
            if len(values) > 1
            else math.inf
        )
        met = met and abs(mean) <= spread
        parts.append(f"seat {seat} {mean:+.4f} ±{spread:.4f}")
    return (
        f"target luck about zero over {len(sums)} games (mean per game, 95% interval): "
        + ", ".join(parts)
        + f" ({verdict(met)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--stride", type=int, default=10)
    parser.add_argument("--floor-positions", type=int, default=0)
    parser.add_argument("--rollouts", type=int, default=16)
    parser.add_argument("--level", choices=["random", "greedy", "expert"], default=LEVEL)
    parser.add_argument("--luck-games", type=int, default=1000)
    parser.add_argument("--ruleset", choices=sorted(RULESETS), action="append")
    parser.add_argument("--players", type=int, action="append")
    parser.add_argument(
        "--skip", choices=["calibration", "speed", "luck"], action="append", default=[]
    )
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--luck-file", type=Path, help="keep each game's luck here (JSON lines)")
    args = parser.parse_args()
    rulesets = args.ruleset or sorted(RULESETS)
    if "calibration" not in args.skip:
        table(rulesets, args)
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for ruleset in rulesets:
            report(ruleset, args, pool)


def table(rulesets: list[str], args: argparse.Namespace) -> None:
    """The calibration table: a row per rule set and table size (the floor's column filled
    where ``--floor-positions`` asks), then the floors' figures."""
    print(
        f"calibration on {args.games} held-out {args.level} games per seating (targets: ECE <="
        f" {TARGET_ECE} points, Brier <= {TARGET_RATIO} x the pip-count logistic baseline;"
        " 95% intervals over the games)"
    )
    print(
        "| rule set | seats | positions | ECE (points) | Brier | pip-count Brier | ratio |"
        " best reachable ratio | model alone | model alone's ECE | | CPU"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    floors = []
    for ruleset in rulesets:
        rules = find_ruleset(ruleset)
        for players in args.players or seatings(rules):
            if not rules.MIN_PLAYERS <= players <= rules.MAX_PLAYERS:
                continue
            started = time.process_time()
            seating, found, rows, base_rows = calibration(
                ruleset, players, args.games, args.level, args.stride
            )
            if args.floor_positions:
                cell, line = floor(rules, found, rows, base_rows, args.floor_positions, args)
                seating = seating._replace(floor=cell)
                floors.append(line)
            spent = time.process_time() - started
            print(f"{seating.line()} {spent:.0f} s", flush=True)
    for line in floors:
        print(line, flush=True)


def report(ruleset: str, args: argparse.Namespace, pool: concurrent.futures.Executor) -> None:
    """The speed and luck figures of one rule set, but the parts ``--skip`` names."""
    parts: dict[str, Callable[[], list[str]]] = {
        "speed": lambda: speed(ruleset),
        "luck": lambda: luck(ruleset, args.luck_games, args.every, pool, args.luck_file),
    }
    wanted = [part for name, part in parts.items() if name not in args.skip]
    if wanted:
        print(ruleset, flush=True)
    for part in wanted:
        print("\n".join(part()), flush=True)


if __name__ == "__main__":
    main()

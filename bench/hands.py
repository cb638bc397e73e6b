"""How often the expert finds a deal of the hidden cards consistent with what its seat saw, and
how long finding one takes, in ``sorry-hand`` games (``bots.knowledge.determinize``).

Each game seats the service's ``expert`` against the client's ``GreedyBot`` at the other seats
(the expert's seat rotates, ``g mod players``), played in process as ``bench/bots.py`` plays
them. At every decision of the expert, before it chooses, its redacted log is determinized once
more with a generator of its own and timed. Printed: the decisions, the misses (no consistent
deal found: the expert would play from the public board alone), the same for decisions past
event 300, and the time per ``determinize()`` call, p50 / p95 / max (one core, in process).

Run ``python bench/hands.py [--games 10] [--players 4] [--seed 0] [--jobs 1]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import concurrent.futures  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402

from bench import bots as bench_bots  # noqa: E402
from bots import knowledge  # noqa: E402
from domain.events import Event  # noqa: E402

LATE = 300
"""Decisions whose log is longer than this count again apart (the long histories)."""


@dataclass
class Tally:
    """What one or more games gave: decisions, misses (all and late) and each call's time."""

    decisions: int = 0
    misses: int = 0
    late: int = 0
    late_misses: int = 0
    seconds: list[float] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.decisions += other.decisions
        self.misses += other.misses
        self.late += other.late
        self.late_misses += other.late_misses
        self.seconds += other.seconds


def counted(tally: Tally) -> bench_bots.Chooser:
    """The service's expert, with one more timed determinization before each choice."""
    expert = bench_bots.service_bot("expert")

    def choose(
        rules: Any, state: Any, seat: int, log: list[Event], moves: list[Any], g: int
    ) -> str:
        seen = [rules.redact(event, seat) for event in log]
        started = time.perf_counter()
        try:
            knowledge.determinize(seen, seat, random.Random(hash((g, len(log), seat))))
            missed = 0
        except knowledge.Inconsistent:
            missed = 1
        tally.seconds.append(time.perf_counter() - started)
        tally.decisions += 1
        tally.misses += missed
        if len(log) > LATE:
            tally.late += 1
            tally.late_misses += missed
        return expert(rules, state, seat, log, moves, g)

    return choose


def play_one(g: int, seed: int, players: int) -> Tally:
    """Game ``g``: the expert against GreedyBots; what its decisions gave."""
    tally = Tally()
    bench_bots.CHOOSERS["counted"] = lambda: counted(tally)
    name = f"sorry-hand:expert-vs-{players - 1}-GreedyBot"
    matchup = bench_bots.Matchup(name, "sorry-hand", players, "counted", "GreedyBot", 0.0)
    bench_bots.play(matchup, g, seed)
    return tally


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    total = Tally()
    started = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        runs = [(g, args.seed, args.players) for g in range(args.games)]
        for tally in pool.map(play_one, *zip(*runs, strict=True)):
            total.add(tally)
    ms = [s * 1e3 for s in total.seconds]
    print(f"({args.games} {args.players}-player games, {time.perf_counter() - started:.0f} s)")
    heading = f"{'decisions':>9} {'misses':>6} {'past 300':>8} {'misses':>6}"
    print(f"{heading}  determinize ms p50 p95 max")
    print(
        f"{total.decisions:9} {total.misses:6} {total.late:8} {total.late_misses:6}  "
        f"{quantile(ms, 0.5):18.1f} {quantile(ms, 0.95):4.1f} {max(ms, default=0.0):5.1f}"
    )
    print(f"misses/decisions: {total.misses}/{total.decisions}")


if __name__ == "__main__":
    main()

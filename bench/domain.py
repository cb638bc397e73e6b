"""Random full games of every registered rule set on one core: turns/s, games/s, state size.

A turn is one action of a seat: a draw or roll (with its random outcome) or a decision.
Automatic events (forced passes, reshuffles, self-playing throws) are part of the turn that
led to them. State size is ``len(msgspec.json.encode(state))`` in bytes, averaged over every
state of one extra game (and its maximum), outside the timed part.

Run ``python bench/domain.py [--games N] [--seed S]`` (or ``make bench``); without
``--games`` each rule set plays for an equal share of about 10 seconds.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    # Run as a script, this file would shadow the ``domain`` package it measures.
    sys.path[0] = str(ROOT)

import argparse  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from typing import Any  # noqa: E402

import msgspec  # noqa: E402

from domain.registry import RULESETS  # noqa: E402
from domain.ruleset import RuleSet  # noqa: E402
from tests.domain.playout import random_events  # noqa: E402

MAX_TURNS = 100_000
MIN_GAMES = 3
TOTAL_SECONDS = 10.0


class Figures(msgspec.Struct, frozen=True):
    """What one rule set measured."""

    name: str
    players: int
    games: int
    turns: int
    seconds: float
    state_mean: float
    state_max: int


def states(rules: RuleSet, players: int, rng: random.Random) -> Iterator[Any]:
    """Every state of one random game after each turn, the initial state first."""
    start = rules.setup({}, players)
    yield start
    for state, _ in random_events(rules, start, rng, MAX_TURNS):
        yield state


def measure(rules: RuleSet, games: int | None, budget: float, seed: int) -> Figures:
    """Time ``games`` random games (or as many as fit in ``budget`` seconds, at least
    ``MIN_GAMES``), then size the states of one more."""
    players = min(rules.MAX_PLAYERS, 4)
    rng = random.Random(seed)
    played = turns = 0
    began = time.perf_counter()
    while played < (games or MIN_GAMES) or (games is None and time.perf_counter() - began < budget):
        turns += sum(1 for _ in states(rules, players, rng)) - 1
        played += 1
    seconds = time.perf_counter() - began
    sizes = [len(msgspec.json.encode(state)) for state in states(rules, players, rng)]
    return Figures(rules.NAME, players, played, turns, seconds, sum(sizes) / len(sizes), max(sizes))


def table(rows: list[Figures]) -> str:
    """The figures as a plain text table."""
    head: tuple[str, ...] = ("rule set", "players", "games", "turns", "seconds", "turns/s")
    head += ("games/s", "turns/game", "state B mean", "state B max")
    lines: list[tuple[str, ...]] = [head]
    for row in rows:
        lines.append(
            (
                row.name,
                str(row.players),
                str(row.games),
                str(row.turns),
                f"{row.seconds:.2f}",
                f"{row.turns / row.seconds:,.0f}",
                f"{row.games / row.seconds:,.1f}",
                f"{row.turns / row.games:,.0f}",
                f"{row.state_mean:,.0f}",
                str(row.state_max),
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    lines.insert(1, tuple("-" * width for width in widths))
    return "\n".join(
        "  ".join(cell.rjust(width) for cell, width in zip(line, widths, strict=True))
        for line in lines
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help=f"games per rule set (default: as many as fit in {TOTAL_SECONDS:g} s in all)",
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = parser.parse_args(argv)
    budget = TOTAL_SECONDS / len(RULESETS)
    rows = [measure(RULESETS[name], args.games, budget, args.seed) for name in sorted(RULESETS)]
    print(table(rows))
    print("turn = one draw/roll or one decision; state B = len(msgspec.json.encode(state))")


if __name__ == "__main__":
    main()

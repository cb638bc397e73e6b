"""The analysis bench prints its per-seating table with the floor beside the ratio (tiny
sizes; no figure is judged here)."""

from __future__ import annotations

import math
import sys

from tests.bench.running import ROOT, bench


def test_the_calibration_table_shows_the_best_reachable_ratio_beside_the_ratio() -> None:
    argv = ["--ruleset", "sorry", "--players", "2", "--games", "4", "--stride", "10"]
    argv += ["--floor-positions", "6", "--rollouts", "3", "--skip", "speed", "--skip", "luck"]
    printed = bench("analysis.py", argv, timeout=300, env={"PATH": "/usr/bin:/bin"})
    header, row = (line for line in printed.splitlines() if line.startswith("| "))
    cells = dict(zip(header.split("|"), row.split("|"), strict=True))
    assert cells[" ratio "].count("-") == 1, row
    assert cells[" best reachable ratio "].strip()[0].isdigit(), row
    assert "best reachable ratio" in printed.splitlines()[-1]


def test_the_floor_takes_the_rollouts_own_variance_off_without_bias() -> None:
    sys.path.insert(0, str(ROOT))
    from bench.analysis import brier_of, unbiased

    chance, rollouts = 0.3, 5
    for winner in (0, 1):
        expected = 0.0
        for wins in range(rollouts + 1):
            weight = math.comb(rollouts, wins) * chance**wins * (1 - chance) ** (rollouts - wins)
            shares = {0: wins / rollouts, 1: 1 - wins / rollouts}
            expected += weight * unbiased(shares, (winner,), rollouts)
        truth = brier_of({0: chance, 1: 1 - chance}, (winner,))
        assert math.isclose(expected, truth), (expected, truth)

"""The bench scripts still run and print their tables (tiny sizes; no figure is judged here)."""

from __future__ import annotations

import pytest

from tests.bench.running import bench

RUNS = [
    (["api.py", "--clients", "2", "--seconds", "0.5", "--raw-seconds", "0.3"], "ratio"),
    (["ceiling.py", "--clients", "2", "--seconds", "0.5", "--raw-seconds", "0.3"], "requests/s"),
    (["move_calls.py", "--clients", "2", "--seconds", "0.5", "--top", "3"], "calls on the event"),
    (["memory.py", "--games", "3", "--moves", "2"], "KiB/game"),
    (["replay.py", "--sizes", "100", "--reads", "3"], "at=N p50"),
    (["domain.py", "--games", "1"], "turns/s"),
    (["bots.py", "--games", "1", "--only", "sorry:greedy-vs", "ludo:expert-vs-greedy"], "think ms"),
    (["abuse.py", "--seconds", "0.3", "--quick"], "attacker saw"),
    (["reads.py", "--sizes", "30", "120", "--reads", "2"], "standings ms"),
    (["pairings.py", "--players", "8", "--seeds", "1"], "first seats"),
    (["hands.py", "--games", "1"], "misses/decisions"),
    (["budgets.py", "--checks", "50", "--rounds", "2"], "us/check"),
    (["budget_spread.py", "--seconds", "0.5"], "creations/min"),
    (["bot_service.py", "--games", "1", "--rulesets", "sorry", "--levels", "random"], "p95 ms"),
    (
        ["lobby.py", "--seeks", "12", "--seconds", "0.5", "--tables", "100", "200", "--reads", "3"],
        "seated twice 0",
    ),
]


@pytest.mark.parametrize(("argv", "heading"), RUNS, ids=[argv[0] for argv, _ in RUNS])
def test_a_bench_script_runs_and_prints_its_figures(argv: list[str], heading: str) -> None:
    env = {"TABULA_TEST_POSTGRES_URL": "", "PATH": "/usr/bin:/bin"}
    printed = bench(argv[0], argv[1:], timeout=300, env=env)
    assert heading in printed, printed

"""bench/commit_rate.py still runs on a given database and prints its table (tiny sizes; no
figure is judged here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.postgres import postgres_schema

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).parents[2]


def test_the_commit_rate_bench_runs_on_a_given_database_and_prints_each_kind() -> None:
    with postgres_schema("rate") as url:
        argv = ["--url", url, "--writers", "1", "--seconds", "0.5", "--interval", "0.25"]
        done = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "commit_rate.py"), *argv],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "commits/s" in done.stdout
    for kind in ("store", "raw", "notify"):
        assert f"as it is, {kind}" in done.stdout, done.stdout

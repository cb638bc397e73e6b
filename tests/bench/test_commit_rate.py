"""bench/commit_rate.py still runs on a given database and prints its table (tiny sizes; no
figure is judged here)."""

from __future__ import annotations

import pytest

from tests.bench.running import bench
from tests.postgres import postgres_schema

pytestmark = pytest.mark.postgres


def test_the_commit_rate_bench_runs_on_a_given_database_and_prints_each_kind() -> None:
    with postgres_schema("rate") as url:
        argv = ["--url", url, "--writers", "1", "--seconds", "0.5", "--interval", "0.25"]
        printed = bench("commit_rate.py", argv, timeout=120)
    assert "commits/s" in printed
    for kind in ("store", "raw", "notify"):
        assert f"as it is, {kind}" in printed, printed

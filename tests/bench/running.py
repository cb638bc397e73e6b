"""Running a bench script as a reader does, from the repository's root, for the tests that
check it still runs and prints its figures (no figure is judged)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def bench(script: str, argv: list[str], timeout: float, env: dict[str, str] | None = None) -> str:
    """What ``bench/<script>`` prints with ``argv`` (in ``env``: None, the tests' own), once it
    has exited 0."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout

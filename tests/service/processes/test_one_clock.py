"""One clock: ``make lint`` (ruff's banned-api rule) refuses the machine's time in the use
cases and the referee core, and the offset file moves the service's clock."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from service.clock import OffsetClock

ROOT = Path(__file__).parents[3]
READS_THE_MACHINE = [
    "from datetime import UTC, datetime\n\nprint(datetime.now(UTC))\n",
    "import time\n\nprint(time.time())\n",
    "import datetime\n\nprint(datetime.datetime.now())\n",
]


def ruff(path: str, source: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ruff", "check", "--no-cache", "--stdin-filename", path, "-"]
    return subprocess.run(command, input=source, capture_output=True, text=True, cwd=ROOT)


@pytest.mark.parametrize("source", READS_THE_MACHINE)
@pytest.mark.parametrize("folder", ["service/usecases", "service/core"])
def test_lint_refuses_the_machine_s_time_in_use_cases_and_the_core(
    folder: str, source: str
) -> None:
    checked = ruff(f"{folder}/example.py", source)
    assert checked.returncode == 1 and "TID251" in checked.stdout, checked.stdout


def test_lint_lets_the_composition_root_and_the_edge_read_it() -> None:
    for path in ("service/clock.py", "service/api/example.py", "service/app.py"):
        checked = ruff(path, READS_THE_MACHINE[0])
        assert checked.returncode == 0, checked.stdout


def test_the_offset_file_moves_the_clock_forward_and_back(tmp_path: Path) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    path = tmp_path / "offset"
    clock = OffsetClock(str(path), lambda: start)
    assert clock() == start  # no file: no offset
    path.write_text("90.5")
    assert clock() == start + timedelta(seconds=90.5)
    path.write_text("-3600\n")
    assert clock() == start - timedelta(hours=1)
    for nonsense in ("soon", "nan", "1e300", ""):
        path.write_text(nonsense)
        assert clock() == start, nonsense

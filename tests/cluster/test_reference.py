"""The reference deployment's files: the manual shows ``deploy/haproxy.cfg`` as it is, and
HAProxy reads it (where HAProxy is installed)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
CONFIG = ROOT / "deploy" / "haproxy.cfg"


def test_the_manual_shows_the_reference_haproxy_cfg_as_it_is() -> None:
    page = (ROOT / "docs" / "operations" / "cluster.md").read_text()
    assert f"```text\n{CONFIG.read_text()}```" in page


def test_haproxy_reads_the_reference_configuration() -> None:
    if shutil.which("haproxy") is None:
        pytest.skip("HAProxy is not installed (apt-get install -y haproxy)")
    env = {key: value for key, value in os.environ.items() if not key.startswith("TABULA_LB_")}
    done = subprocess.run(
        ["haproxy", "-c", "-f", str(CONFIG)], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr

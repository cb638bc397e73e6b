"""A PostgreSQL primary with a synchronous standby on loopback, made by
``deploy/postgres-standby.sh`` (standalone) for a test or a benchmark to kill, pause and promote.

Needs root (PostgreSQL's programs run as the ``postgres`` user) or skips saying why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.faults.machine import postgres_bin
from tests.service.conftest import free_port

SCRIPT = Path(__file__).resolve().parents[2] / "deploy" / "postgres-standby.sh"


class Pair:
    """The primary and its synchronous standby: their URLs, and what the fault runs do to them."""

    def __init__(self) -> None:
        self.bin = postgres_bin()
        self.dir = Path(tempfile.mkdtemp(prefix="tabula-pair-"))
        self.ports = (free_port(), free_port())
        self.env = {
            **os.environ,
            "TABULA_PG_DIR": str(self.dir),
            "TABULA_PG_PRIMARY_PORT": str(self.ports[0]),
            "TABULA_PG_STANDBY_PORT": str(self.ports[1]),
            "TABULA_CLUSTER_PG_BIN": str(self.bin),
        }
        self.env.pop("TABULA_CLUSTER_DIR", None)  # standalone, whatever the caller's shell says
        self.url = self.script("url").strip()
        """Both servers, the writable one chosen (``target_session_attrs=read-write``)."""
        self.primary_url, self.standby_url = (
            f"postgresql://tabula:tabula@127.0.0.1:{port}/tabula" for port in self.ports
        )

    def script(self, command: str) -> str:
        """Run one command of deploy/postgres-standby.sh on this pair; its output."""
        done = subprocess.run(
            [str(SCRIPT), command], env=self.env, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"postgres-standby.sh {command}: {done.stderr or done.stdout}")
        return done.stdout

    def pg_ctl(self, server: str, *args: str) -> None:
        """pg_ctl on the primary's or the standby's data directory, as postgres."""
        data = str(self.dir / server / "data")
        command = [str(self.bin / "pg_ctl"), "-D", data, *args]
        if os.getuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"pg_ctl {' '.join(args)}: {done.stderr or done.stdout}")

    def kill_primary(self) -> None:
        """SIGKILL every process of the primary: a crash, for good."""
        self.script("kill-primary")

    def promote(self) -> None:
        """The standby takes writes (returns once it does)."""
        self.script("promote")

    def stop_standby(self) -> None:
        """The standby stops at once: the primary's commits wait for it."""
        self.pg_ctl("standby", "-m", "immediate", "-w", "stop")

    def start_standby(self) -> None:
        log = str(self.dir / "standby" / "postgres.log")
        self.pg_ctl("standby", "-l", log, "-w", "start")

    def down(self) -> None:
        try:
            self.script("down")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


@contextmanager
def standby_pair() -> Iterator[Pair]:
    """A primary and its synchronous standby, streaming; both removed afterwards (skips
    without root)."""
    if os.getuid() != 0:
        pytest.skip("a primary and standby need root (PostgreSQL's tools run as postgres)")
    pair = Pair()
    try:
        pair.script("up")
        yield pair
    finally:
        pair.down()

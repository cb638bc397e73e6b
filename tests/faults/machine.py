"""What the fault tests do to the machine: a small file system of its own, filled up and
freed, and a private PostgreSQL cluster stopped and started at will.

Both need root (``mount``; PostgreSQL's tools run as the ``postgres`` user) or skip saying
why: a test on a machine that cannot do them proves nothing either way, and the simulated
faults of ``tests/faults/test_writer.py`` run everywhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from tests.service.conftest import free_port

CHUNK = 64 * 1024


@contextmanager
def small_disk(mib: int) -> Iterator[Path]:
    """A tmpfs of ``mib`` MiB mounted on a new directory (skips where it cannot be)."""
    where = Path(tempfile.mkdtemp(prefix="tabula-disk-"))
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={mib}m", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        where.rmdir()
        pytest.skip(f"no small file system here (mount: {mounted.stderr.strip()})")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
        with suppress(OSError):
            where.rmdir()


def free_bytes(where: Path) -> int:
    found = os.statvfs(where)
    return found.f_bavail * found.f_frsize


def fill(where: Path, leave: int, name: str = "filler") -> Path:
    """Write a file in ``where`` until at most ``leave`` bytes are free; the file."""
    filler = where / name
    with filler.open("ab") as out:
        while (room := free_bytes(where) - leave) > 0:
            try:
                out.write(b"\0" * min(CHUNK, room))
                out.flush()
            except OSError:
                break
    return filler


def postgres_bin() -> Path:
    """The directory of the newest installed PostgreSQL's programs (skips if none)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if not found:
        pytest.skip("PostgreSQL is not installed (apt-get install -y postgresql)")
    return found[-1].parent


class Cluster:
    """A private PostgreSQL cluster on a free loopback port, for one test to stop and start."""

    def __init__(self) -> None:
        self.bin = postgres_bin()
        self.dir = Path(tempfile.mkdtemp(prefix="tabula-pg-"))
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        if os.getuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        self._run("initdb", "-D", str(self.dir / "data"), "-A", "trust", "-U", "postgres")

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if os.getuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed: {done.stderr or done.stdout}")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        data = str(self.dir / "data")
        self._run("pg_ctl", "-D", data, "-o", options, "-l", str(self.dir / "log"), "-w", "start")

    def stop(self) -> None:
        """Stop at once, as a crash would (no clean shutdown of the clients' connections)."""
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "immediate", "-w", "stop")

    def remove(self) -> None:
        with suppress(RuntimeError):
            self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@contextmanager
def cluster() -> Iterator[Cluster]:
    """A private cluster, started; removed afterwards."""
    made = Cluster()
    try:
        made.start()
        yield made
    finally:
        made.remove()

"""The hostile-client harness: the real server (``python -m service``, started by
bench/harness.py's ``service_process``) in a subprocess on loopback, as a deployment runs it,
and the latency a well-behaved client sees meanwhile.

Fixtures (their names are stable; other test files here use them):

- ``server``: a fresh server over a fresh SQLite file for the test; yields a ``Server``
  (``.url``, ``.host``, ``.port``, ``.pid``, ``.rss_kib()``, ``.cpu_seconds()``, ``.logs()``,
  ``.alive()``).
- ``start_server``: the same as a context manager factory, for a test that needs settings of
  its own: ``with start_server(env={"TABULA_MAX_STREAMS_PER_CLIENT": "4"}) as srv: ...``.
- ``health_latency(url, seconds)``: the median seconds of ``GET /health`` from one keep-alive
  client looping for ``seconds`` (a request that fails or times out counts as its timeout).
"""

from __future__ import annotations

import statistics
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from bench.harness import HOST, cpu_seconds, free_port, rss_kib, service_process

STARTUP_SECONDS = 30.0
HEALTH_TIMEOUT = 10.0


@dataclass
class Server:
    """One running ``python -m service`` process."""

    url: str
    host: str
    port: int
    pid: int
    process: subprocess.Popen[bytes]
    log_path: Path
    database: Path

    def rss_kib(self) -> int:
        """The server's resident set size, KiB (Linux /proc)."""
        return rss_kib(self.pid)

    def cpu_seconds(self) -> float:
        """User plus system CPU seconds the server has used so far (Linux /proc)."""
        return cpu_seconds(self.pid)

    def logs(self) -> str:
        """Everything the server wrote to stdout and stderr so far."""
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None


@contextmanager
def running_server(
    folder: Path, env: dict[str, str] | None = None, port: int | None = None
) -> Iterator[Server]:
    """Run ``python -m service`` on a free loopback port (or ``port``) over a SQLite file in
    ``folder`` (``env`` adds ``TABULA_*`` settings); stop it when the block ends.
    The same ``folder`` and ``port`` again is the same server restarted: same file, address."""
    folder.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    database = folder / f"hostile-{port}.db"
    log_path = folder / f"server-{port}.log"
    environ = {"TABULA_DATABASE_URL": "", "TABULA_LOG_LEVEL": "info"} | (env or {})
    with service_process(
        database, environ, port=port, log=log_path, startup_seconds=STARTUP_SECONDS
    ) as (url, process):
        yield Server(url, HOST, port, process.pid, process, log_path, database)


def median_health_latency(url: str, seconds: float, timeout: float = HEALTH_TIMEOUT) -> float:
    """The median seconds of ``GET /health`` from one keep-alive client looping for
    ``seconds`` (at least 5 requests); a failed or timed-out request counts as ``timeout``."""
    samples: list[float] = []
    deadline = time.monotonic() + seconds
    with httpx.Client(base_url=url, timeout=timeout) as client:
        while time.monotonic() < deadline or len(samples) < 5:
            began = time.perf_counter()
            try:
                ok = client.get("/health").status_code == 200
            except httpx.HTTPError:
                ok = False
            samples.append(time.perf_counter() - began if ok else timeout)
    return statistics.median(samples)


@pytest.fixture
def start_server(
    tmp_path: Path,
) -> Callable[..., AbstractContextManager[Server]]:
    """A factory: ``with start_server(env={...}) as server:`` runs a server of its own."""

    def start(env: dict[str, str] | None = None) -> AbstractContextManager[Server]:
        return running_server(tmp_path / f"server-{time.monotonic_ns()}", env)

    return start


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A fresh server over a fresh database for this test."""
    with running_server(tmp_path / "server") as running:
        yield running


@pytest.fixture(name="health_latency")
def health_latency_fixture() -> Callable[[str, float], float]:
    """``health_latency(url, seconds)``: the median ``/health`` latency, seconds."""
    return median_health_latency

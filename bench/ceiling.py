"""The stack's ceiling on this machine: the same clients against an app that does nothing.

An empty Litestar app on the same uvicorn (httptools, uvloop) answers ``POST /echo`` with a
small JSON object, no store and no game. N client threads on loopback (the plain-socket
keep-alive clients of bench/api.py, ``bench.harness.Client``) post to it for ``--seconds``;
the line shows requests per second, latency, CPU per request of the server and of the
clients, and the raw rate of one-row durable commits on the same disk. It bounds what any
handler can do here: a move cannot be served faster than an empty request. bench/api.py runs
the same floor in its own run, beside the moves.

Run ``python bench/ceiling.py [--clients 1 8 32] [--seconds 8]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from contextlib import AbstractContextManager  # noqa: E402
from typing import Any, NamedTuple  # noqa: E402

from bench.harness import (  # noqa: E402
    Client,
    cpu_seconds,
    percentile,
    python_server,
    raw_commits_per_second,
)

BODY = {"move": "roll", "seat": 0, "expected_version": 12}


def empty_app() -> Any:
    """The app under test in the server process: two routes that do nothing."""
    from litestar import Litestar, get, post

    @get("/health", sync_to_thread=False)
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @post("/echo", status_code=200)
    async def echo(data: dict[str, Any]) -> dict[str, Any]:
        return {"version": 13, "received": data}

    return Litestar([health, echo], logging_config=None, debug=False)


def post_until(url: str, deadline: float) -> list[float]:
    """One client: POST /echo on one keep-alive connection until the deadline; latencies."""
    client, latencies = Client(url), []
    while time.perf_counter() < deadline:
        began = time.perf_counter()
        status, _ = client.call("POST", "/echo", BODY)
        latencies.append(time.perf_counter() - began)
        if status != 200:
            raise RuntimeError(f"POST /echo answered {status}")
    client.close()
    return latencies


def empty_server() -> AbstractContextManager[tuple[str, int]]:
    """The empty app on uvicorn in its own process, on a free port; its URL and pid."""
    return python_server(
        "import uvicorn, bench.ceiling as c;"
        "uvicorn.run(c.empty_app(), port={port}, log_level='warning', access_log=False)"
    )


class Floor(NamedTuple):
    """What N clients posting to the empty app did."""

    latencies: list[float]
    seconds: float
    server_cpu: float
    clients_cpu: float

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds

    @property
    def server_ms(self) -> float:
        return 1000 * self.server_cpu / max(len(self.latencies), 1)


def floor(url: str, pid: int, clients: int, seconds: float) -> Floor:
    """N clients post to the empty app at ``url`` (process ``pid``) for ``seconds``."""
    deadline = time.perf_counter() + seconds
    cpu, mine = cpu_seconds(pid), cpu_seconds(os.getpid())
    with ThreadPoolExecutor(max_workers=clients) as pool:
        runs = list(pool.map(post_until, [url] * clients, [deadline] * clients))
    cpu, mine = cpu_seconds(pid) - cpu, cpu_seconds(os.getpid()) - mine
    return Floor([t for run in runs for t in run], seconds, cpu, mine)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--raw-seconds", type=float, default=3.0)
    args = parser.parse_args(argv)
    print("clients  requests  requests/s  p50 ms  p99 ms  server ms/req  clients ms/req  raw c/s")
    with empty_server() as (url, pid), tempfile.TemporaryDirectory() as folder:
        for clients in args.clients:
            run = floor(url, pid, clients, args.seconds)
            raw = raw_commits_per_second(Path(folder), args.raw_seconds)
            n = max(len(run.latencies), 1)
            p50, p99 = (1000 * percentile(run.latencies, q) for q in (0.50, 0.99))
            print(
                f"{clients:>7}  {n:>8}  {run.rate:>10.0f}  {p50:>6.1f}  {p99:>6.1f}"
                f"  {run.server_ms:>13.2f}  {1000 * run.clients_cpu / n:>14.2f}  {raw:>7.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()

"""What costly public work costs the server (issue 16, items 8 and 9): an import of a long
record, eight at once, the first and a second audit of the imported game, its export, and 16
clients creating games for 5 s; the server's time, CPU and RSS (peak).

The server is ``python -m service`` over a fresh SQLite file, from this tree or from
``--root`` (another checkout, for the figures before a change:
``git archive <rev> | tar -x -C /tmp/before`` then ``--root /tmp/before``), with default
settings. The record is ``tests/big_record.py``'s: a finished sorry game made long by undo
loops, ``--events`` events (19,000 by default, about 6.4 MB: just under the default
``max_record_events``; 87,000 make the 30 MB record of the issue).

Run ``python bench/costs.py [--events 19000] [--root DIR]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from typing import TypeVar  # noqa: E402

import httpx  # noqa: E402

from bench.abuse import Target, creation_flood  # noqa: E402
from bench.harness import cpu_seconds, rss_kib, service_process  # noqa: E402
from tests.big_record import big_record_bytes  # noqa: E402

JSON = {"Content-Type": "application/json"}
T = TypeVar("T")


def post_import(url: str, record: bytes) -> str:
    """One import: its status, or ``closed`` when the server closed the connection first."""
    try:
        return str(
            httpx.post(f"{url}/games/import", content=record, headers=JSON, timeout=600).status_code
        )
    except httpx.HTTPError:
        return "closed"


def timed(pid: int, what: str, call: Callable[[], T]) -> T:
    """Run ``call()``, printing its wall and the server's CPU seconds, and the server's RSS."""
    cpu, began = cpu_seconds(pid), time.perf_counter()
    result = call()
    wall = time.perf_counter() - began
    print(
        f"{what:<34} {wall:6.2f} s, server CPU {cpu_seconds(pid) - cpu:5.2f} s, "
        f"RSS {rss_kib(pid) / 1024:4.0f} MiB (peak {rss_kib(pid, 'VmHWM') / 1024:,.0f})"
    )
    return result


def measure(url: str, pid: int, record: bytes) -> None:
    """Print the figures of one server."""
    print(f"record: {len(record) / 1e6:.1f} MB; server RSS {rss_kib(pid) / 1024:.0f} MiB idle")
    reply = timed(
        pid,
        "one import",
        lambda: httpx.post(f"{url}/games/import", content=record, headers=JSON, timeout=600),
    )
    print(f"  -> {reply.status_code}")
    with ThreadPoolExecutor(8) as pool:
        statuses = timed(
            pid,
            "eight imports at once",
            lambda: Counter(pool.map(lambda _: post_import(url, record), range(8))),
        )
    print(f"  -> {dict(statuses)}")
    if reply.status_code != 201:
        return
    game = reply.json()["id"]
    for what in ("first audit", "second audit"):
        audit = timed(pid, what, lambda: httpx.get(f"{url}/games/{game}/audit", timeout=600))
        assert audit.json()["verification"]["valid"]
    export = timed(pid, "export", lambda: httpx.get(f"{url}/games/{game}/export", timeout=600))
    print(f"  -> {len(export.content) / 1e6:.1f} MB")
    stop = threading.Event()
    threading.Timer(5.0, stop.set).start()
    flood = creation_flood(Target(url, pid), stop)  # bench/abuse.py's: 16 clients
    print(f"16 clients creating games for 5 s: {dict(flood.outcomes())}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=19_000, help="the record's events")
    parser.add_argument("--root", type=Path, default=ROOT, help="the tree whose server runs")
    args = parser.parse_args(argv)
    record = big_record_bytes(args.events)
    env = {"TABULA_LOG_LEVEL": "warning", "TABULA_DATABASE_URL": "", "PYTHONPATH": str(args.root)}
    with (
        tempfile.TemporaryDirectory() as folder,
        service_process(Path(folder) / "costs.db", env, root=args.root) as (url, process),
    ):
        measure(url, process.pid, record)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

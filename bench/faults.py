"""Faults as a deployment meets them, under playing clients: for each fault and run, the
writes acknowledged, found again, lost and duplicated, the audits that failed, the writes
acknowledged while the fault was on (``inFault``), the clients' errors by status and problem
type, the longest ``GET /health`` from the fault's start until writes were taken again (and,
``calm``, for as long before the fault, under the same clients), and how long after the
fault ended the first write was acknowledged.

The server runs as ``python -m service`` in a subprocess; ``--players`` clients
(``tests.faults.load.Player``: their own games, every move keyed, a 503 sent again with the
same key after 50 ms) play for a second, then the fault lasts ``--outage`` seconds:

- ``postgres-down``: a private PostgreSQL cluster (``tests.faults.machine.Cluster``) stopped
  as a crash stops it, then started again (``TABULA_STORE_TIMEOUT=2``).
- ``disk-full``: SQLite on a 64 MiB tmpfs filled to its last byte while one more client
  imports a 3.6 MB record again and again, then the filler deleted.
- ``file-gone``: the SQLite file, its ``-wal`` and ``-shm`` deleted. No recovery without the
  operator: the run reports the writes acknowledged after the deletion (target 0).

Targets: 0 lost, 0 duplicated, 0 audits failed, /health under 100 ms throughout, the first
write within 1 s of the fault's end, no restart, every error a documented 503. Needs root
(mount, PostgreSQL's tools as ``postgres``). Run
``python bench/faults.py [--faults postgres-down disk-full file-gone] [--outage 2] [--runs 1]``.
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
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import ExitStack, contextmanager  # noqa: E402

import httpx  # noqa: E402
import msgspec  # noqa: E402

from bench.harness import service_process  # noqa: E402
from tests.big_record import big_record  # noqa: E402
from tests.faults.load import Player, Probe, Reckoning, reckon  # noqa: E402
from tests.faults.machine import Cluster, fill, small_disk  # noqa: E402

ENV = {"TABULA_LOG_LEVEL": "critical", "TABULA_CREATE_RATE": "0", "TABULA_IMPORT_RATE": "0"}
WARM_UP = 1.0
RECOVERY_LIMIT = 30.0
DISK_MIB = 64  # room for the games played after the fault (tens of thousands of moves)
STARTUP = 90.0  # seconds a server may take to start (a loaded machine)


class Fault(msgspec.Struct):
    """A fault to put a running server through: set up (yielding the server's URL and the
    functions that begin and end the fault)."""

    name: str
    setup: Callable[[ExitStack], tuple[str, Callable[[], None], Callable[[], None]]]
    recovers: bool = True


def postgres_down(stack: ExitStack) -> tuple[str, Callable[[], None], Callable[[], None]]:
    cluster = Cluster()
    stack.callback(cluster.remove)
    cluster.start()
    env = ENV | {"TABULA_DATABASE_URL": cluster.url, "TABULA_STORE_TIMEOUT": "2"}
    url, _ = stack.enter_context(
        service_process(Path("unused.db"), env, log=log(stack), startup_seconds=STARTUP)
    )
    return url, cluster.stop, cluster.start


def log(stack: ExitStack) -> Path:
    """A file for the server's output (the pool's warnings while PostgreSQL is down, ...)."""
    where = Path(stack.enter_context(tempfile.TemporaryDirectory()))
    return where / "server.log"


def disk_full(stack: ExitStack) -> tuple[str, Callable[[], None], Callable[[], None]]:
    disk = stack.enter_context(small_disk(DISK_MIB))
    url, _ = stack.enter_context(
        service_process(disk / "tabula.db", ENV, log=log(stack), startup_seconds=STARTUP)
    )
    importer, imports = stack.enter_context(importing(url))
    fillers: list[Path] = []
    stack.callback(lambda: IMPORTS.update(imports))

    def begin() -> None:
        importer.set()
        fillers.append(fill(disk, leave=0))

    def end() -> None:
        importer.clear()
        for filler in fillers:
            filler.unlink()

    return url, begin, end


IMPORTS: Counter[str] = Counter()
"""The importer's refusals in the latest disk-full run, by status and problem type."""


@contextmanager
def importing(url: str) -> Iterator[tuple[threading.Event, Counter[str]]]:
    """A client that imports a 3.6 MB record again and again while the event is set; its
    refusals, by status and problem type."""
    record = msgspec.json.encode(big_record(9_967))
    active, stop = threading.Event(), threading.Event()
    replies: Counter[str] = Counter()

    def run() -> None:
        with httpx.Client(base_url=url, timeout=60) as client:
            while not stop.is_set():
                if not active.wait(0.1):
                    continue
                headers = {"Content-Type": "application/json"}
                reply = client.post("/games/import", content=record, headers=headers)
                if reply.is_error:
                    kind = reply.json().get("type", "").rsplit("/", 1)[-1]
                    replies[f"import {reply.status_code} {kind}"] += 1

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield active, replies
    finally:
        stop.set()
        thread.join(timeout=60)


def file_gone(stack: ExitStack) -> tuple[str, Callable[[], None], Callable[[], None]]:
    where = Path(stack.enter_context(tempfile.TemporaryDirectory()))
    database = where / "tabula.db"
    url, _ = stack.enter_context(
        service_process(database, ENV, log=log(stack), startup_seconds=STARTUP)
    )

    def begin() -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{database}{suffix}").unlink(missing_ok=True)

    return url, begin, lambda: None


FAULTS = {
    fault.name: fault
    for fault in (
        Fault("postgres-down", postgres_down),
        Fault("disk-full", disk_full),
        Fault("file-gone", file_gone, recovers=False),
    )
}


class Run(msgspec.Struct):
    """One run's figures."""

    fault: str
    reckoning: Reckoning
    acked_in_fault: int
    calm_health: float
    longest_health: float
    first_write: float | None


def run(fault: Fault, players: int, outage: float) -> Run:
    with ExitStack() as stack:
        url, begin, end = fault.setup(stack)
        stop = threading.Event()
        clients = [Player(url, seed, stop) for seed in range(players)]
        threads = [threading.Thread(target=c.run, daemon=True) for c in clients]
        for thread in threads:
            thread.start()
        time.sleep(WARM_UP)
        with Probe(url) as calm:  # the same clients, no fault: what /health costs anyway
            time.sleep(outage)
        with Probe(url) as probe:
            begin()
            began = time.monotonic()
            time.sleep(outage)
            ending = time.monotonic()
            end()
            ended = time.monotonic()
            first = first_write_after(clients, ended) if fault.recovers else None
        acked_in_fault = sum(began < t < ending for c in clients for t in c.acked_at)
        stop.set()
        for thread in threads:
            thread.join(timeout=RECOVERY_LIMIT if fault.recovers else 1)
        failures = [c.failure for c in clients if c.failure]
        if failures:
            print(f"  {fault.name}: a client failed: {failures[0]}", file=sys.stderr)
        reckoning = reckon(url, clients) if fault.recovers else gone(clients)
        stack.close()  # the server stops, the importer's replies are in
        reckoning.errors.update(IMPORTS)
        IMPORTS.clear()
        return Run(fault.name, reckoning, acked_in_fault, calm.longest, probe.longest, first)


def first_write_after(clients: list[Player], ended: float) -> float | None:
    """Seconds from ``ended`` to the first write acknowledged after it (None: none came)."""
    deadline = ended + RECOVERY_LIMIT
    while time.monotonic() < deadline:
        after = [t for c in clients for t in c.acked_at if t > ended]
        if after:
            return min(after) - ended
        time.sleep(0.005)
    return None


def gone(clients: list[Player]) -> Reckoning:
    """A deleted file's run: the writes acknowledged and the clients' errors (the log is in
    the deleted file: nothing to read back)."""
    errors: dict[str, int] = {}
    for client in clients:
        for kind, count in client.errors.items():
            errors[kind] = errors.get(kind, 0) + count
    acknowledged = sum(len(c.acknowledged.get(g, {})) for c in clients for g in c.acknowledged)
    return Reckoning(acknowledged=acknowledged, errors=errors)


def show(result: Run, number: int) -> None:
    r = result.reckoning
    first = "-" if result.first_write is None else f"{result.first_write:.3f}"
    errors = ", ".join(f"{kind} x{count}" for kind, count in sorted(r.errors.items())) or "none"
    print(
        f"{result.fault:<14} {number:>3} {r.acknowledged:>6} {r.found:>6} {r.lost:>4}"
        f" {r.duplicated:>4} {r.audits_failed:>6} {result.acked_in_fault:>7}"
        f" {result.calm_health * 1000:>7.1f} {result.longest_health * 1000:>9.1f} {first:>9}"
        f"  {errors}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--faults", nargs="+", choices=sorted(FAULTS), default=list(FAULTS))
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--outage", type=float, default=2.0, help="seconds each fault lasts")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    print(f"{args.players} players, faults of {args.outage:g} s")
    print(
        f"{'fault':<14} {'run':>3} {'acked':>6} {'found':>6} {'lost':>4} {'dup':>4}"
        f" {'audits':>6} {'inFault':>7} {'calm ms':>7} {'health ms':>9} {'first s':>9}  errors"
    )
    for name in args.faults:
        for number in range(1, args.runs + 1):
            show(run(FAULTS[name], args.players, args.outage), number)


if __name__ == "__main__":
    main()

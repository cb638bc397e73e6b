"""The durable commit rate of a PostgreSQL primary, with its synchronous standby and without:
how many appends (one move each, the store's whole append: the stream's row locked, the event
inserted, the stream moved, the notification sent, committed) it takes per second.

By default it makes a primary and a synchronous standby on loopback ports
(``deploy/postgres-standby.sh``'s standalone pair, fsync on; needs root) and measures the
primary twice: as made (``synchronous_standby_names`` names the standby, so every commit waits
for the standby's flush) and then alone (the setting emptied and reloaded: every commit waits for
the primary's own flush only). Given ``--url``, it measures that database as it is, once.

Each run has ``--writers`` concurrent writers (spread over ``--processes`` processes, each
writer a thread with one connection appending to a stream of its own) for ``--seconds``
seconds, and prints the commits of each ``--interval`` as a rate, then the run's mean; each
run's kind (``--kinds``) is ``store`` (the store's appends) or ``raw`` (a one-row insert, no
notification: what the disk and the standby allow when commits need not wait for one another)
or ``notify`` (the same insert with a ``NOTIFY`` in its transaction). It writes streams named
``rate-...`` and a table ``commit_rate`` in the database: give it a scratch one.
Run ``python bench/commit_rate.py [--writers 1 8 32] [--seconds 5] [--interval 1] [--kinds
store raw] [--url URL]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import multiprocessing  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from multiprocessing.queues import Queue  # noqa: E402

import psycopg  # noqa: E402

from eventstore import Appending, NewEvent  # noqa: E402
from eventstore.postgres import PostgresEventStore  # noqa: E402


def write(url: str, kind: str, writers: int, until: float, out: Queue[list[float]]) -> None:
    """One process: ``writers`` threads committing one at a time until ``until`` (wall
        clock); puts the wall times of its commits on ``out``. ``store``: the store's append of
        one event; ``raw``: one row inserted in a table of its own, no notification; ``notify``: the
    same row and a notification in its transaction."""
    store = PostgresEventStore(url, max_connections=writers + 1)
    times: list[float] = []
    lock = threading.Lock()

    def appends() -> None:
        stream = f"rate-{uuid.uuid4().hex[:12]}"
        version = 0
        while time.time() < until:
            event = NewEvent("MovePlayed", {"move": version}, 0)
            store.append(Appending(stream, [event], version))
            version += 1
            with lock:
                times.append(time.time())

    def inserts() -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            while time.time() < until:
                with conn.transaction():
                    conn.execute("INSERT INTO commit_rate (at) VALUES (now())")
                    if kind == "notify":
                        conn.execute("SELECT pg_notify('commit_rate', 'x')")
                with lock:
                    times.append(time.time())

    writer = appends if kind == "store" else inserts

    threads = [threading.Thread(target=writer) for _ in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.close()
    out.put(times)


def measure(url: str, kind: str, writers: int, processes: int, seconds: float) -> list[float]:
    """The wall times of every commit of one run, its writers spread over the processes."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS commit_rate (n bigserial, at timestamptz)")
    context = multiprocessing.get_context("spawn")
    out: Queue[list[float]] = context.Queue()
    start = time.time() + 3.0  # every process opened its store by then
    shares = [writers // processes + (n < writers % processes) for n in range(processes)]
    started = [
        context.Process(target=write, args=(url, kind, share, start + seconds, out))
        for share in shares
        if share
    ]
    for process in started:
        process.start()
    times = [t for _ in started for t in out.get()]
    for process in started:
        process.join()
    return sorted(t - start for t in times if t >= start)


def show(label: str, writers: int, times: list[float], seconds: float, interval: float) -> None:
    """Each interval's commits as a rate, then the run's mean."""
    bins = int(seconds / interval)
    counts = [0] * bins
    for t in times:
        if 0 <= t < bins * interval:
            counts[int(t / interval)] += 1
    rates = " ".join(f"{count / interval:7.0f}" for count in counts)
    mean = sum(counts) / (bins * interval)
    print(f"{label:<26} {writers:>7} {mean:>10.0f}   {rates}")


@contextmanager
def primary_and_standby() -> Iterator[tuple[str, str]]:
    """A standalone pair; its database URL and the primary's own."""
    from tests.faults.standby import Pair

    pair = Pair()
    try:
        pair.script("up")
        yield pair.url, pair.primary_url
    finally:
        pair.down()


def without_standby(primary_url: str) -> None:
    """The primary stops waiting for its standby (commits wait for its own flush only)."""
    with psycopg.connect(primary_url, autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET synchronous_standby_names = ''")
        conn.execute("SELECT pg_reload_conf()")
    time.sleep(1.0)  # the reload reaches every backend


def settings(url: str) -> str:
    """The durability settings in force, as one line."""
    names = ("synchronous_commit", "synchronous_standby_names", "fsync")
    with psycopg.connect(url, autocommit=True) as conn:
        found: dict[str, str] = dict(
            conn.execute(
                "SELECT name, setting FROM pg_settings WHERE name = ANY(%s)", [list(names)]
            ).fetchall()
        )
    return ", ".join(f"{name}={found.get(name, '?')!r}" for name in names)


def run_all(url: str, args: argparse.Namespace, label: str) -> None:
    print(f"# {label}: {settings(url)}")
    for kind in args.kinds:
        for writers in args.writers:
            times = measure(url, kind, writers, min(args.processes, writers), args.seconds)
            show(f"{label}, {kind}", writers, times, args.seconds, args.interval)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="measure this database as it is (default: make a pair)")
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument(
        "--kinds", nargs="+", choices=["store", "raw", "notify"], default=["store", "raw", "notify"]
    )
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()
    print(f"{'run':<26} {'writers':>7} {'commits/s':>10}   each {args.interval:g} s")
    if args.url:
        run_all(args.url, args, "as it is")
        return
    with primary_and_standby() as (url, primary_url):
        run_all(url, args, "synchronous standby")
        without_standby(primary_url)
        run_all(url, args, "primary alone")


if __name__ == "__main__":
    main()

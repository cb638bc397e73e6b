"""What a shared budget costs a move: microseconds per check of each way to count one.

A move with the write limit on spends one token of its caller's bucket before it is judged.
This script times that check, one after another on one thread, for each way of keeping the
bucket:

- **memory**: the process's own ``TokenBucket`` (one process: ``make run``);
- **sqlite**: the shared table in a SQLite file beside the database (``--workers`` on SQLite;
  ``eventstore.budgets.SqliteBudgets``, one UPSERT, ``synchronous=OFF``);
- **postgres**: the shared table in PostgreSQL (``PostgresBudgets``, one UPSERT, one round
  trip, ``synchronous_commit=off``), when a database is given (``--postgres`` or
  ``TABULA_TEST_POSTGRES_URL``);
- **redis fixed/sliding**: Redis through the ``limits`` library (its fixed window and sliding
  window counter strategies), when ``redis-server`` and ``limits[redis]`` are installed: a
  ``redis-server`` without persistence is started on a free loopback port for the run;
- **as asked**: the same UPSERT as the service makes it, through ``SharedBucket``: asked on
  the budgets' own thread and awaited (``service.usecases.budgets.Asking``), which costs a
  hand-over between threads on top;
- **refused, remembered**: a key over its shared budget asked again before its tokens are
  due: ``SharedBucket`` answers from memory, without the database.

Each is timed in ``--rounds`` rounds of ``--checks`` checks spread over 100 keys, every one
granted (the rate is high): the table gives the median of the rounds' microseconds per check
and the lowest and highest round (the interval).

Run ``python bench/budgets.py [--checks 2000] [--rounds 7] [--postgres URL]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import ExitStack, contextmanager  # noqa: E402

from bench.harness import HOST, free_port  # noqa: E402
from eventstore.budgets import Budgets, SqliteBudgets  # noqa: E402
from service.api.limits import TokenBucket  # noqa: E402
from service.usecases.budgets import Asking, SharedBucket  # noqa: E402

Check = Callable[[str], object]
RATE, BURST, KEYS = 1e9, 1_000_000, 100


def timed(check: Check, checks: int, rounds: int) -> list[float]:
    """Microseconds per check of each round."""
    keys = [f"game:{n}:referee" for n in range(KEYS)]
    check(keys[0])  # connect, prepare
    results = []
    for _ in range(rounds):
        began = time.perf_counter()
        for n in range(checks):
            check(keys[n % KEYS])
        results.append((time.perf_counter() - began) / checks * 1e6)
    return results


@contextmanager
def redis_server() -> Iterator[str | None]:
    """A throwaway ``redis-server`` on a free port (its URL), or None without one."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    port = free_port()
    args = [binary, "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"redis://{HOST}:{port}"
        import redis

        for _ in range(100):
            try:
                redis.Redis.from_url(url).ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def redis_checks(url: str) -> dict[str, Check]:
    """The ``limits`` library's fixed and sliding window checks over Redis at ``url``."""
    from limits import RateLimitItemPerSecond, storage, strategies

    store = storage.RedisStorage(url)
    item = RateLimitItemPerSecond(BURST)
    fixed = strategies.FixedWindowRateLimiter(store)
    sliding = strategies.SlidingWindowCounterRateLimiter(store)
    return {
        "redis fixed (limits)": lambda key: fixed.hit(item, "f:" + key),
        "redis sliding (limits)": lambda key: sliding.hit(item, "s:" + key),
    }


def asked(stack: ExitStack, budgets: Budgets, memory: TokenBucket) -> Check:
    """The check as the service makes it: ``SharedBucket`` asking on its thread."""
    asking = Asking(budgets)
    stack.callback(asking.close)
    shared = SharedBucket(asking, "asked", RATE, BURST, memory.take)
    return lambda key: shared.take(key)


def checks_of(stack: ExitStack, folder: str, postgres: str) -> dict[str, Check]:
    """Every way of checking that can run here."""
    found: dict[str, Check] = {}
    memory = TokenBucket(RATE, BURST)
    found["memory (one process)"] = lambda key: memory.take(key)
    lite = SqliteBudgets(os.path.join(folder, "tabula.db.budgets"))
    stack.callback(lite.close)
    found["sqlite (--workers)"] = lambda key: lite.take("writes", key, 1, RATE, BURST)
    found["sqlite, as asked"] = asked(stack, lite, memory)
    if postgres:
        from eventstore.budgets_postgres import PostgresBudgets
        from eventstore.postgres import temporary_schema

        pg = PostgresBudgets(stack.enter_context(temporary_schema(postgres, "bench")))
        stack.callback(pg.close)
        found["postgres"] = lambda key: pg.take("writes", key, 1, RATE, BURST)
        found["postgres, as asked"] = asked(stack, pg, memory)
    if importlib.util.find_spec("limits") is None or importlib.util.find_spec("redis") is None:
        print("(redis: pip install 'limits[redis]' to measure it)")
    elif (url := stack.enter_context(redis_server())) is not None:
        found |= redis_checks(url)
    else:
        print("(redis: apt-get install redis-server to measure it)")
    refused = SharedBucket(Asking(lite), "writes", 0.001, 1, memory.take)
    for n in range(KEYS):
        refused.take(f"game:{n}:referee")
        refused.take(f"game:{n}:referee")
    found["refused, remembered"] = lambda key: refused.take(key)
    return found


def main() -> None:
    """Time each way and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--postgres", default=os.environ.get("TABULA_TEST_POSTGRES_URL", ""))
    args = parser.parse_args()
    with ExitStack() as stack:
        folder = stack.enter_context(tempfile.TemporaryDirectory())
        checks = checks_of(stack, folder, args.postgres)
        print(f"{'budget kept in':<24} {'us/check p50':>12} {'min':>8} {'max':>8}")
        for name, check in checks.items():
            rounds = timed(check, args.checks, args.rounds)
            low, mid, high = min(rounds), statistics.median(rounds), max(rounds)
            print(f"{name:<24} {mid:>12.1f} {low:>8.1f} {high:>8.1f}")
        if not args.postgres:
            print("(postgres: --postgres URL or TABULA_TEST_POSTGRES_URL to measure it)")


if __name__ == "__main__":
    main()

"""One address's budget spread over several processes, against one process: accepted creations
and moves per minute.

The service runs as ``python -m service`` processes on one PostgreSQL database (a fresh
schema each run), with a creation budget of ``CREATE`` (a second, bursts of ``BURST``) and a
write budget of ``WRITE`` (a second, bursts of ``BURST``). One client (one address) asks as
fast as it is answered for ``--seconds``, its requests spread round the processes:

- **creations**: ``POST /games``, each on a fresh connection;
- **moves**: the next move of a race35 game as its referee (one caller: the game's referee);
  a game that ends is replaced by one created from another address (``127.0.0.2``), so the
  creations spend nothing of the mover's budgets.

The table gives the requests accepted per minute against one process and against
``--processes`` processes, and their ratio (the target: within 10%). With no budget shared,
the ratio would be the number of processes. Over HAProxy (``deploy/cluster.sh``) the same
loops run against its address with ``--urls``.

Run ``python bench/budget_spread.py [--seconds 30] [--processes 3] [--postgres URL]``
(``TABULA_TEST_POSTGRES_URL`` by default), or ``--urls URL...`` against servers already up
(one URL: one process or a load balancer; several: spread round them).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import itertools  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import ExitStack, contextmanager  # noqa: E402
from typing import Any  # noqa: E402

import httpx  # noqa: E402

from bench.harness import service_process  # noqa: E402

CREATE, WRITE, BURST = 1.0, 2.0, 10
RACE = {"ruleset": "race35", "seats": [{"name": "A"}, {"name": "B"}]}
ELSEWHERE = "127.0.0.2"
"""The address the moves' games are created from, apart from the mover's budgets."""


def budget_env(url: str) -> dict[str, str]:
    """The settings of each process: the database and the budgets."""
    return {
        "TABULA_DATABASE_URL": url,
        "TABULA_LOG_LEVEL": "warning",
        "TABULA_CREATE_RATE": str(CREATE),
        "TABULA_CREATE_BURST": str(BURST),
        "TABULA_WRITE_RATE": str(WRITE),
        "TABULA_WRITE_BURST": str(BURST),
    }


@contextmanager
def processes(postgres: str, count: int) -> Iterator[list[str]]:
    """``count`` processes over a fresh schema of ``postgres``; their URLs."""
    from eventstore.postgres import temporary_schema

    with ExitStack() as stack:
        url = stack.enter_context(temporary_schema(postgres, "spread"))
        yield [
            stack.enter_context(service_process(Path("unused.db"), budget_env(url)))[0]
            for _ in range(count)
        ]


def for_seconds(seconds: float, attempt: Callable[[], int]) -> int:
    """How many of the attempts made for ``seconds`` were accepted (2xx)."""
    accepted, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        accepted += attempt() < 300
    return accepted


def creations(urls: list[str], seconds: float) -> int:
    """Creations accepted, asked round ``urls`` for ``seconds``."""
    turn = itertools.cycle(urls)
    return for_seconds(seconds, lambda: httpx.post(f"{next(turn)}/games", json=RACE).status_code)


def moves(urls: list[str], seconds: float) -> int:
    """Moves accepted, one game's referee playing round ``urls`` for ``seconds``."""
    turn = itertools.cycle(urls)
    elsewhere = httpx.Client(transport=httpx.HTTPTransport(local_address=ELSEWHERE))
    clients = {url: httpx.Client(base_url=url, timeout=10) for url in urls}
    game: dict[str, Any] = {}

    def attempt() -> int:
        if not game:
            game.update(elsewhere.post(f"{urls[0]}/games", json=RACE, timeout=10).json())
        client = clients[next(turn)]
        headers = {"Authorization": f"Bearer {game['tokens']['referee']}"}
        legal = client.get(f"/games/{game['id']}/legal-moves", headers=headers).json()
        if not legal["moves"]:
            game.clear()  # finished: the next attempt plays a new game
            return 500
        move = legal["moves"][0]
        body = {"move": move["id"], "seat": move["seat"], "expected_version": legal["version"]}
        return client.post(f"/games/{game['id']}/moves", json=body, headers=headers).status_code

    with elsewhere:
        return for_seconds(seconds, attempt)


def measured(urls: list[str], seconds: float) -> tuple[float, float]:
    """Creations and moves accepted per minute against ``urls``."""
    return creations(urls, seconds) * 60 / seconds, moves(urls, seconds) * 60 / seconds


def main() -> None:
    """Measure one process and several, and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--postgres", default=os.environ.get("TABULA_TEST_POSTGRES_URL", ""))
    parser.add_argument("--urls", nargs="*", default=[])
    args = parser.parse_args()
    per_minute = [(BURST + rate * args.seconds) * 60 / args.seconds for rate in (CREATE, WRITE)]
    print(f"budgets: {CREATE:g} creations/s and {WRITE:g} writes/s, bursts of {BURST}")
    print(f"{'against':<16} {'creations/min':>14} {'moves/min':>10}")
    print(f"{'the budget':<16} {per_minute[0]:>14.1f} {per_minute[1]:>10.1f}")
    if args.urls:
        made, moved = measured(args.urls, args.seconds)
        print(f"{f'{len(args.urls)} URL(s)':<16} {made:>14.1f} {moved:>10.1f}")
        return
    if not args.postgres:
        print("(no database: --postgres URL or TABULA_TEST_POSTGRES_URL)")
        return
    rows = {}
    for count in (1, args.processes):
        with processes(args.postgres, count) as urls:
            rows[count] = measured(urls, args.seconds)
        made, moved = rows[count]
        print(f"{f'{count} process(es)':<16} {made:>14.1f} {moved:>10.1f}")
    (one_made, one_moved), (many_made, many_moved) = rows[1], rows[args.processes]
    print(f"{'ratio':<16} {many_made / one_made:>14.2f} {many_moved / one_moved:>10.2f}")


if __name__ == "__main__":
    main()

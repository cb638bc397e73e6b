"""One address's budget spread over several processes, against one process: accepted creations
and moves per minute.

The service runs as ``python -m service`` processes on one PostgreSQL database (a fresh
schema each run), with a creation budget of ``CREATE`` (a second, bursts of ``BURST``) and a
write budget of ``WRITE`` (a second, bursts of ``BURST``). One client (one address) asks as
fast as it is answered for ``--seconds``, its requests spread round the processes:

- **creations**: ``POST /games``, each on a fresh connection;
- **moves**: the next move of a four-seat ludo game as its referee (one caller: the game's
  referee; a game of hundreds of moves, so that one loop plays one game), created from
  another address (``127.0.0.2``), so that the creations spend nothing of the mover's
  budgets; a game that ends is replaced, and the games played are counted.

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
from collections import Counter  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import ExitStack, contextmanager  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402

import httpx  # noqa: E402

from bench.harness import service_process  # noqa: E402

CREATE, WRITE, BURST = 1.0, 2.0, 10
RACE = {"ruleset": "race35", "seats": [{"name": "A"}, {"name": "B"}]}
LONG = {"ruleset": "ludo", "seats": [{"name": name} for name in "ABCD"]}
"""The moves' game: hundreds of moves, so that one loop plays one game (a game's referee is
a caller of its own: a new game would bring a fresh write budget)."""
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


@dataclass
class Tally:
    """What one loop asked for ``seconds``: its requests, those accepted (2xx), and the host
    that accepted each (a load balancer's ``X-Served-By``; the URL's address without one)."""

    seconds: float
    asked: int = 0
    accepted: int = 0
    hosts: Counter[str] = field(default_factory=Counter)
    games: int = 0

    @property
    def per_minute(self) -> float:
        return self.accepted * 60 / self.seconds


def for_seconds(seconds: float, attempt: Callable[[], httpx.Response | None]) -> Tally:
    """The attempts made for ``seconds`` (``None``: one that sent nothing that counts)."""
    tally, end = Tally(seconds), time.monotonic() + seconds
    while time.monotonic() < end:
        answer = attempt()
        if answer is None:
            continue
        tally.asked += 1
        if answer.status_code < 300:
            tally.accepted += 1
            tally.hosts[answer.headers.get("x-served-by", answer.url.host)] += 1
    return tally


def fresh_client(**options: Any) -> httpx.Client:
    """A client that opens a connection for each request, so that a load balancer places each
    one (over one kept-alive connection it may send them all to one host)."""
    return httpx.Client(timeout=10, limits=httpx.Limits(max_keepalive_connections=0), **options)


def creations(urls: list[str], seconds: float) -> Tally:
    """Creations asked round ``urls`` for ``seconds``."""
    turn = itertools.cycle(urls)
    with fresh_client() as client:
        return for_seconds(seconds, lambda: client.post(f"{next(turn)}/games", json=RACE))


def moves(urls: list[str], seconds: float, maker: str = "") -> Tally:
    """Moves asked by one game's referee round ``urls`` for ``seconds``; its games are created
    at ``maker`` (``urls[0]`` by default) from ``ELSEWHERE``."""
    turn = itertools.cycle(urls)
    game: dict[str, Any] = {}
    games = 0
    with (
        fresh_client(transport=httpx.HTTPTransport(local_address=ELSEWHERE)) as elsewhere,
        fresh_client() as client,
    ):

        def attempt() -> httpx.Response | None:
            nonlocal games
            if not game:
                game.update(elsewhere.post(f"{maker or urls[0]}/games", json=LONG).json())
                games += 1
            url, headers = next(turn), {"Authorization": f"Bearer {game['tokens']['referee']}"}
            legal = client.get(f"{url}/games/{game['id']}/legal-moves", headers=headers).json()
            if not legal["moves"]:
                game.clear()  # finished: the next attempt plays a new game
                return None
            move = legal["moves"][0]
            body = {"move": move["id"], "seat": move["seat"], "expected_version": legal["version"]}
            path = f"{url}/games/{game['id']}/moves"
            return client.post(path, json=body, headers=headers)

        played = for_seconds(seconds, attempt)
    played.games = games
    return played


def measured(urls: list[str], seconds: float, maker: str = "") -> tuple[Tally, Tally]:
    """Creations and moves against ``urls``, one loop after the other."""
    return creations(urls, seconds), moves(urls, seconds, maker)


def table(rows: dict[str, tuple[Tally, Tally]], budget: tuple[float, float]) -> list[str]:
    """The lines of the table: the ``budget`` a minute (creations, moves), accepted per minute
    for each row, and the last row's ratio to the first."""
    lines = [
        f"{'against':<20} {'creations/min':>14} {'moves/min':>10}",
        f"{'the budget':<20} {budget[0]:>14.1f} {budget[1]:>10.1f}",
    ]
    for name, (made, moved) in rows.items():
        lines.append(f"{name:<20} {made.per_minute:>14.1f} {moved.per_minute:>10.1f}")
    if len(rows) > 1:
        (one_made, one_moved), (many_made, many_moved) = rows[next(iter(rows))], rows[name]
        lines.append(
            f"{'ratio':<20} {ratio(many_made, one_made):>14.2f} "
            f"{ratio(many_moved, one_moved):>10.2f}"
        )
    return lines


def ratio(many: Tally, one: Tally) -> float:
    """Accepted by ``many`` to accepted by ``one``."""
    return many.accepted / one.accepted if one.accepted else float("nan")


def main() -> None:
    """Measure one process and several, and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--postgres", default=os.environ.get("TABULA_TEST_POSTGRES_URL", ""))
    parser.add_argument("--urls", nargs="*", default=[])
    args = parser.parse_args()
    budget = (per_minute(CREATE, BURST, args.seconds), per_minute(WRITE, BURST, args.seconds))
    print(f"budgets: {CREATE:g} creations/s and {WRITE:g} writes/s, bursts of {BURST}")
    rows = {}
    if args.urls:
        rows[f"{len(args.urls)} URL(s)"] = measured(args.urls, args.seconds)
    elif args.postgres:
        for count in (1, args.processes):
            with processes(args.postgres, count) as urls:
                rows[f"{count} process(es)"] = measured(urls, args.seconds)
    print("\n".join(table(rows, budget)))
    if not rows:
        print("(no database: --postgres URL or TABULA_TEST_POSTGRES_URL)")


def per_minute(rate: float, burst: int, seconds: float) -> float:
    """The most a bucket of ``rate`` a second and ``burst`` grants in ``seconds``, a minute."""
    return (burst + rate * seconds) * 60 / seconds


if __name__ == "__main__":
    main()

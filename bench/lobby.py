"""The meeting place under load: quick play's seeks matched into tables (issue #47's targets).

The server runs as ``python -m service`` over a fresh SQLite file (or ``--database-url``, a
PostgreSQL database, with ``--workers`` processes sharing the port). ``--seeks`` registered
players (``POST /players``) each post one rated seek for a 4-player Ludo table, spread evenly
over ``--seconds`` (each at its own moment, from ``--clients`` keep-alive connections). Every
player's ordinal is a new player's (0), so four seekers sit together as soon as they are four.

Printed, from what the server says once the seeks are in (``GET /seeks/{id}`` with each key,
``GET /games/{id}`` and the first event of each table):

- seeks matched, expired, still waiting, and seated twice: a player at two tables, or two
  seekers told the same seat (must be 0);
- start ms: for each table, from the moment the seek that completed it (the table's last seat,
  the latest to arrive) was sent to the moment its game was created (its ``GameCreated``'s
  ``at``, the commit that also draws its first chance), median and p99 with 95% intervals;
- post ms: the time each ``POST /seeks`` took, median and p99.

Target: every seek matched or expired, none twice; median start under 100 ms.

The player's feed (the match pushed to each of the four players) and ``GET /lobby``'s pages
add their figures as sections of ``SECTIONS``, over the same ``Run``.

Run ``python bench/lobby.py`` for the full figures (1,000 seeks over 60 s); ``--seeks 40
--seconds 2`` for a short run.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import math  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from datetime import UTC, datetime  # noqa: E402

from bench.harness import Client, service_process  # noqa: E402

SEEK = {"ruleset": "ludo", "players": 4, "rated": True}
Z95 = 1.96


@dataclass
class Posted:
    """One seek as the bench posted it: whose, when it was sent (UTC) and how long the POST
    took, and what the server answered then and later."""

    handle: str
    key: str
    sent: datetime
    took: float = 0.0
    seek_id: str = ""
    view: dict[str, object] = field(default_factory=dict)


@dataclass
class Run:
    """What one run leaves for the sections to read: the server's URL, the options, every
    seek posted, and each table's game id with its seats' seeks (seat order); each section
    adds to ``failures`` what must not happen and did."""

    url: str
    args: argparse.Namespace
    posted: list[Posted]
    tables: dict[str, list[Posted]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


def register(url: str, count: int) -> list[tuple[str, str]]:
    """``count`` registered players: their handles and keys."""
    client, players = Client(url), []
    prefix = uuid.uuid4().hex[:6]
    for n in range(count):
        status, reply = client.call("POST", "/players", {"handle": f"s{prefix}{n}"})
        if status != 201:
            raise RuntimeError(f"registration refused: {status} {reply}")
        players.append((reply["handle"], reply["key"]))
    client.close()
    return players


def post_all(
    url: str, players: list[tuple[str, str]], seconds: float, clients: int
) -> list[Posted]:
    """Each player posts one seek at her moment (evenly over ``seconds``), from ``clients``
    connections at once; the seeks as posted."""
    posted = [Posted(handle, key, datetime.now(UTC)) for handle, key in players]
    began = time.monotonic() + 0.2
    every = seconds / max(len(posted), 1)

    def poster(first: int) -> None:
        client = Client(url)
        for index in range(first, len(posted), clients):
            time.sleep(max(0.0, began + index * every - time.monotonic()))
            seek = posted[index]
            seek.sent = datetime.now(UTC)
            start = time.perf_counter()
            status, reply = client.call("POST", "/seeks", SEEK, token=seek.key)
            seek.took = time.perf_counter() - start
            if status != 201:
                raise RuntimeError(f"seek refused: {status} {reply}")
            seek.seek_id = reply["id"]
        client.close()

    threads = [threading.Thread(target=poster, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return posted


def read_back(run: Run) -> None:
    """Each seek as its owner reads it now, and the tables they sit at."""
    client = Client(run.url)
    for seek in run.posted:
        status, seek.view = client.call("GET", f"/seeks/{seek.seek_id}", token=seek.key)
        if status != 200:
            raise RuntimeError(f"seek unreadable: {status} {seek.view}")
        if seek.view["status"] == "matched":
            run.tables.setdefault(str(seek.view["game_id"]), []).append(seek)
    for seats in run.tables.values():
        seats.sort(key=lambda seek: int(str(seek.view["seat"])))
    client.close()


def seated_twice(run: Run) -> int:
    """Players seated at more than one table, and seats told to more than one seeker, as the
    tables' own seats say."""
    client, handles, told = Client(run.url), Counter[str](), Counter[tuple[str, object]]()
    for game_id, seats in run.tables.items():
        _, state = client.call("GET", f"/games/{game_id}")
        handles.update(seat["name"] for seat in state["seats"])
        told.update((game_id, seek.view["seat"]) for seek in seats)
        if [seek.handle for seek in seats] != [seat["name"] for seat in state["seats"]]:
            handles["<a table seating other players than its seeks say>"] += 2
    client.close()
    return sum(n - 1 for n in handles.values() if n > 1) + sum(
        n - 1 for n in told.values() if n > 1
    )


def start_delays(run: Run) -> list[float]:
    """For each table, ms from the sending of its last seat's seek to its game's creation."""
    client, delays = Client(run.url), []
    for game_id, seats in run.tables.items():
        _, page = client.call("GET", f"/games/{game_id}/events?limit=1")
        created = datetime.fromisoformat(page["events"][0]["at"].replace("Z", "+00:00"))
        delays.append((created - seats[-1].sent).total_seconds() * 1000)
    client.close()
    return delays


def quantile(values: list[float], q: float) -> tuple[float, float, float]:
    """The ``q`` quantile of ``values`` and its 95% interval (distribution-free: the order
    statistics whose ranks bound it, from the binomial's normal approximation)."""
    ordered, n = sorted(values), len(values)
    if not ordered:
        return math.nan, math.nan, math.nan
    spread = Z95 * math.sqrt(n * q * (1 - q))
    low = max(0, math.floor(n * q - spread) - 1)
    high = min(n - 1, math.ceil(n * q + spread))
    return ordered[min(n - 1, int(q * n))], ordered[low], ordered[high]


def shown(values: list[float], q: float) -> str:
    value, low, high = quantile(values, q)
    return f"{value:.1f} [{low:.1f}, {high:.1f}]"


def seek_figures(run: Run) -> list[str]:
    """Quick play's section: seeks by outcome, seated twice, start and post times."""
    outcomes = Counter(str(seek.view["status"]) for seek in run.posted)
    delays, posts = start_delays(run), [seek.took * 1000 for seek in run.posted]
    twice = seated_twice(run)
    if twice:
        run.failures.append(f"{twice} seated twice")
    return [
        f"quick play: {len(run.posted)} seeks over {run.args.seconds:g} s, 4-player ludo, rated",
        f"  seeks matched {outcomes['matched']}  expired {outcomes['expired']}  "
        f"waiting {outcomes['waiting']}  seated twice {twice} (must be 0)  "
        f"tables {len(run.tables)}",
        f"  start ms (last seat's POST sent -> GameCreated at), median [95%]: {shown(delays, 0.5)}"
        f"   p99: {shown(delays, 0.99)}   target: median < 100",
        f"  post ms, median [95%]: {shown(posts, 0.5)}   p99: {shown(posts, 0.99)}",
    ]


SECTIONS: list[Callable[[Run], list[str]]] = [seek_figures]
"""Each target's lines, printed in order over the same run: the player's feed (the match
pushed to the four players) and ``GET /lobby``'s pages add theirs here."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeks", type=int, default=1000, help="seeks, one per player")
    parser.add_argument("--seconds", type=float, default=60.0, help="over how long")
    parser.add_argument("--clients", type=int, default=8, help="connections posting at once")
    parser.add_argument("--workers", type=int, default=1, help="service processes")
    parser.add_argument("--database-url", default="", help="PostgreSQL instead of SQLite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = {"TABULA_LOG_LEVEL": "warning", "TABULA_CREATE_RATE": "0"}
        env |= {"TABULA_DATABASE_URL": args.database_url, "TABULA_WORKERS": str(args.workers)}
        with service_process(Path(folder) / "lobby.db", env) as (url, _):
            players = register(url, args.seeks)
            run = Run(url, args, post_all(url, players, args.seconds, args.clients))
            read_back(run)
            lines = [line for section in SECTIONS for line in section(run)]
    print("\n".join(lines))
    if run.failures:
        sys.exit("failed: " + "; ".join(run.failures))


if __name__ == "__main__":
    main()

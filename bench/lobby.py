"""The meeting place under load (issue #47's targets): quick play's seeks matched into tables,
the match pushed on the players' feeds, and ``GET /lobby``'s pages with many open tables.

Quick play. The server runs as ``python -m service`` over a fresh SQLite file (or
``--database-url``, a PostgreSQL database, with ``--workers`` processes sharing the port).
``--seeks`` registered players (``POST /players``) each open their feed (``GET /me/socket``,
held by a process of its own) and then post one rated seek for a 4-player Ludo table, spread
evenly over ``--seconds`` (each at its own moment, from ``--clients`` keep-alive connections).
Every player's ordinal is a new player's (0), so four seekers sit together as soon as they are
four. Printed, from what the server says once the seeks are in (``GET /seeks/{id}`` with each
key, ``GET /games/{id}`` and the first event of each table) and what the feeds heard:

- seeks matched, expired, still waiting, and seated twice: a player at two tables, or two
  seekers told the same seat (must be 0);
- start ms: for each table, from the moment the seek that completed it (the table's last seat,
  the latest to arrive) was sent to the moment its game was created (its ``GameCreated``'s
  ``at``, the commit that also draws its first chance), median and p99 with 95% intervals;
- post ms: the time each ``POST /seeks`` took, median and p99;
- push ms: for each matched seat, from its table's start (``GameCreated``'s ``at``) to the
  arrival of the ``seek-matched`` note on its player's feed, and the share within 50 ms
  (a seat whose note never came counts as late).

Targets: every seek matched or expired, none twice; median start under 100 ms; the match
pushed to 99% of the matched seats within 50 ms.

The lobby. For each of ``--tables`` (100 and 10,000), a database file holds that many open
listed tables, created through the use cases in this process (``fill_tables``: a host's seat
and open seats; half 4-player Ludo, the rest Ludo of two, Sorry! and Parchís; rated one in
three), and a fresh server runs over each, all at once. Each server's pages of ``PAGE``
tables are read ``--reads`` times, in rounds that read every page of every server once (so
the machine's other load falls on every size alike): the first page, the page in the middle
(reached by following ``next``) and a filtered page (``ruleset=ludo&players=4``). Printed:
each page's median and p99 with 95% intervals, and the ratios of the largest size to the
smallest. Target: within 2x. With fewer than 100 tables the pages are not full and the run
stops.

Run ``python bench/lobby.py`` for the full figures (1,000 seeks over 60 s, then the lobby with
100 and 10,000 tables); ``--only quick-play`` or ``--only listing`` for one of them; ``--seeks
40 --seconds 2 --tables 100 400 --reads 50`` for a short run.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import asyncio  # noqa: E402
import math  # noqa: E402
import multiprocessing  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from contextlib import ExitStack, closing  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from multiprocessing.connection import Connection  # noqa: E402

import msgspec  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from bench.harness import Client, service_process  # noqa: E402
from eventstore import SqliteEventStore  # noqa: E402
from service.app import bootstrap  # noqa: E402
from service.core.commands import CreateGame, SeatSpec  # noqa: E402

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
    created: dict[str, datetime] = field(default_factory=dict)
    pushed: dict[str, tuple[str, float]] = field(default_factory=dict)
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


def read_starts(run: Run) -> None:
    """Each table's start: its first event's (``GameCreated``'s) ``at``."""
    client = Client(run.url)
    for game_id in run.tables:
        _, page = client.call("GET", f"/games/{game_id}/events?limit=1")
        at = page["events"][0]["at"].replace("Z", "+00:00")
        run.created[game_id] = datetime.fromisoformat(at)
    client.close()


def start_delays(run: Run) -> list[float]:
    """For each table, ms from the sending of its last seat's seek to its game's creation."""
    return [
        (run.created[game_id] - seats[-1].sent).total_seconds() * 1000
        for game_id, seats in run.tables.items()
    ]


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


async def open_feed(url: str, key: str) -> ClientConnection:
    """A player's feed (``GET /me/socket``) opened with her key, once it has welcomed her."""
    socket = await connect(f"{url.replace('http', 'ws', 1)}/me/socket", compression=None)
    await socket.send(msgspec.json.encode({"type": "hello", "token": key, "after": None}))
    welcome = msgspec.json.decode(await socket.recv())
    if welcome.get("type") != "welcome":
        raise RuntimeError(f"feed refused: {welcome}")
    return socket


async def heard(socket: ClientConnection, pushed: list[tuple[str, str, float]]) -> None:
    """Each ``seek-matched`` note the feed pushes: its seek, its game, and when it came (the
    wall clock's seconds, as the server stamps its events)."""
    async for frame in socket:
        came = time.time()
        message = msgspec.json.decode(frame)
        note = message.get("note") or {}
        if message.get("type") == "note" and note.get("kind") == "seek-matched":
            pushed.append((str(note["seek"]), str(note["game_id"]), came))


async def feeds(url: str, keys: list[str], parent: Connection) -> None:
    """Every player's feed open (20 opening at once), ``ready`` told to the parent; then
    the notes heard until the parent says stop, and those sent back."""
    opened: list[ClientConnection] = []
    for first in range(0, len(keys), 20):
        batch = keys[first : first + 20]
        opened += await asyncio.gather(*(open_feed(url, key) for key in batch))
    pushed: list[tuple[str, str, float]] = []
    tasks = [asyncio.create_task(heard(socket, pushed)) for socket in opened]
    parent.send("ready")
    await asyncio.get_running_loop().run_in_executor(None, parent.recv)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*(socket.close() for socket in opened), return_exceptions=True)
    parent.send(pushed)


def listen(url: str, keys: list[str], parent: Connection) -> None:
    """The feeds' process: one event loop holding every player's feed, apart from the
    posting threads, so that a note's arrival is timed as soon as it comes."""
    asyncio.run(feeds(url, keys, parent))


class Listener:
    """Every player's feed, open in a process of its own from before the first seek until
    ``stop``, which hands back each ``seek-matched`` note by seek: its game and arrival."""

    def __init__(self, url: str, players: list[tuple[str, str]]) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipe, child = context.Pipe()
        keys = [key for _, key in players]
        self.process = context.Process(target=listen, args=(url, keys, child), daemon=True)
        self.process.start()
        if not self.pipe.poll(120) or self.pipe.recv() != "ready":
            raise RuntimeError("the players' feeds did not open")

    def stop(self) -> dict[str, tuple[str, float]]:
        self.pipe.send("stop")
        pushed: list[tuple[str, str, float]] = self.pipe.recv()
        self.process.join(30)
        return {seek: (game, came) for seek, game, came in pushed}


def feed_figures(run: Run) -> list[str]:
    """The player's feed's section: each matched seat's ``seek-matched`` note, from its
    table's start (its ``GameCreated``'s ``at``) to its arrival on her open feed."""
    delays, missing, astray = [], 0, 0
    for game_id, seats in run.tables.items():
        started = run.created[game_id].timestamp()
        for seek in seats:
            game, came = run.pushed.get(seek.seek_id, ("", 0.0))
            missing += not game
            astray += bool(game) and game != game_id
            delays += [(came - started) * 1000] if game == game_id else []
    if astray:
        run.failures.append(f"{astray} seek-matched notes named another table")
    told = len(delays) + missing + astray
    within = sum(delay <= 50 for delay in delays) / max(told, 1)
    return [
        f"the player's feed: {len(run.posted)} feeds open (GET /me/socket) before seeking",
        f"  seek-matched notes {len(delays)} of {told} matched seats  missing {missing}"
        f"  naming another table {astray} (must be 0)",
        f"  push ms (GameCreated at -> note received), median [95%]: {shown(delays, 0.5)}"
        f"   p99: {shown(delays, 0.99)}",
        f"  within 50 ms: {100 * within:.1f}% of the matched seats   target: 99%",
    ]


SHAPES = [("ludo", 4), ("sorry", 2), ("ludo", 4), ("ludo", 2), ("ludo", 4), ("parchis", 4)]
"""The open tables' rule sets and seats, in turn: half are 4-player Ludo (the filtered page's
shape), the other half Ludo of two and other rule sets the filter passes over."""
PAGE = 50
"""The tables of a timed page (as the browser's lobby asks)."""
FILTER = "ruleset=ludo&players=4"


def open_table(n: int) -> CreateGame:
    """Open table ``n``: its host's seat named, every other seat open, listed, rated one
    time in three."""
    ruleset, players = SHAPES[n % len(SHAPES)]
    seats = [SeatSpec(name=f"host {n}"), *(SeatSpec(open=True) for _ in range(players - 1))]
    return CreateGame(ruleset, seats, rated=n % 3 == 0)


def fill_tables(path: Path, start: int, end: int) -> None:
    """Open tables ``start`` to ``end`` created through the use cases, in this process,
    straight into the database file (``synchronous=OFF``; many threads, so the group commit
    batches them), as ``POST /games`` creates them."""
    store = SqliteEventStore(path, synchronous="OFF")
    try:
        cases = bootstrap(store)
        with ThreadPoolExecutor(16) as pool:
            list(pool.map(lambda n: cases.commands.create(open_table(n)), range(start, end)))
    finally:
        store.close()


def page_ms(client: Client, path: str) -> float:
    """The ms of one ``GET path`` (which must answer 200 with a full page: with fewer than
    100 open tables, pages are not full and the sizes are not compared)."""
    began = time.perf_counter()
    status, reply = client.call("GET", path)
    spent = (time.perf_counter() - began) * 1000
    if status != 200 or len(reply["tables"]) != PAGE:
        raise RuntimeError(f"{path}: {status}, {len(reply.get('tables', []))} tables")
    return spent


def deep_path(client: Client, tables: int) -> str:
    """The page in the middle of the lobby, reached by following ``next`` from the first."""
    path = f"/lobby?limit={PAGE}"
    for _ in range(max(1, tables // PAGE // 2)):
        _, reply = client.call("GET", path)
        path = reply["next"]
    return path


KINDS = ("first", "deep (next)", FILTER)


def lobby_server(stack: ExitStack, folder: Path, tables: int) -> tuple[Client, list[str], float]:
    """A database file of ``tables`` open tables and a server over it (until ``stack``
    closes): a client of it, the paths of its three pages, and the fill's seconds."""
    path, began = folder / f"lobby-{tables}.db", time.perf_counter()
    fill_tables(path, 0, tables)
    filled = time.perf_counter() - began
    env = {"TABULA_LOG_LEVEL": "warning", "TABULA_CREATE_RATE": "0"}
    url, _ = stack.enter_context(service_process(path, env))
    client = stack.enter_context(closing(Client(url)))
    paths = [f"/lobby?limit={PAGE}", deep_path(client, tables), f"/lobby?{FILTER}&limit={PAGE}"]
    return client, paths, filled


def listing_times(sizes: list[int], reads: int) -> tuple[list[float], list[list[list[float]]]]:
    """For each size, a server over that many open tables (all running at once), and each
    one's three pages read ``reads`` times in rounds (every page of every server once a
    round, after 20 rounds untimed), so the load of the machine falls on them alike: the
    fills' seconds, and the ms by size, then page."""
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        servers = [lobby_server(stack, Path(folder), size) for size in sizes]
        times: list[list[list[float]]] = [[[] for _ in KINDS] for _ in sizes]
        for round_ in range(20 + reads):
            for (client, paths, _), spent in zip(servers, times, strict=True):
                for path, kind in zip(paths, spent, strict=True):
                    took = page_ms(client, path)
                    kind += [took] if round_ >= 20 else []
    return [filled for _, _, filled in servers], times


def listing_figures(args: argparse.Namespace) -> list[str]:
    """The lobby's section: pages of ``GET /lobby`` with each number of open tables."""
    sizes = sorted(args.tables)
    filled, rows = listing_times(sizes, args.reads)
    lines = [f"GET /lobby, pages of {PAGE}, {args.reads} reads each, ms, median [95%] / p99 [95%]"]
    for size, seconds, row in zip(sizes, filled, rows, strict=True):
        lines.append(f"  {size:,} open tables (filled in {seconds:.2f} s)")
        for name, spent in zip(KINDS, row, strict=True):
            lines.append(f"    {name:>24}: {shown(spent, 0.5)}  p99 {shown(spent, 0.99)}")
    for name, first, last in zip(KINDS, rows[0], rows[-1], strict=True):
        ratio = quantile(last, 0.5)[0] / quantile(first, 0.5)[0]
        ratio99 = quantile(last, 0.99)[0] / quantile(first, 0.99)[0]
        lines.append(
            f"  ratio {sizes[-1]:,} : {sizes[0]:,}, {name}: median {ratio:.2f}"
            f"  p99 {ratio99:.2f}  (target: within 2x)"
        )
    return lines


SECTIONS: list[Callable[[Run], list[str]]] = [seek_figures, feed_figures]
"""Each target's lines over the seeks' run, printed in order (``GET /lobby``'s pages are
timed over servers of their own: ``listing_figures``)."""


def quick_play(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The seeks' run over a fresh server: each section's lines, and what failed."""
    with tempfile.TemporaryDirectory() as folder:
        env = {"TABULA_LOG_LEVEL": "warning", "TABULA_CREATE_RATE": "0"}
        env |= {"TABULA_DATABASE_URL": args.database_url, "TABULA_WORKERS": str(args.workers)}
        env |= {"TABULA_MAX_STREAMS": str(args.seeks + 10)}
        env |= {"TABULA_MAX_STREAMS_PER_CLIENT": str(args.seeks + 10)}
        with service_process(Path(folder) / "lobby.db", env) as (url, _):
            players = register(url, args.seeks)
            listener = Listener(url, players)
            run = Run(url, args, post_all(url, players, args.seconds, args.clients))
            read_back(run)
            read_starts(run)
            run.pushed = listener.stop()
            lines = [line for section in SECTIONS for line in section(run)]
    return lines, run.failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeks", type=int, default=1000, help="seeks, one per player")
    parser.add_argument("--seconds", type=float, default=60.0, help="over how long")
    parser.add_argument("--clients", type=int, default=8, help="connections posting at once")
    parser.add_argument("--workers", type=int, default=1, help="service processes")
    parser.add_argument("--database-url", default="", help="PostgreSQL instead of SQLite")
    parser.add_argument(
        "--tables", type=int, nargs="+", default=[100, 10_000], help="open tables listed"
    )
    parser.add_argument("--reads", type=int, default=300, help="timed reads of each page")
    parser.add_argument(
        "--only", choices=["quick-play", "listing"], help="one target's run, not both"
    )
    args = parser.parse_args()
    lines: list[str] = []
    failures: list[str] = []
    if args.only != "listing":
        lines, failures = quick_play(args)
    if args.only != "quick-play":
        lines += listing_figures(args)
    print("\n".join(lines))
    if failures:
        sys.exit("failed: " + "; ".join(failures))


if __name__ == "__main__":
    main()

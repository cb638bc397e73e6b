"""Moves per second and POST /moves latency of the real server under N concurrent clients.

The server runs as ``python -m service`` (uvicorn) in a subprocess over a fresh SQLite file
(WAL, synchronous=FULL, log level warning), as ``--workers`` processes sharing its port
(default: one a core; cpu ms/move counts them all). N client threads on loopback each play
their own games to the end as the referee for whichever seat is pending: POST /moves with a random
legal move, ``expected_version`` and ``Prefer: return=minimal``, the next legal moves taken
from its reply (one GET /legal-moves at the start of each game). Each client is one
keep-alive connection over a plain socket (``bench.harness.Client``: http.client spent ~0.1
ms of client CPU a request parsing reply heads, taken from the server on two cores;
httpx.AsyncClient tops out near 150 requests/s with 32 connections here). In the same run,
the same clients post to an empty Litestar app on the same uvicorn (``bench/ceiling.py``):
the floor, and the ratios of moves/s and of server CPU per move to it. On the same disk, a
tiny loop measures raw one-row durable commits into SQLite (INSERT + COMMIT, WAL,
synchronous=FULL); the ratio moves/s : raw commits/s says what group commit buys.

Run ``python bench/api.py [--clients 32] [--seconds 10] [--ruleset race35]``; several
``--clients`` values (``--clients 1 8 32``) run one after the other on one server.

With ``--postgres URL`` (default: $TABULA_TEST_POSTGRES_URL) the same clients then play
against 1, 2 and 4 service processes (``--processes``) over one PostgreSQL database, a fresh
schema each, the clients spread evenly over the processes; cpu ms/move there is the CPU
of all service processes together (PostgreSQL's own CPU is not counted).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from typing import Any  # noqa: E402

import msgspec  # noqa: E402

from bench.ceiling import Floor, empty_server, floor  # noqa: E402
from bench.harness import (  # noqa: E402
    Client,
    WebSocketClient,
    cpu_seconds,
    percentile,
    raw_commits_per_second,
    server,
    servers,
    service_cpu_seconds,
)
from eventstore import Appending, NewEvent, SqliteEventStore  # noqa: E402

RAW_SECONDS = 3.0
PLAYERS = {"race35": 4, "sorry": 4}


class Tally(msgspec.Struct):
    """What one client did."""

    latencies: list[float] = msgspec.field(default_factory=list)
    games: int = 0
    conflicts: int = 0


def play_games(url: str, ruleset: str, deadline: float, seed: int, transport: str) -> Tally:
    """One client: create a game, play it to the end with random moves, again until time.
    Over ``http`` each move is a POST /moves; over ``socket`` each game has its own socket
    (as the peer's ``wire`` mode has one socket.io connection a match) and each move is a
    ``play`` message answered by ``played``."""
    client, rng, tally = Client(url), random.Random(seed), Tally()
    while time.perf_counter() < deadline:
        seats = [{"name": f"P{i}"} for i in range(PLAYERS[ruleset])]
        if transport == "socket":  # its HTTP connection has been idle for a whole game
            client.close()
            client = Client(url)
        status, created = client.call("POST", "/games", {"ruleset": ruleset, "seats": seats})
        if status != 201:
            raise RuntimeError(f"POST /games answered {status}: {created}")
        game, token = created["id"], created["tokens"]["referee"]
        _, legal = client.call("GET", f"/games/{game}/legal-moves", token=token)
        player = SocketPlayer(url, game, token) if transport == "socket" else None
        while time.perf_counter() < deadline:
            if not legal["moves"]:
                tally.games += 1
                break
            if player is None:
                legal = play_one(client, game, token, legal, rng, tally)
            else:
                legal = player.play(legal, rng, tally)
        if player is not None:
            player.close()
    client.close()
    return tally


def play_one(
    client: Client, game: str, token: str, legal: Any, rng: random.Random, tally: Tally
) -> Any:
    """Play one random legal move as the referee; the legal moves after it."""
    move = rng.choice(legal["moves"])
    body = {"move": move["id"], "seat": move["seat"], "expected_version": legal["version"]}
    began = time.perf_counter()
    status, reply = client.call("POST", f"/games/{game}/moves", body, token)
    tally.latencies.append(time.perf_counter() - began)
    if status == 409:
        tally.conflicts += 1
        return client.call("GET", f"/games/{game}/legal-moves", token=token)[1]
    if status != 200:
        raise RuntimeError(f"POST /moves answered {status}: {reply}")
    return {"version": reply["version"], "moves": reply["legal_moves"]}


class SocketPlayer:
    """A game's socket, said hello to as the referee, on which moves are played."""

    def __init__(self, url: str, game: str, token: str) -> None:
        self.socket = WebSocketClient(url, f"/games/{game}/socket")
        self.socket.send({"type": "hello", "token": token, "after": 0})
        self.refs = 0

    def play(self, legal: Any, rng: random.Random, tally: Tally) -> Any:
        """Play one random legal move; the legal moves after it."""
        move = rng.choice(legal["moves"])
        self.refs += 1
        ref = str(self.refs)
        message = {"type": "play", "ref": ref, "move": move["id"], "seat": move["seat"]}
        message["expected_version"] = legal["version"]
        began = time.perf_counter()
        self.socket.send(message)
        while (reply := self.socket.recv()).get("ref") != ref:
            pass  # the welcome and the pushes of the game's first events
        tally.latencies.append(time.perf_counter() - began)
        if reply["type"] != "played":
            raise RuntimeError(f"a play was refused: {reply}")
        return reply["legal_moves"]

    def close(self) -> None:
        self.socket.close()


def run_clients(
    urls: list[str], clients: int, seconds: float, ruleset: str, transport: str = "http"
) -> Tally:
    """N client threads, each on its own connection to one of the servers in turn, for
    ``seconds``; their tallies merged."""
    deadline = time.perf_counter() + seconds

    def client(n: int) -> Tally:
        return play_games(urls[n % len(urls)], ruleset, deadline, n, transport)

    with ThreadPoolExecutor(max_workers=clients) as pool:
        tallies = list(pool.map(client, range(clients)))
    return Tally(
        [t for tally in tallies for t in tally.latencies],
        sum(t.games for t in tallies),
        sum(t.conflicts for t in tallies),
    )


def store_appends(folder: Path, threads: int, seconds: float) -> tuple[float, dict[str, int]]:
    """The event store alone: threads appending one event at a time to their own streams."""
    store = SqliteEventStore(folder / f"store-{threads}.db")
    deadline = time.perf_counter() + seconds

    def append_until_deadline(n: int) -> None:
        version = 0
        while time.perf_counter() < deadline:
            store.append(
                Appending(f"s{n}", [NewEvent("MovePlayed", {"n": version}, n % 4)], version)
            )
            version += 1

    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(append_until_deadline, range(threads)))
    stats = store.stats()
    store.close()
    return stats["appends"] / (time.perf_counter() - began), stats


def report(
    clients: int, seconds: float, tally: Tally, cpu: float, raw: float, client_cpu: float
) -> str:
    """One line of figures."""
    moves = len(tally.latencies)
    rate = moves / seconds
    p50, p99 = (1000 * percentile(tally.latencies, q) for q in (0.50, 0.99))
    return (
        f"{clients:>7}  {moves:>6}  {rate:>8.0f}  {p50:>7.1f}  {p99:>7.1f}  {tally.games:>5}"
        f"  {1000 * cpu / max(moves, 1):>10.2f}  {1000 * client_cpu / max(moves, 1):>10.2f}"
        f"  {raw:>9.0f}  {rate / raw:>5.2f}"
    )


def scale_out(
    database_url: str, processes: list[int], clients: list[int], seconds: float, ruleset: str
) -> None:
    """Lines for N service processes over one PostgreSQL database, clients spread over them."""
    from eventstore.postgres import temporary_schema

    print("\nPostgreSQL, N service processes over one database:")
    print("procs  clients   moves   moves/s  p50 ms   p99 ms  games  conflicts  cpu ms/move")
    for count in processes:
        with temporary_schema(database_url, "bench") as url, servers(url, count) as (urls, pids):
            for n in clients:
                cpu = sum(cpu_seconds(pid) for pid in pids)
                tally = run_clients(urls, n, seconds, ruleset)
                cpu = sum(cpu_seconds(pid) for pid in pids) - cpu
                print(scaled_report(count, n, seconds, tally, cpu), flush=True)


def scaled_report(processes: int, clients: int, seconds: float, tally: Tally, cpu: float) -> str:
    """One line of figures for several processes."""
    moves = len(tally.latencies)
    p50, p99 = (1000 * percentile(tally.latencies, q) for q in (0.50, 0.99))
    return (
        f"{processes:>5}  {clients:>7}  {moves:>6}  {moves / seconds:>8.0f}  {p50:>7.1f}"
        f"  {p99:>7.1f}  {tally.games:>5}  {tally.conflicts:>9}"
        f"  {1000 * cpu / max(moves, 1):>11.2f}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clients", type=int, nargs="+", default=[32])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--ruleset", default="race35", choices=sorted(PLAYERS))
    parser.add_argument("--folder", type=Path, default=None, help="where the database goes")
    parser.add_argument(
        "--raw-seconds", type=float, default=RAW_SECONDS, help="each raw commit and store run"
    )
    parser.add_argument("--url", default=None, help="play against a running server instead")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("TABULA_TEST_POSTGRES_URL", ""),
        help="a PostgreSQL database to run several service processes over (scratch schemas)",
    )
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="service processes on the SQLite file (TABULA_WORKERS; default: one a core)",
    )
    parser.add_argument(
        "--transport",
        nargs="+",
        default=["http", "socket"],
        choices=["http", "socket"],
        help="how moves are sent: a POST each, or a message on the game's WebSocket",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.folder) as tmp:
        folder = Path(tmp)
        raw_before = raw_commits_per_second(folder, args.raw_seconds)
        print(f"raw one-row durable commits (WAL, synchronous=FULL): {raw_before:.0f}/s")
        floors: list[tuple[str, int, float, float, Floor]] = []
        print(f"the service: {args.workers} process(es) over one SQLite file")
        served = server(folder / "tabula.db", url=args.url, workers=args.workers)
        with served as (url, pid), empty_server() as empty:
            for transport in args.transport:
                print(f"\nover {transport}:")
                print(
                    "clients   moves   moves/s  p50 ms   p99 ms  games  cpu ms/move  clients ms"
                    "  raw c/s  ratio"
                )
                for clients in args.clients:
                    cpu, mine = service_cpu_seconds(pid), cpu_seconds(os.getpid())
                    tally = run_clients([url], clients, args.seconds, args.ruleset, transport)
                    cpu, mine = service_cpu_seconds(pid) - cpu, cpu_seconds(os.getpid()) - mine
                    raw = raw_commits_per_second(folder, args.raw_seconds)
                    print(report(clients, args.seconds, tally, cpu, raw, mine), flush=True)
                    moves = max(len(tally.latencies), 1)
                    rate = len(tally.latencies) / args.seconds
                    empty_run = floor(*empty, clients, args.seconds)
                    floors.append((transport, clients, rate, cpu / moves, empty_run))
        print(
            "\nthe floor, in the same run: the same clients posting to an empty Litestar app on"
            " the same uvicorn (bench/ceiling.py):"
        )
        print(
            "transport  clients  requests/s  p50 ms  p99 ms  server ms/req  moves : floor"
            "  cpu : floor"
        )
        for transport, clients, rate, cpu_per_move, empty_run in floors:
            p50, p99 = (1000 * percentile(empty_run.latencies, q) for q in (0.50, 0.99))
            print(
                f"{transport:>9}  {clients:>7}  {empty_run.rate:>10.0f}  {p50:>6.1f}  {p99:>6.1f}"
                f"  {empty_run.server_ms:>13.2f}  {rate / empty_run.rate:>13.2f}"
                f"  {1000 * cpu_per_move / empty_run.server_ms:>11.2f}",
                flush=True,
            )
        print("\nthe event store alone (group commit), one event per append:")
        print("threads  appends/s  appends/commit  raw c/s  ratio")
        for threads in args.clients:
            rate, stats = store_appends(folder, threads, args.raw_seconds)
            raw = raw_commits_per_second(folder, args.raw_seconds)
            per_commit = stats["appends"] / max(stats["commits"], 1)
            print(
                f"{threads:>7}  {rate:>9.0f}  {per_commit:>14.1f}  {raw:>7.0f}  {rate / raw:>5.2f}"
            )
    if args.postgres:
        scale_out(args.postgres, args.processes, args.clients, args.seconds, args.ruleset)
    print(
        f"ruleset {args.ruleset}; cpu ms/move = the server's CPU time per move (one POST"
        " moves; one GET legal-moves per game); clients ms = the client threads' CPU per"
        " move; ratio = moves/s / raw commits/s measured right after; moves : floor = moves/s"
        " over the empty app's requests/s, cpu : floor = server CPU per move over server CPU per"
        " empty request"
    )


if __name__ == "__main__":
    main()

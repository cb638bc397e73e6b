"""What open game sockets cost the server, and how soon a pushed event reaches them.

The server runs as ``python -m service`` over a fresh SQLite file. One client process (this
one, asyncio) opens ``--watchers`` spectator sockets spread evenly over ``--games`` games and
leaves them idle for ``--seconds``: the server's CPU meanwhile, as a share of one core, is what
idle sockets cost. Then ``--players`` of those games are played on their referees' sockets
(random legal moves, as ``bench/api.py --transport socket``) for ``--seconds`` while the
watchers listen: for every event each watcher receives, the delay from the moment its player
sent the move that caused it (so the write's own commit is counted), and from the moment the
player had its answer (0 when the push came first). Printed: the idle share, moves/s, and the
delays' p50, p99 and the share within 50 ms.

Run ``python bench/fanout.py [--watchers 1000] [--games 250] [--players 32] [--seconds 10]
[--workers 1]`` (``--workers``: service processes sharing the port; the server's CPU is all
of theirs).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import asyncio  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import httpx  # noqa: E402
import msgspec  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from bench.harness import (  # noqa: E402
    cpu_seconds,
    percentile,
    service_cpu_seconds,
    service_process,
)

sent_at: dict[tuple[str, int], float] = {}  # (game, version) -> when its move was sent
acked_at: dict[tuple[str, int], float] = {}  # (game, version) -> when its player had the answer


async def hello(url: str, game: str, token: str | None) -> ClientConnection:
    ws = await connect(f"{url.replace('http', 'ws', 1)}/games/{game}/socket", compression=None)
    await ws.send(msgspec.json.encode({"type": "hello", "token": token, "after": 0}))
    return ws


async def watch(ws: ClientConnection, game: str, delays: list[tuple[float, float]]) -> None:
    """Record, for each event received, its delays from its move's sending and answer."""
    async for frame in ws:
        message = msgspec.json.decode(frame)
        if message["type"] != "events":
            continue
        now = time.perf_counter()
        for event in message["events"]:
            key = (game, event["version"])
            if key in sent_at:
                delays.append((now - sent_at[key], max(now - acked_at.get(key, now), 0.0)))


async def play(
    url: str, game: str, token: str, legal: Any, deadline: float, rng: random.Random
) -> int:
    """Play random legal moves on the referee's socket until the deadline or the game's end."""
    ws = await hello(url, game, token)
    moves, ref = 0, 0
    while legal["moves"] and time.perf_counter() < deadline:
        move = rng.choice(legal["moves"])
        ref += 1
        message = {"type": "play", "ref": str(ref), "move": move["id"], "seat": move["seat"]}
        message["expected_version"] = legal["version"]
        began = time.perf_counter()
        for version in range(legal["version"] + 1, legal["version"] + 40):
            sent_at.setdefault((game, version), began)  # the events this move may cause
        await ws.send(msgspec.json.encode(message))
        while (answer := msgspec.json.decode(await ws.recv())).get("ref") != str(ref):
            pass
        if answer["type"] != "played":
            raise RuntimeError(f"refused: {answer}")
        done = time.perf_counter()
        for event in answer["events"]:
            acked_at[(game, event["version"])] = done
        for version in range(answer["version"] + 1, legal["version"] + 40):
            sent_at.pop((game, version), None)  # not caused by this move after all
        legal, moves = answer["legal_moves"], moves + 1
    await ws.close()
    return moves


async def scenario(url: str, pid: int, args: argparse.Namespace) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        seats = [{"name": f"P{i}"} for i in range(4)]
        games = []
        for _ in range(args.games):
            created = (
                await http.post("/games", json={"ruleset": args.ruleset, "seats": seats})
            ).json()
            games.append((created["id"], created["tokens"]["referee"]))
    watchers = [await hello(url, games[n % len(games)][0], None) for n in range(args.watchers)]
    delays: list[tuple[float, float]] = []
    tasks = [
        asyncio.create_task(watch(ws, games[n % len(games)][0], delays))
        for n, ws in enumerate(watchers)
    ]
    await asyncio.sleep(2)  # the first pushes (each game's creation) are over
    before = service_cpu_seconds(pid)
    await asyncio.sleep(args.seconds)
    idle = (service_cpu_seconds(pid) - before) / args.seconds
    print(f"{args.watchers} idle sockets on {args.games} games: {100 * idle:.1f}% of a core")
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        legal = [
            (
                await http.get(
                    f"/games/{game}/legal-moves", headers={"Authorization": f"Bearer {token}"}
                )
            ).json()
            for game, token in games[: args.players]
        ]
    deadline = time.perf_counter() + args.seconds
    rng = random.Random(0)
    before, mine = service_cpu_seconds(pid), cpu_seconds(os.getpid())
    played = await asyncio.gather(
        *(
            play(url, game, token, moves, deadline, rng)
            for (game, token), moves in zip(games, legal, strict=False)
        )
    )
    busy, mine = service_cpu_seconds(pid) - before, cpu_seconds(os.getpid()) - mine
    moves = sum(played)
    print(
        f"{args.players} players: {moves / args.seconds:.0f} moves/s,"
        f" server {1000 * busy / max(moves, 1):.2f} ms CPU/move, while the watchers listen;"
        f" the server {100 * busy / args.seconds:.0f}% of a core, this client process"
        f" {100 * mine / args.seconds:.0f}%"
    )
    from_sent = [sent for sent, _ in delays]
    from_ack = [ack for _, ack in delays]
    within = sum(d <= 0.050 for d in from_sent) / max(len(from_sent), 1)
    acked_within = sum(d <= 0.050 for d in from_ack) / max(len(from_ack), 1)
    sent50, sent99 = (1000 * percentile(from_sent, q) for q in (0.5, 0.99))
    ack50, ack99 = (1000 * percentile(from_ack, q) for q in (0.5, 0.99))
    print(
        f"{len(delays)} events pushed to watchers: from the move sent p50 {sent50:.1f} ms,"
        f" p99 {sent99:.1f} ms, {100 * within:.1f}% within 50 ms; from its answer p50"
        f" {ack50:.1f} ms, p99 {ack99:.1f} ms, {100 * acked_within:.1f}% within 50 ms"
    )
    for task in tasks:
        task.cancel()
    for ws in watchers:
        await ws.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--games", type=int, default=250)
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--ruleset", default="race35")
    parser.add_argument("--workers", type=int, default=1, help="service processes (TABULA_WORKERS)")
    args = parser.parse_args()
    env = {"TABULA_LOG_LEVEL": "warning", "TABULA_CREATE_RATE": "0"}
    env |= {"TABULA_WORKERS": str(args.workers)}
    env |= {"TABULA_MAX_STREAMS": str(args.watchers + args.players + 10)}
    env |= {"TABULA_MAX_STREAMS_PER_CLIENT": str(args.watchers + args.players + 10)}
    with (
        tempfile.TemporaryDirectory() as folder,
        service_process(Path(folder) / "tabula.db", env) as (url, process),
    ):
        asyncio.run(scenario(url, process.pid, args))


if __name__ == "__main__":
    main()

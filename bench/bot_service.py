"""Bots' think time on the service, from the log's timestamps of real games.

The server runs as ``python -m service`` over a fresh SQLite file, pinned to one core (every
thread of it, with ``sched_setaffinity``). Eight client threads play other games on it all
the while (people's games: random legal moves as the referee, as ``bench/api.py`` plays).
Meanwhile games whose every seat is a bot of one level are created, one level and rule set
after another, and left to the service's bot driver until they finish. Then each game's log
is read back: a bot's decision (an event ``by: "bot"``) took the time from the event before
it (which made the seat pending) to its own ``at``: noticing the seat is due, folding what the
seat may see, choosing, judging and committing. Printed per level and rule set: decisions,
p50, p95 and the maximum, in milliseconds.

Run ``python bench/bot_service.py [--games 4] [--rulesets sorry ludo] [--levels random]``.
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
import random  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from datetime import datetime  # noqa: E402
from typing import Any  # noqa: E402

from bench.harness import Client, percentile, server  # noqa: E402

BACKGROUND = 8
"""People's games played while the bots think."""
PLAYERS = {"partners": 4, "race35": 4}
GAME_SECONDS = 300.0


def pin(pid: int, core: int) -> None:
    """Every thread of process ``pid`` (and any it starts later) on ``core`` alone."""
    for task in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(task), {core})


def background(url: str, stop: threading.Event, seed: int) -> None:
    """One person's table after another until ``stop``: random legal moves as the referee."""
    client, rng = Client(url), random.Random(seed)
    while not stop.is_set():
        seats = [{"name": f"P{i}"} for i in range(4)]
        _, created = client.call("POST", "/games", {"ruleset": "sorry", "seats": seats})
        game, token = created["id"], created["tokens"]["referee"]
        _, legal = client.call("GET", f"/games/{game}/legal-moves", token=token)
        while legal["moves"] and not stop.is_set():
            move = rng.choice(legal["moves"])
            body = {"move": move["id"], "seat": move["seat"], "expected_version": legal["version"]}
            status, reply = client.call("POST", f"/games/{game}/moves", body, token)
            if status != 200:
                legal = client.call("GET", f"/games/{game}/legal-moves", token=token)[1]
            else:
                legal = {"version": reply["version"], "moves": reply["legal_moves"]}
    client.close()


def bot_games(client: Client, ruleset: str, level: str, games: int) -> list[str]:
    """Create ``games`` games of ``ruleset`` every seat of which a bot of ``level`` plays."""
    seats = [{"name": f"{level} {n}", "bot": level} for n in range(PLAYERS.get(ruleset, 4))]
    ids = []
    for _ in range(games):
        status, created = client.call("POST", "/games", {"ruleset": ruleset, "seats": seats})
        if status != 201:
            raise RuntimeError(f"POST /games answered {status}: {created}")
        ids.append(created["id"])
    return ids


def wait_finished(client: Client, ids: list[str]) -> None:
    """Until every game has finished (or GAME_SECONDS have passed: then fail)."""
    deadline = time.monotonic() + GAME_SECONDS
    for game in ids:
        while client.call("GET", f"/games/{game}")[1]["status"] != "finished":
            if time.monotonic() > deadline:
                raise RuntimeError(f"game {game} did not finish in {GAME_SECONDS:g} s")
            time.sleep(0.05)


def think_times(client: Client, game: str) -> list[float]:
    """Each bot decision's time in ``game``, in ms, from the log's timestamps."""
    events: list[dict[str, Any]] = []
    while True:
        _, page = client.call("GET", f"/games/{game}/events?after={len(events)}&limit=1000")
        events += page["events"]
        if not page["events"] or len(events) >= page["version"]:
            break
    times = []
    for before, event in itertools.pairwise(events):
        if event["by"] == "bot":
            took = stamp(event["at"]) - stamp(before["at"])
            times.append(took * 1000)
    return times


def stamp(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games per level and rule set")
    parser.add_argument("--rulesets", nargs="+", default=["sorry", "ludo"])
    parser.add_argument("--levels", nargs="+", help="levels (default: every one GET /bots lists)")
    parser.add_argument("--core", type=int, default=0, help="the core the server runs on")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, server(Path(folder) / "bots.db") as (url, pid):
        pin(pid, args.core)
        client = Client(url)
        levels = args.levels or [b["name"] for b in client.call("GET", "/bots")[1]["bots"]]
        stop = threading.Event()
        players = [
            threading.Thread(target=background, args=(url, stop, n), daemon=True)
            for n in range(BACKGROUND)
        ]
        for thread in players:
            thread.start()
        print(f"server pinned to core {args.core}; {BACKGROUND} people's games played meanwhile")
        head = ("level", "rule set", "decisions", "p50 ms", "p95 ms", "max ms")
        print("{:<8} {:<14} {:>9} {:>8} {:>8} {:>8}".format(*head))
        try:
            for level in levels:
                for ruleset in args.rulesets:
                    ids = bot_games(client, ruleset, level, args.games)
                    wait_finished(client, ids)
                    times = [t for game in ids for t in think_times(client, game)]
                    p50, p95 = percentile(times, 0.5), percentile(times, 0.95)
                    print(
                        f"{level:<8} {ruleset:<14} {len(times):>9} {p50:>8.1f} {p95:>8.1f} "
                        f"{max(times):>8.1f}",
                        flush=True,
                    )
        finally:
            stop.set()
            for thread in players:
                thread.join(timeout=10)
        client.close()


if __name__ == "__main__":
    main()

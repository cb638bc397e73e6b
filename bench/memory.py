"""Resident memory (RSS) of the real server holding 10, 100 and 1,000 active games, against
the empty server, in one run.

The server runs as ``python -m service`` over a fresh SQLite file; client threads create
Sorry! games (four seats) and play a few random moves in each (GET /legal-moves, POST
/moves), so every game is an in-memory projection. RSS is read from /proc after each step.

Run ``python bench/memory.py [--games 10 100 1000] [--moves 5]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import random  # noqa: E402
import tempfile  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

from bench.api import Tally, play_one  # noqa: E402
from bench.harness import Client, rss_kib, server  # noqa: E402

THREADS = 8
SEATS = [{"name": n} for n in ("Ann", "Bob", "Cy", "Di")]


def add_games(url: str, count: int, moves: int, seed: int) -> None:
    """Create ``count`` games and play ``moves`` random moves in each."""

    def one(n: int) -> None:
        client, rng = Client(url), random.Random(seed + n)
        _, created = client.call("POST", "/games", {"ruleset": "sorry", "seats": SEATS})
        game, token = created["id"], created["tokens"]["referee"]
        _, legal = client.call("GET", f"/games/{game}/legal-moves", token=token)
        for _ in range(moves):
            legal = play_one(client, game, token, legal, rng, Tally())
        client.close()

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        list(pool.map(one, range(count)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--moves", type=int, default=5, help="moves played in each game")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder, server(Path(folder) / "t.db") as (url, pid):
        empty = rss_kib(pid)
        print(f"empty server: {empty / 1024:.1f} MiB RSS")
        print("games  RSS MiB  over empty MiB  KiB/game")
        held = 0
        for total in args.games:
            add_games(url, total - held, args.moves, held)
            held, rss = total, rss_kib(pid)
            print(
                f"{total:>5}  {rss / 1024:>7.1f}  {(rss - empty) / 1024:>14.1f}  "
                f"{(rss - empty) / total:>8.1f}"
            )
    print(f"sorry, 4 seats, {args.moves} moves per game (each move: a draw or a decision)")


if __name__ == "__main__":
    main()

"""The time of ``GET /games/{id}/hints`` end to end, per rule set.

The real app runs in-process (Litestar's TestClient) over a fresh SQLite file. For each rule
set, games between seats with hints allowed are played by random legal moves; at every
position where the seat to act has more than one legal move, that seat asks for its hints
(which also appends ``HintsShown``), then plays a random move; the games' chance and moves
are seeded by ``--seed``, so two trees are timed on the same games. Printed per rule set: how
many hints were timed, their median, 90th percentile and slowest CPU time (the process's:
client and server, one core) and the mean with a 95% interval, then the wall time's median.
Rule sets with hidden hands (``sorry-hand``, ``partners``) judge each hint on 2 to 8 fills of
the hidden cards, the others on the one position.

Run ``python bench/hints.py [--games 3] [--ruleset sorry] [--seed 0]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from litestar.testing import TestClient  # noqa: E402

from domain.registry import RULESETS  # noqa: E402
from service.app import create_app  # noqa: E402
from service.settings import Settings  # noqa: E402


def timed_game(
    api: TestClient[Any], ruleset: str, players: int, rng: random.Random, seed: str
) -> list[tuple[float, float]]:
    """One game of random moves with hints asked at every real choice; their CPU and wall
    times. The game's chance is seeded by ``seed``, so a run is the same on every tree."""
    body = {"ruleset": ruleset, "seats": [{}] * players, "auto_chance": True, "seed": seed}
    created = api.post("/games", json={**body, "allow_hints": True, "rated": False}).json()
    game, seats, times = created["id"], created["tokens"]["seats"], []
    for _ in range(5000):
        state = api.get(f"/games/{game}").json()
        if state["status"] == "finished":
            break
        seat = rng.choice(state["to_act"])["seat"]
        token = {"Authorization": f"Bearer {seats[seat]}"}
        moves = api.get(f"/games/{game}/legal-moves", headers=token).json()["moves"]
        if len(moves) > 1:
            started, cpu = time.perf_counter(), time.process_time()
            reply = api.get(f"/games/{game}/hints", headers=token)
            times.append((time.process_time() - cpu, time.perf_counter() - started))
            assert reply.status_code == 200, reply.text
        move = {"move": rng.choice(moves)["id"]}
        assert api.post(f"/games/{game}/moves", json=move, headers=token).status_code == 200
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--ruleset", action="append", help="only these rule sets")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database=f"{folder}/tabula.db", log_level="warning")
        with TestClient(create_app(settings)) as api:
            for name in args.ruleset or sorted(RULESETS):
                players = 4 if name == "partners" else 2
                both = [
                    t
                    for n in range(args.games)
                    for t in timed_game(api, name, players, rng, f"hints:{args.seed}:{n}")
                ]
                if len(both) < 2:
                    print(f"{name}: fewer than 2 hints timed")
                    continue
                times = [cpu for cpu, _ in both]
                mean, spread = statistics.fmean(times), statistics.stdev(times)
                half = 1.96 * spread / len(times) ** 0.5
                tenth = statistics.quantiles(times, n=10)[-1]
                wall = statistics.median(w for _, w in both)
                print(
                    f"{name}: {len(times)} hints, CPU median {statistics.median(times) * 1000:.1f} "
                    f"ms, p90 {tenth * 1000:.1f} ms, slowest {max(times) * 1000:.1f} ms, mean "
                    f"{mean * 1000:.1f} ± {half * 1000:.1f} ms; wall median {wall * 1000:.1f} ms"
                )


if __name__ == "__main__":
    main()

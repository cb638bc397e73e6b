"""The fairness of the pairings: seat positions and repeat meetings of whole tournaments
planned by ``domain.tournament.rounds.plan_round`` with random results (seeded), for 8, 10,
12, 16 and 30 players.

Figures, per format and field (averaged over ``--seeds`` tournaments, worst in brackets):

- first seats: the most games a player started from seat 0 minus the fewest (over players);
- seat spread: for each player, the most games from one seat minus the fewest from another,
  over the seats every table of the tournament had; the largest over players;
- repeats: meetings beyond the first of each pair of players (a pair at one table twice is 1);
- floor: the repeats no schedule avoids, counting pairs only (the meetings the tables make
  beyond the number of pairs of players; other constraints often force more);
- byes: players sitting out in a round (the tables' sizes alone decide it).

Run ``python bench/pairings.py [--players 8 10 12 16 30] [--seeds 20]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import statistics  # noqa: E402
from math import comb  # noqa: E402

from domain.tournament.events import Format, TournamentCreated  # noqa: E402
from domain.tournament.pairing import round_robin_rounds  # noqa: E402
from domain.tournament.seats import spread  # noqa: E402
from domain.tournament.state import Tournament, repeats, seats_had  # noqa: E402
from tests.domain.tournament_play import created, meetings_of, play  # noqa: E402


def figures(state: Tournament) -> tuple[int, int, int, int, int]:
    """(first-seat spread, largest seat spread, repeats, floor, byes) of a tournament."""
    had = seats_had(state)
    smallest = min(len(t.seats) for r in state.rounds for t in r.tables)
    firsts = [had[name][0] for name in state.players]
    seat_spread = max(spread(had[name], smallest) for name in state.players)
    byes = sum(len(r.byes) for r in state.rounds)
    slots = sum(comb(len(t.seats), 2) for r in state.rounds for t in r.tables)
    floor = max(0, slots - comb(len(state.players), 2))
    return max(firsts) - min(firsts), seat_spread, repeats(meetings_of(state)), floor, byes


def row(settings: TournamentCreated, players: int, seeds: int) -> str:
    runs = [figures(play(settings, players, seed)) for seed in range(seeds)]
    cells = []
    for column in zip(*runs, strict=True):
        cells.append(f"{statistics.mean(column):.1f} ({max(column)})")
    return " | ".join(cells)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[8, 10, 12, 16, 30])
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    setups: list[tuple[str, Format, int, int | None]] = [
        ("swiss, 4 seats, 3 rounds", "swiss", 4, 3),
        ("swiss, 4 seats, 5 rounds", "swiss", 4, 5),
        ("round-robin, 3 seats", "round-robin", 3, None),
        ("round-robin, 4 seats", "round-robin", 4, None),
    ]
    print("| format | players | rounds | first seats | seat spread | repeats | floor | byes |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, format, seats, rounds in setups:
        for players in args.players:
            count = rounds or round_robin_rounds(players, seats)
            settings = created(format, count, seats)
            print(f"| {label} | {players} | {count} | {row(settings, players, args.seeds)} |")


if __name__ == "__main__":
    main()

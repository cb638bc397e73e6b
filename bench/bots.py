"""How much better than chance the client's ``GreedyBot`` plays: its win rate against random bots.

Each game seats one ``GreedyBot`` and ``players - 1`` ``RandomBot``s; the greedy seat rotates
(game ``g`` puts it at seat ``g mod players``) so no seat order favours it. Games are played
with the domain in process (no HTTP), the bots seeing what the API would show them. The
win rate comes with a 95% Wilson interval, against the ``1 / players`` a random bot wins.

Run ``python bench/bots.py [--games 1000] [--ruleset sorry] [--players 4] [--seed 0]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    # Run as a script, this file would shadow the packages it measures.
    sys.path[0] = str(ROOT)

import argparse  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402

from tabula_client import Bot, GreedyBot, RandomBot  # noqa: E402

from tests.clients.inprocess import play, winners  # noqa: E402

Z95 = 1.959964


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    centre = rate + z * z / (2 * games)
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return (centre - spread) / scale, (centre + spread) / scale


def greedy_wins(ruleset: str, players: int, games: int, seed: int) -> int:
    """How many of ``games`` the greedy seat wins."""
    wins = 0
    for number in range(games):
        game_seed = seed * 1_000_003 + number
        greedy = number % players
        bots: dict[int, Bot] = {
            seat: GreedyBot(game_seed) if seat == greedy else RandomBot(f"{game_seed}:{seat}")
            for seat in range(players)
        }
        final = play(ruleset, players, bots, game_seed)
        wins += greedy in winners(ruleset, final)
    return wins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--ruleset", default="sorry")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    wins = greedy_wins(args.ruleset, args.players, args.games, args.seed)
    seconds = time.perf_counter() - started
    low, high = wilson(wins, args.games)
    baseline = 1 / args.players
    print(
        f"{args.ruleset}, {args.players} players, {args.games} games: GreedyBot won {wins} "
        f"({wins / args.games:.1%}, 95% CI {low:.1%}-{high:.1%}) vs {baseline:.0%} for a "
        f"random bot, {args.players - 1} RandomBot opponents ({seconds:.0f} s)"
    )


if __name__ == "__main__":
    main()

"""How strong and fast the service's bots are: win rates of the levels against the client's
bots and against each other, and the think time of each decision.

Every game is played with the domain in process (no HTTP). A service bot chooses from the log
as its seat may see it (each event passed through the rule set's ``redact``); a client bot
(``GreedyBot``, ``RandomBot`` of ``tabula_client``) from the view and moves the API would show
it. Chance comes from the game's own generator, never the bots'. The seats rotate (game ``g``
puts the measured side at seat ``g mod players``), so no seat order favours anyone. Win rates
come with a 95% Wilson interval; think times are per decision of the measured side (one core,
in process), p50 / p95 / max.

Run ``python bench/bots.py [--games 1000] [--seed 0] [--jobs 2] [--only NAME ...]``;
``--list`` names the matchups, ``--jobs`` plays that many games at once (one process each).
Partial tables are printed as the games go (``--every``).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    # Run as a script, this file would shadow the packages it measures.
    sys.path[0] = str(ROOT)

import argparse  # noqa: E402
import concurrent.futures  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402

from tabula_client import GreedyBot, RandomBot  # noqa: E402

import bots  # noqa: E402
from domain.events import Event, GameCreated  # noqa: E402
from domain.model import CHANCE_KINDS, COLOURS  # noqa: E402
from domain.registry import find_ruleset  # noqa: E402
from tests.clients.inprocess import game_view, wire_moves  # noqa: E402
from tests.domain.playout import chance_event  # noqa: E402

Z95 = 1.959964
MAX_ACTIONS = 100_000

Chooser = Callable[[Any, Any, int, list[Event], list[Any], int], str]
"""(rules, state, seat, log, moves, game seed) -> move id."""


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    centre = rate + z * z / (2 * games)
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return (centre - spread) / scale, (centre + spread) / scale


def service_bot(level: str) -> Chooser:
    """A seat played by the service's bot ``level``, from its redacted log."""

    def choose(
        rules: Any, state: Any, seat: int, log: list[Event], moves: list[Any], g: int
    ) -> str:
        seen = [rules.redact(event, seat) for event in log]
        seed = hash((g, len(log), seat)) & 0xFFFFFFFF
        return bots.choose(level, rules.NAME, rules.VERSION, seat, seen, moves, seed)

    return choose


def client_bot(kind: type[GreedyBot] | type[RandomBot]) -> Chooser:
    """A seat played by one of the client's bots, from the view and moves the API shows."""

    made: dict[tuple[int, int], Any] = {}

    def choose(
        rules: Any, state: Any, seat: int, log: list[Event], moves: list[Any], g: int
    ) -> str:
        bot = made.setdefault((g, seat), kind(f"{g}:{seat}"))
        view = game_view(rules, state, seat, len(log))
        return bot.choose(view, wire_moves(moves)).id

    return choose


@dataclass
class Matchup:
    """``ours`` (the measured side) against ``theirs`` in ``players``-seat ``ruleset`` games;
    ``team`` seats ``ours`` at seat and seat + 2 (partners)."""

    name: str
    ruleset: str
    players: int
    ours: str
    theirs: str
    target: float
    team: bool = False
    wins: int = 0
    games: int = 0
    thinks: list[float] = field(default_factory=list)

    def seats(self, g: int) -> set[int]:
        if self.team:
            return {g % 2, g % 2 + 2}
        return {g % self.players}


CHOOSERS: dict[str, Callable[[], Chooser]] = {
    "expert": lambda: service_bot("expert"),
    "greedy": lambda: service_bot("greedy"),
    "random": lambda: service_bot("random"),
    "GreedyBot": lambda: client_bot(GreedyBot),
    "RandomBot": lambda: client_bot(RandomBot),
}


def matchups() -> list[Matchup]:
    four = ["sorry", "sorry-hand", "parchis", "parchis-2dice", "ludo"]
    table = [Matchup(f"{r}:expert-vs-3-GreedyBot", r, 4, "expert", "GreedyBot", 0.35) for r in four]
    table.append(
        Matchup(
            "partners:2-expert-vs-2-GreedyBot", "partners", 4, "expert", "GreedyBot", 0.60, True
        )
    )
    table.append(Matchup("sorry:expert-vs-3-RandomBot", "sorry", 4, "expert", "RandomBot", 0.60))
    table.append(Matchup("ludo:expert-vs-3-RandomBot", "ludo", 4, "expert", "RandomBot", 0.45))
    for r in ["sorry", "sorry-hand", "parchis", "parchis-2dice", "ludo"]:
        table.append(Matchup(f"{r}:greedy-vs-random-2p", r, 2, "greedy", "random", 0.55))
        table.append(Matchup(f"{r}:expert-vs-greedy-2p", r, 2, "expert", "greedy", 0.55))
    return table


def play_one(name: str, g: int, seed: int) -> tuple[bool, list[float]]:
    """Game ``g`` of the matchup called ``name`` in a fresh copy: whether the measured side
    won, and its think times (a worker process's task)."""
    matchup = next(m for m in matchups() if m.name == name)
    return play(matchup, g, seed), matchup.thinks


def play(matchup: Matchup, g: int, seed: int) -> bool:
    """One game; whether the measured side won. Think times are added to the matchup."""
    rules = find_ruleset(matchup.ruleset)
    ours, theirs = CHOOSERS[matchup.ours](), CHOOSERS[matchup.theirs]()
    mine = matchup.seats(g)
    game_seed = seed * 1_000_003 + g
    rng = random.Random(game_seed)
    names = tuple(COLOURS[s] for s in range(matchup.players))
    log: list[Event] = [GameCreated(matchup.ruleset, {}, names, ruleset_version=rules.VERSION)]
    state = rules.setup({}, matchup.players)

    def push(events: list[Event]) -> None:
        nonlocal state
        for event in events:
            state = rules.apply(state, event)
            log.append(event)

    push(_settle(rules, state))
    for _ in range(MAX_ACTIONS):
        pending = rules.to_act(state)
        if not pending:
            winners = rules.view(state, "referee").winners
            return any(w in mine for w in winners)
        who = pending[0]
        if who.kind in CHANCE_KINDS:
            push([chance_event(rules, state, who.seat, rng)])
        else:
            moves = rules.legal_moves(state, who.seat)
            chooser = ours if who.seat in mine else theirs
            started = time.perf_counter()
            move = chooser(rules, state, who.seat, log, moves, game_seed)
            if who.seat in mine:
                matchup.thinks.append(time.perf_counter() - started)
            push(rules.decide(state, who.seat, move))
        push(_settle(rules, state))
    raise AssertionError(f"{matchup.name} game {g} did not end within {MAX_ACTIONS} actions")


def _settle(rules: Any, state: Any) -> list[Event]:
    events: list[Event] = []
    while batch := rules.automatic(state):
        for event in batch:
            state = rules.apply(state, event)
        events.extend(batch)
    return events


def quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def row(m: Matchup) -> str:
    low, high = wilson(m.wins, m.games)
    rate = m.wins / m.games if m.games else 0.0
    met = "met" if low >= m.target else ("not met" if high < m.target else "open")
    think = (
        f"{quantile(m.thinks, 0.5) * 1e3:6.1f} {quantile(m.thinks, 0.95) * 1e3:6.1f} "
        f"{max(m.thinks, default=0.0) * 1e3:7.1f}"
    )
    return (
        f"{m.name:38} {m.games:5} {rate:6.1%} {low:6.1%}-{high:6.1%} "
        f">={m.target:.0%} {met:8} {think}"
    )


HEADER = (
    f"{'matchup':38} {'games':>5} {'won':>6} {'95% CI':>13} {'target':>5} {'':8} "
    "think ms p50 p95 max"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    table = matchups()
    if args.list:
        print("\n".join(m.name for m in table))
        return
    if args.only:
        table = [m for m in table if any(word in m.name for word in args.only)]
    started = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for m in table:
            games = [(m.name, g, args.seed) for g in range(args.games)]
            for won, thinks in pool.map(play_one, *zip(*games, strict=True)):
                m.wins += won
                m.games += 1
                m.thinks += thinks
                if m.games % args.every == 0 and m.games < args.games:
                    print("  partial:", row(m), flush=True)
            print(row(m), flush=True)
    print(f"({args.games} games per matchup, {time.perf_counter() - started:.0f} s)")
    print(HEADER)
    for m in table:
        print(row(m))


if __name__ == "__main__":
    main()

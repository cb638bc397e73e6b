"""The cost of reading a game's state now (GET /games/{id}) and at a past version
(``state?at=N``) for games of 100, 1,000 and 10,000 events.

Games are built in-process through the service's use cases (``UseCases``): Sorry! with
``auto_chance``, random legal moves, some taken back at once by an undo (a quarter of them,
more in games longer than a natural one of ~700 events, so that a game lasts as long as
asked; undos that revert past a snapshot make reads fold from the one before). Timings are the
use case plus the JSON view, without HTTP (the API adds a constant ~1-2 ms, see bench/api.py):

- warm: the game's projection is in memory (``Repository.open`` catches up, then the view);
- cold: a fresh ``UseCases`` (a restarted server) loads the game: latest stored snapshot plus
  the events after it; "cold, no snapshots" drops them first, so the whole log is folded;
- at=N: ``Repository.replay_at`` for random N (a stored snapshot plus at most one interval).

Run ``python bench/replay.py [--sizes 100 1000 10000] [--reads 200]``.
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
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import msgspec  # noqa: E402

from bench.harness import percentile  # noqa: E402
from domain.replay import SNAPSHOT_EVERY  # noqa: E402
from eventstore import SqliteEventStore, utcnow  # noqa: E402
from service.app import UseCases, bootstrap  # noqa: E402
from service.core.commands import CreateGame, PlayMove, SeatSpec, Undo  # noqa: E402
from service.usecases.games.views import state_view  # noqa: E402

SEATS = [SeatSpec(n) for n in ("Ann", "Bob", "Cy", "Di")]
NATURAL_LENGTH = 700
"""About how many events a random four-player Sorry! game has without undo."""


def build(games: UseCases, length: int, rng: random.Random) -> str:
    """A Sorry! game of at least ``length`` events: random moves, some taken back at once."""
    created = games.commands.create(CreateGame("sorry", SEATS, auto_chance=True))
    game_id, referee = created.id, created.tokens.referee
    take_back = max(0.25, 1 - NATURAL_LENGTH / length)
    while True:
        with games.games.game(game_id) as game:
            if game.version >= length:
                return game_id
            state, rules, finished = game.replay.state, game.rules, game.finished
        if not finished:
            seat = rules.to_act(state)[0].seat
            move = rng.choice(rules.legal_moves(state, seat)).id
            games.commands.play(game_id, referee, PlayMove(move=move, seat=seat), None)
        if finished or rng.random() < take_back:
            games.commands.undo(game_id, referee, Undo("bench"), None)


def timed(action: Callable[[], object], times: int) -> list[float]:
    """Seconds each of ``times`` calls took."""
    spent = []
    for _ in range(times):
        began = time.perf_counter()
        action()
        spent.append(time.perf_counter() - began)
    return spent


def current(games: UseCases, game_id: str) -> bytes:
    """What GET /games/{id} computes: catch up, render the view, encode it."""
    with games.games.game(game_id) as game:
        return msgspec.json.encode(state_view(game, game.replay, None, utcnow()))


def at_version(games: UseCases, game_id: str, at: int) -> bytes:
    """What GET /games/{id}/state?at=N computes."""
    replay = games.games.replay_at(game_id, at)
    with games.games.game(game_id) as game:
        return msgspec.json.encode(state_view(game, replay, None, utcnow()))


def without_snapshots(store: SqliteEventStore, game_id: str) -> float:
    """Seconds a cold load takes with the game's snapshots dropped (it saves one back)."""
    store.drop_snapshots(game_id)
    began = time.perf_counter()
    current(bootstrap(store), game_id)
    return time.perf_counter() - began


def measure(store: SqliteEventStore, game_id: str, reads: int, rng: random.Random) -> list[str]:
    """One row of figures for one game, in microseconds."""
    games = bootstrap(store)
    version = store.version(game_id)
    current(games, game_id)  # load it: the timed reads below are warm
    warm = timed(lambda: current(games, game_id), reads)
    cold = timed(lambda: current(bootstrap(store), game_id), max(5, reads // 10))
    at = timed(lambda: at_version(games, game_id, rng.randint(1, version)), reads)
    bare = [without_snapshots(store, game_id) for _ in range(3)]
    row = [f"{version:,}"]
    for spent in (warm, cold, bare, at):
        row += [f"{1e6 * percentile(spent, 0.5):,.0f}", f"{1e6 * percentile(spent, 0.99):,.0f}"]
    return row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1_000, 10_000])
    parser.add_argument("--reads", type=int, default=200, help="timed reads of each kind")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    head = ["events", "warm p50", "p99", "cold p50", "p99", "cold no-snap p50", "p99"]
    head += ["at=N p50", "p99"]
    print("  ".join(f"{h:>9}" for h in head))
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteEventStore(Path(folder) / "replay.db", synchronous="OFF")
        builder = bootstrap(store)
        for size in args.sizes:
            game_id = build(builder, size, rng)
            print("  ".join(f"{c:>9}" for c in measure(store, game_id, args.reads, rng)))
        store.close()
    print(f"microseconds per read, in-process (no HTTP); snapshots every {SNAPSHOT_EVERY} versions")


if __name__ == "__main__":
    main()

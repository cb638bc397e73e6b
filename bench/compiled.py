"""What compiling the pure layers with mypyc saves a move: the referee and the hash chain, in
process, interpreted against compiled.

mypyc compiles only the modules that define no ``msgspec.Struct``: a Struct's class keywords
(``frozen``, ``kw_only``, ``tag``) do not reach msgspec from a compiled class body, so
``domain.model`` fails at import (``Required field 'status' cannot follow optional fields``).
Every rule set module, ``domain.replay``, ``domain.events`` and the commands define Structs,
so the compiled set is ``COMPILED``: the referee core's functions, the boards' geometry and
the hash chain. This script copies the committed tree (``git archive HEAD``) into a
temporary folder, compiles ``COMPILED`` there with mypyc (a C compiler needed), then plays
the same random four-seat race35 games through ``service.core.referee.judge`` and seals
each verdict's events (``eventstore.hashing.seal``) in both trees, alternately, and prints
the CPU per move (``time.process_time``) of each part.

Run ``python bench/compiled.py [--games 200] [--rounds 2]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

COMPILED = [
    "domain/race35_layout.py",
    "domain/track.py",
    "domain/parchis_board.py",
    "domain/parchis_throw.py",
    "domain/partners_board.py",
    "service/core/referee.py",
    "service/core/luck.py",
    "service/core/chance.py",
    "service/core/fields.py",
    "service/core/tables.py",
    "service/core/seating.py",
    "service/core/rejudge.py",
    "eventstore/hashing.py",
]

GAMES = """
import random, sys, time
from domain.events import GameCreated
from domain.registry import RULESETS
from eventstore import GENESIS
from eventstore.hashing import seal
from service.core import chance, referee
from service.core.commands import PlayMove
from service.core.luck import Seeded
from service.usecases.games.repository import new_events

rules, moves, judged, sealed = RULESETS["race35"], 0, 0.0, 0.0
for n in range(int(sys.argv[1])):
    created = GameCreated("race35", dict(rules.OPTIONS), ("A", "B", "C", "D"), "server",
        chance.commitment(f"s{n}"), ruleset_version=rules.VERSION)
    luck, rng = Seeded(f"s{n}"), random.Random(n)
    verdict = referee.open_game(created, luck)
    replay, version, prev = verdict.after, len(verdict.batch), GENESIS
    while not replay.state.finished:
        seat = rules.to_act(replay.state)[0].seat
        move = rng.choice(rules.legal_moves(replay.state, seat)).id
        began = time.process_time()
        played = referee.judge(replay, "referee", PlayMove(move=move, seat=seat), luck)
        middle = time.process_time()
        stored = seal("g", new_events(played.batch), version, prev, "2026-01-01T00:00:00Z")
        judged, sealed = judged + middle - began, sealed + time.process_time() - middle
        version, prev, replay = version + len(stored), stored[-1].hash, played.after
        moves += 1
kind = "compiled" if referee.__file__.endswith(".so") else "interpreted"
print(f"{kind:>11}  {moves:>6}  {1e6 * judged / moves:>13.1f}  {1e6 * sealed / moves:>12.1f}")
"""


def measure(root: Path, games: int) -> None:
    """Play ``games`` games with the packages of ``root`` first on the path."""
    env = os.environ | {"PYTHONPATH": str(root)}
    subprocess.run([sys.executable, "-c", GAMES, str(games)], cwd=root, env=env, check=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp)
        archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(copy)], input=archive.stdout, check=True)
        mypyc = Path(sys.executable).parent / "mypyc"
        subprocess.run([str(mypyc), *COMPILED], cwd=copy, check=True, capture_output=True)
        print("       tree   moves  judge us/move  seal us/move")
        for _ in range(args.rounds):
            measure(ROOT, args.games)
            measure(copy, args.games)


if __name__ == "__main__":
    main()

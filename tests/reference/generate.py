"""Regenerate the reference games: ``python -m tests.reference.generate [RULESET ...]``.

For every rule set it serves the real app (a fresh SQLite file, uvicorn in a thread) and lets
the client's bots play two games: ``RandomBot``s only (``<ruleset>-1``), and a ``GreedyBot``
at seat 0 against ``RandomBot``s (``<ruleset>-2``). Of the first ``TRIES`` seeds it keeps the
shortest game, so the files stay small. Each game is written as ``<name>.record.json`` (the
export, which ``python -m service verify`` reads) and ``<name>.final.json`` (the final state
as the server sends it; all of it is public once the game is over). Regenerate only on
purpose: the point of these files is that replay of stored games does not change.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import httpx
from tabula_client import Bot, Client, GameView, GreedyBot, RandomBot, play_game

from service.app import create_app
from service.settings import Settings
from tests.live import serving

HERE = Path(__file__).resolve().parent
PLAYERS = {"partners": 4}
TRIES = 3
BotsFor = Callable[[int, int], dict[int, Bot]]
KINDS: list[tuple[int, BotsFor]] = [
    (1, lambda seed, players: {s: RandomBot(f"{seed}:{s}") for s in range(players)}),
    (2, lambda seed, players: {0: GreedyBot(seed)}),
]


def shortest_game(client: Client, ruleset: str, bots_for: BotsFor) -> GameView:
    """The shortest of ``TRIES`` finished games (one per seed)."""
    players = PLAYERS.get(ruleset, 2)
    finals = [
        play_game(client, ruleset, players, bots=bots_for(seed, players), seed=seed)
        for seed in range(TRIES)
    ]
    return min(finals, key=lambda final: final.version)


def write(name: str, record: dict[str, object], final: dict[str, object]) -> None:
    """The record and the final state, as compact JSON with one event per line."""
    events = record["events"]
    assert isinstance(events, list)
    header = {k: v for k, v in record.items() if k != "events"}
    lines = ",\n".join(json.dumps(event, separators=(",", ":")) for event in events)
    text = json.dumps(header, separators=(",", ":"))[:-1] + ',"events":[\n' + lines + "\n]}\n"
    assert json.loads(text) == record
    (HERE / f"{name}.record.json").write_text(text)
    (HERE / f"{name}.final.json").write_text(json.dumps(final, indent=1, sort_keys=True) + "\n")


def main(only: list[str]) -> None:
    """Regenerate the games of the rule sets in ``only`` (every rule set when empty)."""
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Settings(database=str(Path(folder) / "tabula.db"), log_level="warning"))
        with serving(app) as url, Client(url) as client:
            for info in client.rulesets():
                if only and info.name not in only:
                    continue
                for number, bots_for in KINDS:
                    final = shortest_game(client, info.name, bots_for)
                    record = client.export(final.game_id).raw  # public: the game is over
                    # The state as sent (all of it is public once the game is over): typed
                    # views re-encoded would add the members the server leaves out.
                    state = httpx.get(f"{url}/games/{final.game_id}").json()
                    write(f"{info.name}-{number}", record, state)
                    print(f"{info.name}-{number}: {final.version} events")


if __name__ == "__main__":
    main(sys.argv[1:])

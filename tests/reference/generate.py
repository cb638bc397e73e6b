"""Regenerate the reference games: ``python -m tests.reference.generate [RULESET or GAME ...]``.

For every rule set it serves the real app (a fresh SQLite file, uvicorn in a thread) and lets
the client's bots play two games: ``RandomBot``s only (``<ruleset>-1``), and a ``GreedyBot``
at seat 0 against ``RandomBot``s (``<ruleset>-2``); a rule set in ``WITH_OPTIONS`` also gets
``<ruleset>-3``, ``RandomBot``s with those options. Naming a game (``parchis-2dice-3``)
regenerates that game alone, so games recorded under an earlier version of a rule set stay as
they were played. Of the first ``TRIES`` seeds it keeps the
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
WITH_OPTIONS: dict[str, dict[str, object]] = {
    "parchis-2dice": {"capture_bonus": 20, "home_bonus": 10},  # version 2's whole throws
    "sorry": {"deck": "standard45"},  # version 2's reshuffle at the draw
    "sorry-hand": {"two_plays_again": True},  # version 2's reshuffle at the draw, extra plays
}


def shortest_game(
    client: Client, ruleset: str, bots_for: BotsFor, options: dict[str, object] | None = None
) -> GameView:
    """The shortest of ``TRIES`` finished games (one per seed)."""
    players = PLAYERS.get(ruleset, 2)
    finals = [
        play_game(
            client, ruleset, players, options=options, bots=bots_for(seed, players), seed=seed
        )
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
    """Regenerate the games of the rule sets or games named in ``only`` (all when empty)."""
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Settings(database=str(Path(folder) / "tabula.db"), log_level="warning"))
        with serving(app) as url, Client(url) as client:
            for info in client.rulesets():
                games = [(number, bots_for, None) for number, bots_for in KINDS]
                if info.name in WITH_OPTIONS:
                    games.append((3, KINDS[0][1], WITH_OPTIONS[info.name]))
                for number, bots_for, options in games:
                    name = f"{info.name}-{number}"
                    if only and info.name not in only and name not in only:
                        continue
                    final = shortest_game(client, info.name, bots_for, options)
                    record = client.export(final.game_id).raw  # public: the game is over
                    # The state as sent (all of it is public once the game is over): typed
                    # views re-encoded would add the members the server leaves out.
                    state = httpx.get(f"{url}/games/{final.game_id}").json()
                    write(name, record, state)
                    print(f"{name}: {final.version} events")


if __name__ == "__main__":
    main(sys.argv[1:])

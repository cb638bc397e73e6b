"""64 clients race moves and undos on a few games: every acknowledged write is stored once, the
losers get 409 (or another 4xx, never a 5xx), and retries with the same key append nothing.

``pytest -s`` prints the requests sent and their outcomes.
"""

from __future__ import annotations

import random
import threading
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.app import create_app
from service.settings import Settings
from tests.live import serving
from tests.service.logcheck import check_log

CLIENTS = 64
ROUNDS = 12
GAMES = 4
UNDO_SHARE = 0.25
RETRY_SHARE = 0.25
UNDO_TRIES = 5  # an undo that lost the race reads the version again, so some undos win under load


class Tally:
    """What the clients saw: statuses, and every acknowledged write's events by key."""

    def __init__(self) -> None:
        self.statuses: Counter[int] = Counter()
        self.writes: dict[str, tuple[str, list[dict[str, Any]]]] = {}  # key -> game, events
        self.retries = 0
        self.lock = threading.Lock()

    def record(self, game: str, key: str, reply: httpx.Response) -> None:
        with self.lock:
            self.statuses[reply.status_code] += 1
            if reply.is_success:
                events = reply.json()["events"]
                earlier = self.writes.setdefault(key, (game, events))
                assert earlier == (game, events), "a retry returned other events"


def race(url: str, games: dict[str, str], seed: int, tally: Tally) -> None:
    """One client: read a game, then move or undo as its referee at the version read. An undo
    that lost the race (409) is tried again at the version read anew, a few times."""
    chooser = random.Random(seed)
    with httpx.Client(base_url=url, timeout=30) as client:
        for _ in range(ROUNDS):
            game = chooser.choice(sorted(games))
            referee = {"Authorization": f"Bearer {games[game]}"}
            undo = chooser.random() < UNDO_SHARE
            for _ in range(UNDO_TRIES if undo else 1):
                path, body = choose(client, game, referee, chooser, undo)
                if send(client, game, (path, body), referee, chooser, tally) != 409:
                    break


def send(
    client: httpx.Client,
    game: str,
    write: tuple[str, dict[str, Any]],
    referee: dict[str, str],
    chooser: random.Random,
    tally: Tally,
) -> int:
    """Post one write with a fresh key, now and then twice; the first reply's status."""
    path, body = write
    headers = {**referee, "Idempotency-Key": uuid.uuid4().hex}
    first = client.post(path, json=body, headers=headers)
    tally.record(game, headers["Idempotency-Key"], first)
    if chooser.random() < RETRY_SHARE:
        again = client.post(path, json=body, headers=headers)
        assert again.is_success or not first.is_success, again.text
        with tally.lock:
            tally.retries += 1
        tally.record(game, headers["Idempotency-Key"], again)
    return first.status_code


def choose(
    client: httpx.Client, game: str, referee: dict[str, str], chooser: random.Random, undo: bool
) -> tuple[str, dict[str, Any]]:
    """A move of the pending seat, or an undo, based on the version just read."""
    moves = client.get(f"/games/{game}/legal-moves", headers=referee).json()
    if undo or not moves["moves"]:
        return f"/games/{game}/undo", {"reason": "race", "expected_version": moves["version"]}
    move = chooser.choice(moves["moves"])
    body = {"move": move["id"], "seat": move["seat"], "expected_version": moves["version"]}
    return f"/games/{game}/moves", body


@pytest.mark.slow
def test_racing_moves_and_undos_store_each_acknowledged_write_once(tmp_path: Path) -> None:
    settings = Settings(database=str(tmp_path / "race.db"), log_level="warning")
    tally = Tally()
    with serving(create_app(settings)) as url, httpx.Client(base_url=url, timeout=30) as client:
        table = {"ruleset": "sorry", "seats": [{}, {}], "auto_chance": True, "allow_undo": True}
        created = [client.post("/games", json=table).json() for _ in range(GAMES)]
        games = {c["id"]: c["tokens"]["referee"] for c in created}
        with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
            list(pool.map(lambda seed: race(url, games, seed, tally), range(CLIENTS)))
        logs = {c["id"]: check_log(client, c["id"], c["tokens"]["referee"]) for c in created}
        start = {c["id"]: c["version"] for c in created}
    undos = sum(e["type"] == "MoveUndone" for log in logs.values() for e in log)
    sent = sum(tally.statuses.values())
    other = sum(n for s, n in tally.statuses.items() if s >= 400 and s != 409)
    ok = sum(n for s, n in tally.statuses.items() if s < 300)
    print(
        f"\nracing: {sent} requests ({tally.retries} retries) from {CLIENTS} clients on {GAMES}"
        f" games: {ok} 2xx, {tally.statuses[409]} 409, {other} other 4xx;"
        f" {len(tally.writes)} writes stored ({undos} undos)"
    )
    assert max(tally.statuses) < 500
    assert len(tally.writes) > GAMES and undos > 0 and tally.statuses[409] > 0
    check_each_write_stored_once(tally, logs, start)


def check_each_write_stored_once(
    tally: Tally, logs: dict[str, list[dict[str, Any]]], start: dict[str, int]
) -> None:
    """Each acknowledged write's events are in its game's log as replied, no two writes claim
    the same version, and together with creation they are the whole log."""
    claimed: dict[str, set[int]] = {game: set(range(1, v + 1)) for game, v in start.items()}
    for game, events in tally.writes.values():
        for event in events:
            assert event["version"] not in claimed[game], "two writes claim one version"
            claimed[game].add(event["version"])
            assert logs[game][event["version"] - 1] == event
    for game, log in logs.items():
        assert claimed[game] == set(range(1, len(log) + 1)), "the log has unacknowledged events"

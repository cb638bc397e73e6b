"""The reckoning of a ``bench/cluster.py`` run: every game the clients played read back
through the load balancer (its whole log, its state, its audit) and held against what the
clients were told (``bench.cluster_clients.Book``).

- lost: a version a client was acknowledged that the log does not hold;
- forked: a version at which the clients saw two events, or one the log does not hold;
- duplicated: moves in a game's log beyond the keys its client sent (one key's move
  appended twice);
- times out of order: a log in which an event is stamped more than half a second before the
  one before it;
- chains broken: a log whose versions are not 1, 2, 3, ... or whose ``prev_hash`` is not the
  previous event's ``hash``;
- clocks broken: a game whose seats' clocks used more time than the game has lasted (plus a
  second), or that ran a seat out (``TimeExpired``; each seat has an hour).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from typing import Any

import httpx

from bench.cluster_clients import PROXY_FAULTS, Book, GameBook

CLOCK_TOTAL = 3600.0
CLOCK_SLACK = 1.0
TRIES = 10
ORDER_SLACK = 0.5


@dataclass
class Reckoning:
    """A run's counts."""

    games: int = 0
    acknowledged: int = 0
    lost: int = 0
    duplicated: int = 0
    forked: int = 0
    chains_broken: int = 0
    times_out_of_order: int = 0
    clocks_broken: int = 0
    clock_excess: float = 0.0
    timed_out: int = 0
    audits_failed: int = 0


def reckon(url: str, book: Book) -> Reckoning:
    """Read back every game in ``book`` and count (see the module's text)."""
    found = Reckoning()
    with httpx.Client(base_url=url, timeout=30) as client:
        for game_id, game in book.games.items():
            check_game(client, game_id, game, found)
    return found


def check_game(client: httpx.Client, game_id: str, game: GameBook, found: Reckoning) -> None:
    referee = {"Authorization": f"Bearer {game.referee}"}
    log = log_of(client, game_id, referee)
    hashes = {event["version"]: event["hash"] for event in log}
    found.games += 1
    found.acknowledged += len(game.keys)
    found.lost += sum(version not in hashes for version in game.acknowledged)
    found.forked += sum(
        len(seen) > 1 or (version in hashes and hashes[version] not in seen)
        for version, seen in game.seen.items()
    )
    moves = sum(e["type"] == "MovePlayed" and not e["data"].get("auto") for e in log)
    found.duplicated += max(0, moves - len(game.sent))
    found.chains_broken += not chained(log)
    found.times_out_of_order += not in_time_order(log)
    found.timed_out += any(event["type"] == "TimeExpired" for event in log)
    state = get(client, f"/games/{game_id}").json()
    used = sum(CLOCK_TOTAL - left for left in (state.get("clock") or {}).get("remaining", []))
    excess = used - (time.monotonic() - game.created)
    found.clock_excess = max(found.clock_excess, excess)
    found.clocks_broken += excess > CLOCK_SLACK
    audit = get(client, f"/games/{game_id}/audit", headers=referee).json()
    found.audits_failed += not audit["verification"]["valid"]


def get(client: httpx.Client, path: str, **kwargs: Any) -> httpx.Response:
    """A read, tried again (up to ``TRIES`` times) when the connection drops or the proxy
    answers for a host (a kept-alive connection closed as it was reused)."""
    for _ in range(TRIES - 1):
        try:
            reply = client.get(path, **kwargs)
            if reply.status_code not in PROXY_FAULTS:
                return reply
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    return client.get(path, **kwargs)


def in_time_order(log: list[dict[str, Any]]) -> bool:
    """Whether each event is stamped no earlier than ``ORDER_SLACK`` seconds before the one
    before it (the hosts' clocks agree within a round trip to the database)."""
    times = [datetime.fromisoformat(event["at"]) for event in log]
    return all(
        (later - earlier).total_seconds() > -ORDER_SLACK for earlier, later in pairwise(times)
    )


def chained(log: list[dict[str, Any]]) -> bool:
    """Whether the log's versions run 1, 2, 3, ... each event sealed on the one before."""
    previous = "0" * 64
    for number, event in enumerate(log, start=1):
        if event["version"] != number or event["prev_hash"] != previous:
            return False
        previous = event["hash"]
    return True


def log_of(client: httpx.Client, game_id: str, auth: dict[str, str]) -> list[dict[str, Any]]:
    """A game's whole log."""
    events: list[dict[str, Any]] = []
    while True:
        reply = get(client, f"/games/{game_id}/events", params={"after": len(events)}, headers=auth)
        assert reply.status_code == 200, f"the log of {game_id}: {reply.status_code}"
        page = reply.json()["events"]
        if not page:
            return events
        events += page

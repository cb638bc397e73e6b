"""Clients playing through a fault, and the reckoning afterwards: what was acknowledged, what
the log holds, what the clients were told.

Each ``Player`` plays its own games (race35, two seats, server chance played automatically)
as the referee, one move at a time, each with an Idempotency-Key and the version it read. A
write answered 503 or cut off is sent again with the same key until it is acknowledged (so a
write that went through before its reply was lost replays, never plays twice); any other
refusal fails the run. ``reckon`` reads every game's log and audit back.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import msgspec

from tests.waiting import wait_until

RETRY_SECONDS = 0.05
"""How long a player waits before sending a write again (less than any Retry-After: the
tests measure how soon writes are taken again)."""


class Reckoning(msgspec.Struct):
    """One run's figures."""

    acknowledged: int = 0
    found: int = 0
    lost: int = 0
    duplicated: int = 0
    audits_failed: int = 0
    errors: dict[str, int] = {}
    """Client errors by ``<status> <problem type>`` (``transport`` for no reply)."""


class Player:
    """A client playing its own games until stopped (see the module's text)."""

    def __init__(self, url: str, seed: int, stop: threading.Event, timeout: float = 30) -> None:
        self.client = httpx.Client(base_url=url, timeout=timeout)
        self.random, self.stop = random.Random(seed), stop
        self.acknowledged: dict[str, dict[int, str]] = {}
        self.referees: dict[str, str] = {}
        self.errors: Counter[str] = Counter()
        self.acked_at: list[float] = []  # monotonic times of the acknowledgements
        self.failure: str | None = None  # a reply no fault explains
        self.game: str | None = None
        self.next: tuple[str, dict[str, Any], dict[str, str]] | None = None

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.step()
        except Exception as error:  # a test thread: report, do not vanish
            self.failure = f"{type(error).__name__}: {error}"

    def step(self) -> None:
        if self.game is None:
            self.send("/games", {"ruleset": "race35", "seats": [{}, {}], "auto_chance": True}, {})
            return
        referee = {"Authorization": f"Bearer {self.referees[self.game]}"}
        reply = self.request("GET", f"/games/{self.game}/legal-moves", headers=referee)
        if reply is None or reply.status_code != 200:
            return
        moves = reply.json()
        if not moves["moves"]:
            self.game = None  # finished: a new game next
            return
        move = self.random.choice(moves["moves"])
        body = {"move": move["id"], "seat": move["seat"], "expected_version": moves["version"]}
        self.send(
            f"/games/{self.game}/moves", body, {**referee, "Idempotency-Key": uuid.uuid4().hex}
        )

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response | None:
        """One request; its reply, or None (counted) when none came or it was a 503."""
        try:
            reply = self.client.request(method, path, **kwargs)
        except httpx.TransportError:
            self.errors["transport"] += 1
            time.sleep(RETRY_SECONDS)
            return None
        if reply.status_code >= 400:
            kind = reply.json().get("type", "").rsplit("/", 1)[-1]
            self.errors[f"{reply.status_code} {kind}"] += 1
            if reply.status_code != 503:
                raise AssertionError(f"{method} {path}: {reply.status_code} {reply.text}")
            assert reply.headers.get("Retry-After"), "a 503 without Retry-After"
            time.sleep(RETRY_SECONDS)
            return None
        return reply

    def send(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        """Post until acknowledged (the same key each time), unless stopped before any try
        got through: a creation sent again makes a new game, so it is sent until answered."""
        while True:
            reply = self.request("POST", path, json=body, headers=headers)
            if reply is not None:
                break
            if self.stop.is_set() and "Idempotency-Key" not in headers:
                return
        self.acked_at.append(time.monotonic())
        if path == "/games":
            created = reply.json()
            self.game = created["id"]
            self.referees[self.game] = created["tokens"]["referee"]
            # the creation stores the game and the chance it plays at once: its versions
            self.acknowledged[self.game] = dict.fromkeys(range(1, created["version"] + 1), "")
            return
        assert self.game is not None
        for event in reply.json()["events"]:
            self.acknowledged[self.game][event["version"]] = event["type"]


@contextmanager
def playing(url: str, count: int, timeout: float = 30) -> Iterator[list[Player]]:
    """``count`` players playing on ``url``, each on a thread of its own, every one with three
    writes acknowledged (within ``timeout`` seconds) before the block runs; stopped and joined
    when it ends."""
    stop = threading.Event()
    players = [Player(url, seed, stop) for seed in range(count)]
    threads = [threading.Thread(target=p.run, daemon=True) for p in players]
    for thread in threads:
        thread.start()
    try:
        wait_until(lambda: all(len(p.acked_at) >= 3 for p in players), timeout=timeout)
        yield players
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)


def reckon(url: str, players: list[Player]) -> Reckoning:
    """Read back every game the players made: acknowledged events found, lost (acknowledged,
    not in the log), duplicated (in the log, never acknowledged: a write applied twice),
    audits that do not verify; and the clients' errors."""
    figures = Reckoning(errors={})
    with httpx.Client(base_url=url, timeout=30) as client:
        for player in players:
            for game, acknowledged in player.acknowledged.items():
                logged = log_of(client, game)
                figures.acknowledged += len(acknowledged)
                figures.found += len(acknowledged.keys() & logged.keys())
                figures.lost += sum(
                    v not in logged or logged[v] != (t or logged[v])
                    for v, t in acknowledged.items()
                )
                figures.duplicated += len(logged.keys() - acknowledged.keys())
                referee = {"Authorization": f"Bearer {player.referees[game]}"}
                audit = client.get(f"/games/{game}/audit", headers=referee).json()
                figures.audits_failed += not audit["verification"]["valid"]
            for kind, count in player.errors.items():
                figures.errors[kind] = figures.errors.get(kind, 0) + count
    return figures


def log_of(client: httpx.Client, game: str) -> dict[int, str]:
    """A game's whole log, version to event type."""
    logged: dict[int, str] = {}
    while True:
        reply = client.get(f"/games/{game}/events", params={"after": len(logged)})
        assert reply.status_code == 200, f"the log of {game}: {reply.status_code} {reply.text}"
        page = reply.json()
        if not page["events"]:
            return logged
        logged.update({e["version"]: e["type"] for e in page["events"]})


class Probe:
    """``GET /health`` every ``every`` seconds on its own connection; the longest answer."""

    def __init__(self, url: str, every: float = 0.02) -> None:
        self.url, self.every = url, every
        self.longest = 0.0
        self.longest_at = 0.0  # monotonic time the longest answer came
        self.failed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Probe:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=60) as client:
            while not self._stop.wait(self.every):
                began = time.perf_counter()
                try:
                    ok = client.get("/health").status_code == 200
                except httpx.TransportError:
                    ok = False
                took = time.perf_counter() - began
                if took > self.longest:
                    self.longest, self.longest_at = took, time.monotonic()
                self.failed += not ok

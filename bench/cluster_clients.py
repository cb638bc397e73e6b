"""The clients of ``bench/cluster.py``: players over HTTP and over game sockets, and watching
sockets, all through the load balancer, all on one event loop; and the book of what each
was told.

- ``HttpPlayer`` plays its own games (sorry, two seats, an hour's clock, chance drawn by the
  server) as their referee: ``GET /legal-moves``, then ``POST /moves`` with an
  ``Idempotency-Key`` and the version it read. No answer, or a 502, 503 or 504 (a host
  gone, or cut off from the database), and it sends the same move with the same key again
  after 50 ms, until answered.
- ``SocketPlayer`` plays its own games over the game socket as a frontend does
  (``docs/guides/live-socket.md``): ``hello`` with the last version it received, ``play``
  with an ``idempotency_key``; when the connection drops it connects again (through the load
  balancer, so to any host), says ``hello`` with ``after`` its last version, and sends the
  unanswered ``play`` again with the same key.
- ``Watcher`` holds a seat's socket open on an ``HttpPlayer``'s game and notes when each
  version reaches it (the pushes' latency is measured from the move's answer), reconnecting
  and resuming the same way.

Every socket checks that each version reaches it once, in order, across reconnections:
``repeated`` counts a version sent twice, ``skipped`` one never sent.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

RETRY_SECONDS = 0.05
ANSWER_SECONDS = 60.0  # a write unanswered this long (every try failing) is given up
PROXY_FAULTS = (502, 503, 504)
GAME = {"ruleset": "sorry", "seats": [{}, {}], "auto_chance": True, "clock": {"total": 3600}}


@dataclass
class GameBook:
    """What the clients were told about one game: each acknowledged version (with its hash
    where an event came with it), the hashes seen at each version by anyone, the moves'
    keys acknowledged, and when each version's answer came (HTTP players)."""

    referee: str
    seats: list[str]
    acknowledged: dict[int, str | None] = field(default_factory=dict)
    seen: dict[int, set[str]] = field(default_factory=dict)
    keys: set[str] = field(default_factory=set)
    sent: set[str] = field(default_factory=set)
    created: float = field(default_factory=time.monotonic)
    answered_at: dict[int, tuple[float, str]] = field(default_factory=dict)  # when, by whom

    def saw(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            self.seen.setdefault(event["version"], set()).add(event["hash"])

    def acknowledge(self, key: str, version: int, events: list[dict[str, Any]]) -> None:
        """A move acknowledged at ``version``, with the events its answer carried."""
        self.keys.add(key)
        self.saw(events)
        hashes = {event["version"]: event["hash"] for event in events}
        for number in [version, *hashes]:
            self.acknowledged[number] = hashes.get(number, self.acknowledged.get(number))


@dataclass
class Book:
    """Every game's book, and the clients' tallies."""

    games: dict[str, GameBook] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    acked_at: list[tuple[float, str]] = field(default_factory=list)  # (time, client)
    hosts: Counter[str] = field(default_factory=Counter)  # sockets opened, by host
    reconnections: int = 0
    repeated: int = 0
    skipped: int = 0
    latencies: list[float] = field(default_factory=list)  # push after answer, seconds
    across: list[float] = field(default_factory=list)  # those pushed by another host
    failures: list[str] = field(default_factory=list)


class Client:
    """What both kinds of players share: HTTP through the balancer, sent until answered."""

    def __init__(self, name: str, url: str, book: Book, stop: asyncio.Event, seed: int) -> None:
        self.name, self.url, self.book, self.stop = name, url, book, stop
        self.http = httpx.AsyncClient(base_url=url, timeout=30)
        self.random = random.Random(seed)
        self.game: str | None = None

    async def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Send until answered (the same request, the same key); any answer but a fault."""
        given_up = time.monotonic() + ANSWER_SECONDS
        while True:
            try:
                reply = await self.http.request(method, path, **kwargs)
                if reply.status_code not in PROXY_FAULTS:
                    return reply
                self.book.errors[f"{reply.status_code} {problem_type(reply)}"] += 1
            except httpx.TransportError as error:
                self.book.errors[f"transport {type(error).__name__}"] += 1
            if time.monotonic() > given_up:
                raise TimeoutError(f"{method} {path}: no answer in {ANSWER_SECONDS:g} s")
            await asyncio.sleep(RETRY_SECONDS)

    async def create(self) -> GameBook:
        asked = time.monotonic()  # the game's clock starts before its answer comes
        reply = await self.request("POST", "/games", json=GAME)
        assert reply.status_code == 201, f"create: {reply.status_code} {reply.text}"
        created = reply.json()
        self.game = created["id"]
        book = GameBook(created["tokens"]["referee"], created["tokens"]["seats"], created=asked)
        self.book.games[created["id"]] = book
        return book

    async def legal(self, book: GameBook) -> dict[str, Any]:
        referee = {"Authorization": f"Bearer {book.referee}"}
        reply = await self.request("GET", f"/games/{self.game}/legal-moves", headers=referee)
        assert reply.status_code == 200, f"legal moves: {reply.status_code} {reply.text}"
        found: dict[str, Any] = reply.json()
        return found

    async def run(self, after: float = 0.0) -> None:
        """Play games one after another from ``after`` seconds on until stopped."""
        try:
            await asyncio.sleep(after)
            while not self.stop.is_set():
                await self.play_one()
        except Exception as error:  # a client's task: report, do not vanish
            self.book.failures.append(f"{self.name}: {type(error).__name__}: {error}")
        finally:
            await self.http.aclose()

    async def play_one(self) -> None:
        raise NotImplementedError


def problem_type(reply: httpx.Response) -> str:
    if "json" not in reply.headers.get("content-type", ""):
        return "(from the proxy)"
    return str(reply.json().get("type", "")).rsplit("/", 1)[-1]


class HttpPlayer(Client):
    """Plays its games over HTTP; its games' seats are watched by ``watchers`` sockets each."""

    def __init__(self, *args: Any, watchers: int, pace: float) -> None:
        super().__init__(*args)
        self.watchers, self.pace = watchers, pace
        self.watching: list[asyncio.Task[None]] = []

    async def play_one(self) -> None:
        book = await self.create()
        for number in range(self.watchers):
            watcher = Watcher(self, book, book.seats[number % len(book.seats)])
            self.watching.append(asyncio.create_task(watcher.run()))
        while not self.stop.is_set():
            legal = await self.legal(book)
            if not legal["moves"]:
                return
            move = self.random.choice(legal["moves"])
            key = uuid.uuid4().hex
            body = {"move": move["id"], "seat": move["seat"], "expected_version": legal["version"]}
            headers = {"Authorization": f"Bearer {book.referee}", "Idempotency-Key": key}
            book.sent.add(key)
            reply = await self.request(
                "POST", f"/games/{self.game}/moves", json=body, headers=headers
            )
            if reply.status_code != 200:
                raise AssertionError(f"move: {reply.status_code} {reply.text}")
            now = time.monotonic()
            played = reply.json()
            book.acknowledge(key, played["version"], played["events"])
            for event in played["events"]:
                book.answered_at[event["version"]] = (now, reply.headers.get("X-Served-By", "?"))
            self.book.acked_at.append((now, self.name))
            await asyncio.sleep(self.pace)


class Socket:
    """A game socket through the balancer that reconnects and resumes: every version once,
    in order."""

    def __init__(self, client: Client, book: GameBook, token: str) -> None:
        self.client, self.book, self.token = client, book, token
        self.last = 0
        self.finished = False
        self.host = "?"  # the host serving the socket
        self.path = f"/games/{client.game}/socket"

    async def open(self) -> Any:
        """Connect (through the balancer, any host) and say hello from the last version."""
        url = self.client.url.replace("http", "ws", 1) + self.path
        socket = await connect(url, open_timeout=10, max_size=None)
        handshake = socket.response  # the balancer's answer to the upgrade, set once open
        self.host = handshake.headers.get("X-Served-By", "?") if handshake else "?"
        self.client.book.hosts[self.host] += 1
        await socket.send(json.dumps({"type": "hello", "token": self.token, "after": self.last}))
        return socket

    def received(self, events: list[dict[str, Any]], now: float) -> list[int]:
        """Note events received; the versions new to this socket."""
        fresh = []
        for event in events:
            version = event["version"]
            if version <= self.last:
                self.client.book.repeated += 1
                continue
            self.client.book.skipped += version - self.last - 1
            self.last = version
            fresh.append(version)
            self.finished |= event["type"] == "GameFinished"
        self.book.saw(events)
        return fresh

    def dropped(self, error: BaseException) -> None:
        """A connection ended: a close the server chose (4xxx) fails the client."""
        code = getattr(getattr(error, "rcvd", None), "code", None)
        if code is not None and 4000 <= code < 5000:
            raise AssertionError(f"socket closed by the server: {code} {error}")
        self.client.book.reconnections += 1
        self.client.book.errors[f"socket {type(error).__name__}"] += 1


class Watcher(Socket):
    """A seat's socket on an HTTP player's game, until the game ends or the run stops."""

    async def run(self) -> None:
        try:
            while not (self.finished or self.client.stop.is_set()):
                try:
                    async with await self.open() as socket:
                        await self.follow(socket)
                except (ConnectionClosed, InvalidHandshake, OSError, TimeoutError) as error:
                    self.dropped(error)
                    await asyncio.sleep(RETRY_SECONDS)
        except Exception as error:
            self.client.book.failures.append(f"watcher: {type(error).__name__}: {error}")

    async def follow(self, socket: Any) -> None:
        while not (self.finished or self.client.stop.is_set()):
            try:
                raw = await asyncio.wait_for(socket.recv(), 0.5)
            except TimeoutError:
                continue
            message = json.loads(raw)
            if message["type"] != "events":
                continue
            now = time.monotonic()
            for version in self.received(message["events"], now):
                answered = self.book.answered_at.get(version)
                if answered is not None:
                    latency = max(0.0, now - answered[0])
                    self.client.book.latencies.append(latency)
                    if answered[1] != self.host:
                        self.client.book.across.append(latency)


class SocketPlayer(Client):
    """Plays its games over the game socket (see the module's text)."""

    def __init__(self, *args: Any, pace: float) -> None:
        super().__init__(*args)
        self.pace = pace

    async def play_one(self) -> None:
        book = await self.create()
        socket = Socket(self, book, book.referee)
        legal: dict[str, Any] | None = None
        pending: dict[str, Any] | None = None  # a play sent and not yet answered
        while pending is not None or not (self.stop.is_set() or socket.finished):
            try:
                async with await socket.open() as live:
                    while pending is not None or not (self.stop.is_set() or socket.finished):
                        if pending is None:
                            legal = legal or await self.legal(book)
                            if not legal["moves"]:
                                return
                            pending = self.play_message(legal)
                            book.sent.add(pending["idempotency_key"])
                        await live.send(json.dumps(pending))
                        legal = await self.answer(live, socket, book, pending)
                        pending = None
                        await asyncio.sleep(self.pace)
            except (ConnectionClosed, InvalidHandshake, OSError, TimeoutError) as error:
                socket.dropped(error)
                legal = None  # read again: the move may have gone through
                await asyncio.sleep(RETRY_SECONDS)

    def play_message(self, legal: dict[str, Any]) -> dict[str, Any]:
        move = self.random.choice(legal["moves"])
        return {
            "type": "play",
            "ref": uuid.uuid4().hex[:8],
            "move": move["id"],
            "seat": move["seat"],
            "expected_version": legal["version"],
            "idempotency_key": uuid.uuid4().hex,
        }

    async def answer(
        self, live: Any, socket: Socket, book: GameBook, play: dict[str, Any]
    ) -> dict[str, Any]:
        """Read until the play's answer; the legal moves it gives."""
        while True:
            message = json.loads(await asyncio.wait_for(live.recv(), 30))
            if message["type"] == "events":
                socket.received(message["events"], time.monotonic())
            elif message["type"] == "played" and message["ref"] == play["ref"]:
                socket.received(message["events"], time.monotonic())
                book.acknowledge(play["idempotency_key"], message["version"], message["events"])
                self.book.acked_at.append((time.monotonic(), self.name))
                legal: dict[str, Any] = message["legal_moves"]
                return legal
            elif message["type"] == "refused" and message["ref"] == play["ref"]:
                problem = message["problem"]
                if problem["status"] in PROXY_FAULTS:  # the store was away: the same again
                    self.book.errors[f"socket {problem['status']}"] += 1
                    await asyncio.sleep(RETRY_SECONDS)
                    await live.send(json.dumps(play))
                    continue
                raise AssertionError(f"play refused: {problem}")

"""Live play over a game's WebSocket: ``GameSocket`` (sync) and ``AsyncGameSocket``.

One connection carries a seat's (opened with its token or its player's key), the referee's or
a spectator's view of one game: every event the caller may see, pushed as it is appended, and
the caller's moves, each answered once it is stored. A dropped connection is opened again with
the last version seen, so nothing is missed and nothing comes twice (the server's log is the
buffer).

>>> with GameSocket("http://127.0.0.1:8000", game_id, token) as live:  # doctest: +SKIP
...     played = live.play("draw", expected_version=live.version)
...     for event in live.events():
...         print(event.type)
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import Any, Literal, Self

import msgspec
from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.asyncio.client import connect as connect_async
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tabula_client.errors import TabulaError, error_from_problem
from tabula_client.models import LegalMoves, StoredEvent
from tabula_client.routes import DEFAULT_URL

BACKOFF_SECONDS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
"""How long a reconnect waits before each try; after the last, it gives up."""


class Welcome(msgspec.Struct, tag="welcome", frozen=True):
    """Who the server says the caller is, and the game's version then."""

    role: Literal["seat", "referee", "spectator"]
    seat: int | None
    version: int


class Events(msgspec.Struct, tag="events", frozen=True):
    events: list[StoredEvent]


class SocketPlayed(msgspec.Struct, tag="played", frozen=True):
    """A write stored: the events the caller had not been sent up to it, its next moves."""

    ref: str
    version: int
    events: list[StoredEvent]
    legal_moves: LegalMoves


class Refused(msgspec.Struct, tag="refused", frozen=True):
    ref: str | None
    problem: dict[str, Any]


class Pong(msgspec.Struct, tag="pong", frozen=True):
    ref: str | None = None


class SeatPresence(msgspec.Struct, frozen=True):
    seat: int
    present: bool


class Presence(msgspec.Struct, tag="presence", frozen=True):
    """The table's present seats changed: every seat's presence, in seat order."""

    seats: list[SeatPresence]


Incoming = Welcome | Events | SocketPlayed | Refused | Pong | Presence
decoder = msgspec.json.Decoder(Incoming)


KEY_REVOKED = "key-revoked"
"""The reason of a 4401 close after the player's key the socket was opened with was replaced
(``rotate_key``, an app's ``mint_player_key``) or her handle retired."""


class SocketClosed(Exception):
    """The server closed the socket with ``code`` (4401: not a token of this game, a key
    refused, or with the reason ``key-revoked`` a player's key replaced since; 4404: no such
    game, 4409: too slow a reader, 4429: too many sockets, or messages; see the manual). A
    close the server chose (4400-4499) is not retried."""

    def __init__(self, code: int | None, reason: str) -> None:
        super().__init__(f"socket closed: {code} {reason}".strip())
        self.code, self.reason = code, reason

    @property
    def key_revoked(self) -> bool:
        """Whether the player's key the socket was opened with stopped working: open it
        again with her new key."""
        return self.code == 4401 and self.reason == KEY_REVOKED


class Session:
    """What both sockets share: the caller, the version seen, the events not yet taken and
    the messages written (no I/O)."""

    def __init__(self, base_url: str, game_id: str, token: str | None, after: int) -> None:
        scheme, _, rest = base_url.rstrip("/").partition("://")
        self.url = f"{'wss' if scheme == 'https' else 'ws'}://{rest}/games/{game_id}/socket"
        self.token, self.version = token, after
        self.welcome: Welcome | None = None
        self.presence: Presence | None = None
        """The latest ``presence`` the server pushed (None before the first)."""
        self.pending: deque[StoredEvent] = deque()
        self.refs = 0

    def hello(self) -> bytes:
        """The hello, asking for ``presence`` (kept in ``presence``)."""
        hello = {"type": "hello", "token": self.token, "after": self.version, "presence": True}
        return msgspec.json.encode(hello)

    def write(self, kind: str, body: dict[str, Any]) -> tuple[str, bytes]:
        """A write's message and its ref (members left out when None)."""
        self.refs += 1
        ref = str(self.refs)
        message = {"type": kind, "ref": ref, **{k: v for k, v in body.items() if v is not None}}
        return ref, msgspec.json.encode(message)

    def take(self, frame: str | bytes, ref: str | None = None) -> SocketPlayed | Pong | None:
        """Take in one message: events are kept; the answer to ``ref`` is returned (raised
        when refused); anything else is None."""
        message = decoder.decode(frame)
        if isinstance(message, Welcome):
            self.welcome = message
        elif isinstance(message, Presence):
            self.presence = message
        elif isinstance(message, Events):
            self.keep(message.events)
        elif isinstance(message, Refused):
            if message.ref == ref:
                raise error_from_problem(message.problem)
        elif message.ref == ref:
            if isinstance(message, SocketPlayed):
                self.keep(message.events)
            return message
        return None

    def keep(self, events: list[StoredEvent]) -> None:
        for event in events:
            if event.version > self.version:
                self.pending.append(event)
                self.version = event.version

    def taken(self) -> list[StoredEvent]:
        events = list(self.pending)
        self.pending.clear()
        return events


def closed(error: ConnectionClosed) -> SocketClosed:
    frame = error.rcvd
    return SocketClosed(frame.code if frame else None, frame.reason if frame else "")


class Socket:
    """What both sockets hold: the session and whether to reconnect after a drop."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        game_id: str = "",
        token: str | None = None,
        *,
        after: int = 0,
        reconnect: bool = True,
    ) -> None:
        self.session = Session(base_url, game_id, token, after)
        self.reconnect = reconnect

    @property
    def version(self) -> int:
        """The version of the last event received."""
        return self.session.version

    @property
    def welcome(self) -> Welcome:
        assert self.session.welcome is not None, "not connected"
        return self.session.welcome


class GameSocket(Socket):
    """A game's WebSocket, blocking (see the module docstring)."""

    connection: ClientConnection | None = None

    def open(self) -> Self:
        """Connect and say hello (again after a drop: from the last version seen)."""
        self.connection = connect(self.session.url, open_timeout=10, compression=None).__enter__()
        self.connection.send(self.session.hello())
        self.answer(None)
        return self

    def __enter__(self) -> Self:
        return self.open()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()

    def play(
        self,
        move: str,
        *,
        expected_version: int | None = None,
        seat: int | None = None,
        idempotency_key: str | None = None,
    ) -> SocketPlayed:
        """Play a move for the caller's seat; raises the ``TabulaError`` the HTTP route would."""
        body = {"move": move, "expected_version": expected_version, "seat": seat}
        return self.send("play", {**body, "idempotency_key": idempotency_key})

    def undo(self, reason: str = "", *, idempotency_key: str | None = None) -> SocketPlayed:
        """Revert the latest decision (the referee, or a seat where the game allows)."""
        return self.send("undo", {"reason": reason, "idempotency_key": idempotency_key})

    def chance(self, *, card: str | None = None, dice: list[int] | None = None) -> SocketPlayed:
        """Record the card drawn or the dice thrown at the table (external chance, referee)."""
        return self.send("chance", {"card": card, "dice": dice})

    def send(self, kind: str, body: dict[str, Any]) -> SocketPlayed:
        ref, frame = self.session.write(kind, body)
        assert self.connection is not None, "not connected"
        self.connection.send(frame)
        answer = self.answer(ref)
        assert isinstance(answer, SocketPlayed)
        return answer

    def answer(self, ref: str | None) -> SocketPlayed | Pong | None:
        """Read until the answer to ``ref`` (until the welcome for None)."""
        assert self.connection is not None
        while True:
            try:
                frame = self.connection.recv()
            except ConnectionClosed as error:
                raise closed(error) from None
            answer = self.session.take(frame, ref)
            if answer is not None or (ref is None and self.session.welcome is not None):
                return answer

    def events(self, timeout: float | None = None) -> Iterator[StoredEvent]:
        """Every event as it comes (a dropped connection opened again, with backoff), until
        ``timeout`` seconds pass with none."""
        while True:
            yield from self.session.taken()
            try:
                assert self.connection is not None
                frame = self.connection.recv(timeout=timeout)
            except TimeoutError:
                return
            except ConnectionClosed as error:
                if not self.reconnect or (error.rcvd is not None and error.rcvd.code >= 4000):
                    raise closed(error) from None
                self.resume()
                continue
            self.session.take(frame)

    def resume(self) -> None:
        """Open the connection again from the last version seen, waiting longer each try."""
        for wait in BACKOFF_SECONDS:
            time.sleep(wait)
            try:
                self.open()
                return
            except (OSError, ConnectionClosed, SocketClosed, TabulaError):
                continue
        raise SocketClosed(None, "could not reconnect")


class AsyncGameSocket(Socket):
    """A game's WebSocket for asyncio (the same calls as ``GameSocket``, awaited)."""

    connection: AsyncConnection | None = None

    async def open(self) -> Self:
        self.connection = await connect_async(self.session.url, open_timeout=10, compression=None)
        await self.connection.send(self.session.hello())
        await self.answer(None)
        return self

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        if self.connection is not None:
            await self.connection.close()

    async def play(
        self,
        move: str,
        *,
        expected_version: int | None = None,
        seat: int | None = None,
        idempotency_key: str | None = None,
    ) -> SocketPlayed:
        body = {"move": move, "expected_version": expected_version, "seat": seat}
        return await self.send("play", {**body, "idempotency_key": idempotency_key})

    async def undo(self, reason: str = "", *, idempotency_key: str | None = None) -> SocketPlayed:
        return await self.send("undo", {"reason": reason, "idempotency_key": idempotency_key})

    async def chance(
        self, *, card: str | None = None, dice: list[int] | None = None
    ) -> SocketPlayed:
        return await self.send("chance", {"card": card, "dice": dice})

    async def send(self, kind: str, body: dict[str, Any]) -> SocketPlayed:
        ref, frame = self.session.write(kind, body)
        assert self.connection is not None, "not connected"
        await self.connection.send(frame)
        answer = await self.answer(ref)
        assert isinstance(answer, SocketPlayed)
        return answer

    async def answer(self, ref: str | None) -> SocketPlayed | Pong | None:
        assert self.connection is not None
        while True:
            try:
                frame = await self.connection.recv()
            except ConnectionClosed as error:
                raise closed(error) from None
            answer = self.session.take(frame, ref)
            if answer is not None or (ref is None and self.session.welcome is not None):
                return answer

    async def events(self, timeout: float | None = None) -> AsyncIterator[StoredEvent]:
        while True:
            for event in self.session.taken():
                yield event
            try:
                assert self.connection is not None
                frame = await asyncio.wait_for(self.connection.recv(), timeout)
            except TimeoutError:
                return
            except ConnectionClosed as error:
                if not self.reconnect or (error.rcvd is not None and error.rcvd.code >= 4000):
                    raise closed(error) from None
                await self.resume()
                continue
            self.session.take(frame)

    async def resume(self) -> None:
        for wait in BACKOFF_SECONDS:
            await asyncio.sleep(wait)
            try:
                await self.open()
                return
            except (OSError, ConnectionClosed, SocketClosed, TabulaError):
                continue
        raise SocketClosed(None, "could not reconnect")

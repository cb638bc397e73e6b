"""A registered player's feed: ``PlayerFeed`` (sync) and ``AsyncPlayerFeed`` over ``GET
/me/socket``.

The feed pushes what concerns the player across every game that names her, as notes:
``invitation``, ``rematch``, ``seek-matched``, ``game-started``, ``your-turn`` (with what her
seat must do: ``pending``) and ``game-finished`` (``winners``, or ``closed`` for a table that
never started). Opened with no ``after``, it first sends the notes that stand now (open
invitations, the start of each running game, her turn where it is hers); opened after a note's
id, every note since. A dropped connection is opened again after the greatest id received, so
each note comes once (the server makes the feed again from the games' logs). While the feed is
open, her waiting seeks stay alive.

>>> with PlayerFeed("http://127.0.0.1:8000", key) as feed:  # doctest: +SKIP
...     for note in feed.notes():
...         if note.kind == "your-turn":
...             print(note.game_id, note.seat, note.pending)
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import Literal, Self

import msgspec
from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.asyncio.client import connect as connect_async
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tabula_client.errors import TabulaError, error_from_problem
from tabula_client.routes import DEFAULT_URL
from tabula_client.socket import BACKOFF_SECONDS, Pong, Refused, SocketClosed, closed

NoteKind = Literal[
    "invitation", "seek-matched", "game-started", "your-turn", "game-finished", "rematch"
]


class Note(msgspec.Struct, frozen=True):
    """Something that concerns the player in one game, from one event of its log: ``id``
    (``<at>/<game id>/<version>/<rank>``; ids compare as text in the order the events were
    stamped), the kind, the game, the event's version and time, the rule set, her seat; per
    kind ``pending`` (``your-turn``: what her seat must do), ``winners`` (seats) or ``closed``
    (``game-finished``), ``rematch_of`` (``rematch``) and ``seek`` (``seek-matched``)."""

    id: str
    kind: NoteKind
    game_id: str
    version: int
    at: str
    ruleset: str
    seat: int
    pending: list[str] = []
    winners: list[int] = []
    closed: str = ""
    rematch_of: str | None = None
    seek: str | None = None


class FeedWelcome(msgspec.Struct, tag="welcome", frozen=True):
    """Whose feed this is."""

    handle: str


class NoteMessage(msgspec.Struct, tag="note", frozen=True):
    note: Note


decoder = msgspec.json.Decoder(FeedWelcome | NoteMessage | Pong | Refused)


class FeedSession:
    """What both feeds share: the player's key, the greatest note id received (where a
    reconnect resumes), the notes not yet taken (no I/O)."""

    def __init__(self, base_url: str, key: str, after: str | None) -> None:
        scheme, _, rest = base_url.rstrip("/").partition("://")
        self.url = f"{'wss' if scheme == 'https' else 'ws'}://{rest}/me/socket"
        self.key, self.last = key, after
        self.welcome: FeedWelcome | None = None
        self.pending: deque[Note] = deque()

    def hello(self) -> bytes:
        """The hello: her key, and the greatest note id received so far."""
        return msgspec.json.encode({"type": "hello", "token": self.key, "after": self.last})

    def take(self, frame: str | bytes) -> None:
        """Take in one message: a note is kept; a refusal raises its error."""
        message = decoder.decode(frame)
        if isinstance(message, FeedWelcome):
            self.welcome = message
        elif isinstance(message, NoteMessage):
            self.pending.append(message.note)
            if self.last is None or message.note.id > self.last:
                self.last = message.note.id
        elif isinstance(message, Refused):
            raise error_from_problem(message.problem)

    def taken(self) -> list[Note]:
        notes = list(self.pending)
        self.pending.clear()
        return notes


def retried(error: ConnectionClosed) -> bool:
    """Whether a dropped connection is opened again: not when the server chose to close it
    (4000 and over: a bad hello, a key refused or replaced, too many sockets)."""
    return error.rcvd is None or error.rcvd.code < 4000


class Feed:
    """What both feeds hold: the session and whether to reconnect after a drop."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        key: str = "",
        *,
        after: str | None = None,
        reconnect: bool = True,
    ) -> None:
        self.session = FeedSession(base_url, key, after)
        self.reconnect = reconnect

    @property
    def last(self) -> str | None:
        """The greatest note id received (None before the first): open a feed after it to
        resume."""
        return self.session.last

    @property
    def handle(self) -> str:
        """The player's handle, as the welcome says."""
        assert self.session.welcome is not None, "not connected"
        return self.session.welcome.handle


class PlayerFeed(Feed):
    """A player's feed, blocking (see the module docstring)."""

    connection: ClientConnection | None = None

    def open(self) -> Self:
        """Connect and say hello (again after a drop: after the greatest id received)."""
        self.session.welcome = None
        self.connection = connect(self.session.url, open_timeout=10, compression=None).__enter__()
        self.connection.send(self.session.hello())
        while self.session.welcome is None:
            try:
                self.session.take(self.connection.recv())
            except ConnectionClosed as error:
                raise closed(error) from None
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

    def notes(self, timeout: float | None = None) -> Iterator[Note]:
        """Every note as it comes, each once (a dropped connection opened again after the
        greatest id received, with backoff), until ``timeout`` seconds pass with none."""
        while True:
            yield from self.session.taken()
            try:
                assert self.connection is not None, "not connected"
                frame = self.connection.recv(timeout=timeout)
            except TimeoutError:
                return
            except ConnectionClosed as error:
                if not self.reconnect or not retried(error):
                    raise closed(error) from None
                self.resume()
                continue
            self.session.take(frame)

    def resume(self) -> None:
        """Open the connection again after the greatest id received, waiting longer each
        try."""
        for wait in BACKOFF_SECONDS:
            time.sleep(wait)
            try:
                self.open()
                return
            except (OSError, ConnectionClosed, TabulaError):
                continue
            except SocketClosed as error:
                if error.code is not None and error.code >= 4000:
                    raise
        raise SocketClosed(None, "could not reconnect")


class AsyncPlayerFeed(Feed):
    """A player's feed for asyncio (the same calls as ``PlayerFeed``, awaited)."""

    connection: AsyncConnection | None = None

    async def open(self) -> Self:
        self.session.welcome = None
        self.connection = await connect_async(self.session.url, open_timeout=10, compression=None)
        await self.connection.send(self.session.hello())
        while self.session.welcome is None:
            try:
                self.session.take(await self.connection.recv())
            except ConnectionClosed as error:
                raise closed(error) from None
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

    async def notes(self, timeout: float | None = None) -> AsyncIterator[Note]:
        while True:
            for note in self.session.taken():
                yield note
            try:
                assert self.connection is not None, "not connected"
                frame = await asyncio.wait_for(self.connection.recv(), timeout)
            except TimeoutError:
                return
            except ConnectionClosed as error:
                if not self.reconnect or not retried(error):
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
            except (OSError, ConnectionClosed, TabulaError):
                continue
            except SocketClosed as error:
                if error.code is not None and error.code >= 4000:
                    raise
        raise SocketClosed(None, "could not reconnect")

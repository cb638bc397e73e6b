"""Live events as Server-Sent Events: each event once, redacted per viewer, resumable."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from typing import NamedTuple

import anyio
import msgspec

from domain.model import Viewer
from eventstore import Announcing, EventStore
from service.usecases.queries import Queries

POLL_SECONDS = 0.1
"""How often the log is read for news when the store cannot announce appends (SQLite)."""

ANNOUNCED_POLL_SECONDS = 2.0
"""How often it is read anyway when the store announces appends (PostgreSQL NOTIFY)."""

KEEPALIVE_SECONDS = 15.0
PAGE = 200


class News:
    """Set from any thread when the stream may have new events; awaited with a timeout."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()

    def wake(self) -> None:
        """Mark news (thread-safe); a no-op once the loop has closed."""
        with suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._event.set)

    def clear(self) -> None:
        """Forget earlier news (call before reading the log, so nothing is missed)."""
        self._event.clear()

    async def wait(self) -> None:
        """Return on news, or after the polling interval."""
        with anyio.move_on_after(self.seconds):
            await self._event.wait()


@contextmanager
def news_of(store: EventStore, game_id: str) -> Iterator[News]:
    """News of a game's appends: announced by the store (any process) or polled for."""
    if not isinstance(store, Announcing):
        yield News(POLL_SECONDS)
        return
    news = News(ANNOUNCED_POLL_SECONDS)
    unsubscribe = store.subscribe(game_id, news.wake)
    try:
        yield news
    finally:
        unsubscribe()


class Message(NamedTuple):
    """One message of a stream: an event (type, version, JSON) or, with no type, a keep-alive."""

    type: str | None
    version: int
    data: str


async def game_events(
    queries: Queries, game_id: str, viewer: Viewer, after: int
) -> AsyncIterator[Message]:
    """Events after version ``after`` as they are appended; ends once the game has finished.

    The log is read again on news from the store (PostgreSQL announces appends of every
    process) or by polling, so the stream also sees writes of other service processes.
    """
    cursor, quiet_since = after, time.monotonic()
    with news_of(queries.store, game_id) as news:
        while True:
            news.clear()
            shown, finished = await anyio.to_thread.run_sync(
                queries.page, game_id, viewer, cursor, PAGE
            )
            for event in shown:
                cursor = event.version
                yield Message(event.type, event.version, msgspec.json.encode(event).decode())
            if shown:
                quiet_since = time.monotonic()
                continue
            if finished:
                return
            if time.monotonic() - quiet_since > KEEPALIVE_SECONDS:
                quiet_since = time.monotonic()
                yield Message(None, cursor, "")
            await news.wait()

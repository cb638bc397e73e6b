"""Live events as Server-Sent Events: each event once, redacted per viewer, resumable.

An idle stream costs next to nothing: it sleeps until the store announces an append to its
game (``eventstore.Announcing``) and only then reads the log; while it sleeps it sends a
keep-alive comment every ``KEEPALIVE_SECONDS`` (no read) and reads the log once every
``ANNOUNCED_POLL_SECONDS`` anyway, a safety poll for a wake-up that never came. PostgreSQL
announces the appends of every process (LISTEN/NOTIFY, and a wake-up of every stream after
its listening connection is back). SQLite announces its own process's appends after each
committed batch, and another process's on the same file within about 25 ms (the writer
looks for them between batches and while idle). A store that cannot announce (none of
ours) is polled every ``POLL_SECONDS``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncGenerator, Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import datetime
from typing import NamedTuple

import anyio
import msgspec

from domain.model import Viewer
from eventstore import Announcing, EventStore
from service.usecases.games.queries import Queries

POLL_SECONDS = 0.1
"""How often the log is read for news when the store cannot announce appends (none of ours)."""

ANNOUNCED_POLL_SECONDS = 30.0
"""How often the log is read anyway when the store announces appends (the safety poll), on
average: each interval is drawn within +-25% of it, so streams opened together do not read
together."""

JITTER = 0.25
KEEPALIVE_SECONDS = 15.0
PAGE = 200


class News:
    """Set from any thread when the stream may have new events; awaited with a timeout. It
    remembers the newest version it was told of (``latest``), unless some wake-up could not
    say (``unknown``: PostgreSQL's listening connection back after a drop), so a reader that has
    already been sent that version need not read the log."""

    def __init__(self, seconds: float, holding: Callable[[], bool] = lambda: False) -> None:
        self.seconds = seconds
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()
        self.latest, self.considered, self.unknown = 0, 0, True
        self.holding, self.held = holding, False
        """``holding``: whether the reader is busy with the game's log (a write of its own in
        flight, a read): news then waits for its ``settle`` instead of waking it."""

    def wake(self, version: int | None = None) -> None:
        """Mark news (thread-safe) of the version the game reached, if known; a no-op once
        the loop has closed."""
        with suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._mark, version)

    def _mark(self, version: int | None) -> None:
        if version is None:
            self.unknown = True
        else:
            self.latest = max(self.latest, version)
        if self.holding():
            self.held = True
            return
        self._event.set()

    def settle(self, cursor: int) -> None:
        """Once the reader is done with the log up to ``cursor``: wake it for the news held
        back meanwhile if that may hold a version after ``cursor``."""
        if self.held:
            self.held = False
            if self.unknown or self.latest > max(cursor, self.considered):
                self._event.set()

    def clear(self) -> None:
        """Forget earlier news (call before reading the log, so nothing is missed)."""
        self._event.clear()
        self.unknown, self.considered = False, self.latest

    def beyond(self, cursor: int) -> bool:
        """Whether the news since the last ``clear`` may hold a version after ``cursor``: a
        wake-up that could not say, or one of a version after both ``cursor`` and what the
        last read after a ``clear`` took in. Otherwise the news is forgotten."""
        if self.unknown or self.latest > max(cursor, self.considered):
            return True
        self._event.clear()
        return False

    def next_read(self) -> float:
        """When to read the log if no news comes (``time.monotonic``), jittered."""
        return time.monotonic() + self.seconds * random.uniform(1 - JITTER, 1 + JITTER)

    async def wait(self, seconds: float) -> bool:
        """Wait for news at most ``seconds``; whether it came."""
        with anyio.move_on_after(max(seconds, 0.0)):
            await self._event.wait()
        return self._event.is_set()


@contextmanager
def news_of(
    store: EventStore, game_id: str, holding: Callable[[], bool] = lambda: False
) -> Iterator[News]:
    """News of a game's appends: announced by the store (with a slow safety poll), or polled."""
    if not isinstance(store, Announcing):
        yield News(POLL_SECONDS, holding)
        return
    news = News(ANNOUNCED_POLL_SECONDS, holding)
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


def seconds_until(moment: datetime, now: datetime) -> float:
    """Seconds from ``now`` to ``moment`` (0 once past)."""
    return max((moment - now).total_seconds(), 0.0)


async def game_events(
    queries: Queries, game_id: str, viewer: Viewer, after: int
) -> AsyncGenerator[Message, None]:
    """Events after version ``after`` as they are appended; ends once the game has finished.

    The log is read again on news from the store (see the module's docstring), so the
    stream also sees writes of other service processes (at once on PostgreSQL, within about
    25 ms on one SQLite file), and by the slow safety poll. A spectator of a game with a
    delay gets each event once it is theirs to see: on the append that releases it (a delay in
    moves) or when it comes due (a delay in seconds: the stream sleeps until then).
    """
    cursor, keep_alive = after, time.monotonic() + KEEPALIVE_SECONDS
    with news_of(queries.store, game_id) as news:
        while True:
            news.clear()
            page = await anyio.to_thread.run_sync(queries.page, game_id, viewer, cursor, PAGE)
            shown, finished = page.events, page.finished
            for event in shown:
                cursor = event.version
                yield Message(event.type, event.version, msgspec.json.encode(event).decode())
            if shown:
                keep_alive = time.monotonic() + KEEPALIVE_SECONDS
                continue
            if finished:
                return
            read_at = news.next_read()
            if page.due is not None:  # a delay in seconds: read again when the next comes due
                read_at = min(read_at, time.monotonic() + seconds_until(page.due, queries.now()))
            while True:
                woken = await news.wait(min(read_at, keep_alive) - time.monotonic())
                if woken and news.beyond(cursor):
                    break
                now = time.monotonic()
                if now >= keep_alive:
                    keep_alive = now + KEEPALIVE_SECONDS
                    yield Message(None, cursor, "")
                if now >= read_at:
                    break

"""A live connection's share of one game's log: what it has been sent, each event once, in order.

A socket (``service.api.socket``) pushes the log's new events to its caller and answers the
caller's own writes; both go through one ``Feed``, whose cursor moves under a lock, so an
event reaches the caller exactly once, in version order, whether it comes in a push or in the
reply to the write that caused it. The log is the buffer: a feed holds no events of its own,
and a caller that reconnects with the last version it saw gets exactly what it missed.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import anyio
import msgspec

from domain.model import Viewer
from eventstore import StoredEvent
from service.usecases.games.queries import Queries, StreamPage
from service.usecases.live.stream import PAGE, News, news_of
from service.usecases.replies import EventOut, Played

Key = tuple[str, Viewer, int]


class Batch:
    """A page of events as every socket reading it at the same moment sends it: read once,
    its events encoded once (``json``), the push made of them once (``frame``); a write's
    ``played`` reply is built around the same JSON."""

    __slots__ = ("_frame", "_json", "page")

    def __init__(self, page: StreamPage) -> None:
        self.page = page
        self._json: str | None = None
        self._frame: str | None = None

    def json(self) -> str:
        """The page's events as a JSON array, encoded once."""
        if self._json is None:
            self._json = ENCODER.encode(self.page.events).decode()
        return self._json

    def frame(self, make: Callable[[str], str]) -> str:
        """The push ``make`` builds around the events' JSON, made once."""
        if self._frame is None:
            self._frame = make(self.json())
        return self._frame


ENCODER = msgspec.json.Encoder()


class SharedReads:
    """Reads of the log made at the same moment for the same game, viewer and cursor, made
    once: the sockets watching a game wake together on its news and would each read the same
    page. A page the game holds in memory is made on the event loop and shared while the game
    stays at that version (``Queries.held_page``); one read of the log on a worker thread is
    shared while it runs. Nothing is kept longer, so no read is ever stale."""

    def __init__(self) -> None:
        self.running: dict[Key, asyncio.Future[Batch]] = {}

    async def page(self, queries: Queries, game_id: str, viewer: Viewer, cursor: int) -> Batch:
        key = (game_id, viewer, cursor)
        running = self.running.get(key)
        if running is None:
            if (held := queries.held_page(game_id, viewer, cursor, PAGE, Batch)) is not None:
                return held
            running = asyncio.ensure_future(self._read(queries, key))
            self.running[key] = running
            running.add_done_callback(lambda _: self.running.pop(key, None))
        return await asyncio.shield(running)

    @staticmethod
    async def _read(queries: Queries, key: Key) -> Batch:
        game_id, viewer, cursor = key
        page = await anyio.to_thread.run_sync(queries.page, game_id, viewer, cursor, PAGE)
        return Batch(page)


SHARED = SharedReads()

WATCHING: Counter[str] = Counter()
"""How many feeds of this process watch each game (``Feed.news``): a write offers its
events to the others only when there are others."""


class Held:
    """``Feed.hold``'s context (a class, not an async generator: every write holds its feed)."""

    __slots__ = ("feed",)

    def __init__(self, feed: Feed) -> None:
        self.feed = feed

    async def __aenter__(self) -> None:
        await self.feed.lock.acquire()

    async def __aexit__(self, *_: object) -> None:
        self.feed.let_go()


class Feed:
    """The events of ``game_id`` after ``cursor`` as ``viewer`` may see them."""

    def __init__(self, queries: Queries, game_id: str, viewer: Viewer, cursor: int) -> None:
        self.queries, self.game_id, self.viewer, self.cursor = queries, game_id, viewer, cursor
        self.lock = asyncio.Lock()
        """Held while a batch is read and sent, so two batches never overlap or repeat."""
        self._news: News | None = None

    @contextmanager
    def news(self) -> Iterator[News]:
        """Wake-ups on the game's appends (in this process or, on PostgreSQL, any). News that
        comes while the feed is held waits for the holder to let go (``hold``), and wakes the
        reader only if the holder has not sent it: a write's own append does not wake the
        push that its reply has made needless."""
        with news_of(self.queries.store, self.game_id, self.lock.locked) as news:
            self._news = news
            WATCHING[self.game_id] += 1
            try:
                yield news
            finally:
                self._news = None
                WATCHING[self.game_id] -= 1
                if not WATCHING[self.game_id]:
                    del WATCHING[self.game_id]

    def hold(self) -> Held:
        """``lock`` held for an ``async with``; on letting go, the news held back meanwhile is
        settled."""
        return Held(self)

    def let_go(self) -> None:
        """``hold`` ends: settle the news held back meanwhile, then release the lock."""
        try:
            if self._news is not None:
                self._news.settle(self.cursor)
        finally:
            self.lock.release()

    async def read(self) -> Batch:
        """The next page after the cursor: from the game held in memory when it holds it,
        else read from the log on a worker thread; shared with the other sockets reading the
        same page at the same moment."""
        return await SHARED.page(self.queries, self.game_id, self.viewer, self.cursor)

    async def after_write(self, reply: Played, stored: list[StoredEvent]) -> Batch:
        """The events to send with the reply to a write that stored ``stored``: every event
        the caller has not been sent, up to the write's own. When nothing came between (the
        usual case) those are the write's own events as ``reply`` holds them, and the log is
        not read; when other sockets of this process watch the game, their batch is offered
        to them as the page they read next (``Queries.offer_page``): every socket on the game
        sends the same bytes.
        Otherwise the log from the cursor. A retried write's events, already sent, are not
        sent again."""
        if stored and stored[0].version == self.cursor + 1:
            batch = Batch(StreamPage(reply.events, False, None))
            if WATCHING[self.game_id] > 1:  # another socket of this process watches the game
                self.queries.offer_page(
                    self.game_id, self.viewer, self.cursor, PAGE, reply.events, batch
                )
            return batch
        events: list[EventOut] = []
        if stored and stored[-1].version > self.cursor:
            while not events or events[-1].version < stored[-1].version:
                page = (await self.read()).page
                if not page.events:
                    break
                events.extend(page.events)
                self.cursor = page.events[-1].version
        return Batch(StreamPage(events, False, None))

    def sent(self, events: list[EventOut]) -> None:
        """Mark ``events`` as delivered."""
        if events:
            self.cursor = max(self.cursor, events[-1].version)

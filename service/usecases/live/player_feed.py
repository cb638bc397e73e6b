"""A registered player's feed: her notes (``live.notes``) across every game that names her,
as they come, resumable after the last one seen.

A feed is made again from the logs each time it opens: the games that name her
(``NamedGames``), each folded from its log for her (``GameNotes``); a seek's id is looked up in
the seeks' log (``Feeds.seek_of``). Opened after a note's id, it sends every note whose id comes
after it; opened with none, the notes that stand now (her open invitations, the start of each
game she plays that runs, her turn where it is hers), then whatever comes.

It then follows, with no more reads than news asks for: the store's announcements of each
game it follows (the games that gather or run and name her) wake the fold of that game, and
``Discovery`` wakes a look for games new to it; a slow safety poll looks at everything now
and then (``ANNOUNCED_POLL_SECONDS``, or ``POLL_SECONDS`` over a store that cannot
announce). A game over, or that names her no longer, is set aside; a game set aside that
names her again (a table reopened by an undo, a seat taken again) is folded again, and only
its notes past where it was set aside are sent. Each note is sent once: a fold only moves
forward.

Ids order notes by the time the store stamped their events. A game's notes follow the game's
log, so a feed that stays open misses none; a feed resumed after an id gets the notes whose
ids come after it, which over several processes leaves out the rare note of an event stamped
before that id's but committed after it was sent.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable
from contextlib import suppress

import anyio
import msgspec

from domain.players.handles import player_id
from eventstore import Announcing, EventStore, iso_timestamp
from service.clock import Clock
from service.usecases.live.discovery import Discovery
from service.usecases.live.named import OVER, NamedGames, named_in
from service.usecases.live.notes import QUICK_PLAY, GameNotes, Note, at_of
from service.usecases.live.stream import ANNOUNCED_POLL_SECONDS, JITTER, POLL_SECONDS

READ = 1000  # events of a game read at a time
SeekOf = Callable[[str, str, int], str | None]
"""The id of the seek sat at a quick play table's seat (the seeks' shape, the table, the
seat), from the seeks' log; None when not found."""


Renew = Callable[[str], object]
"""Keep a player's waiting seeks alive (by handle): what an open feed does now and then."""


def no_seek(shape: str, game_id: str, seat: int) -> str | None:
    """``SeekOf`` where there are no seeks."""
    return None


def no_renewal(handle: str) -> None:
    """``Renew`` where there are no seeks."""


class Feeds:
    """What every feed of this process opens over: the store, the games that name each
    player, the news of games new to a player, where a matched seek's id is found and how a
    player's seeks are kept alive."""

    def __init__(
        self, store: EventStore, now: Clock, seek_of: SeekOf = no_seek, renew: Renew = no_renewal
    ) -> None:
        self.store, self.now, self.seek_of, self.renew = store, now, seek_of, renew
        self.named = NamedGames(store)
        self.discovery = Discovery(store, self.named)

    def open(self, handle: str, after: str | None) -> PlayerFeed:
        """A feed of the player's notes after the note id ``after`` (None: those that stand
        now, then what comes); call ``PlayerFeed.start`` on the event loop."""
        return PlayerFeed(self, handle, after)


class PlayerFeed:
    """One open feed of one player: the games it follows, folded for her, and its news."""

    def __init__(self, feeds: Feeds, handle: str, after: str | None) -> None:
        self.feeds, self.store, self.handle, self.after = feeds, feeds.store, handle, after
        self.since = at_of(after) if after else iso_timestamp(feeds.now())
        self.games: dict[str, GameNotes] = {}
        self.aside: dict[str, int] = {}
        """Games set aside (over, or naming her no longer), by the version folded."""
        self.subscriptions: dict[str, Callable[[], None]] = {}
        self.shapes: dict[str, str] = {}
        """The seeks' shape of each quick play table taken up."""
        self.announcing = isinstance(self.store, Announcing)
        self.woken: set[str] = set()
        self.rescan = True
        self.reads = 0
        """How many reads have begun."""
        self.unwatch: Callable[[], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        with suppress(RuntimeError):  # made on the event loop: news heard before the start too
            self._loop = asyncio.get_running_loop()
        self._news = asyncio.Event()

    async def start(self) -> list[Note]:
        """Open: watch for games new to her, then the notes to send first."""
        self._loop = asyncio.get_running_loop()
        wake = self.feeds.discovery.watch
        self.unwatch = await anyio.to_thread.run_sync(wake, self.handle, lambda: self.heard(None))
        return await self.read()

    async def follow(self, keep_alive: float) -> AsyncIterator[list[Note]]:
        """The notes as they come, a batch at a time in id order; an empty batch every
        ``keep_alive`` seconds with nothing to send."""
        poll_at = self.next_poll()
        while True:
            quiet_until = time.monotonic() + keep_alive
            while not self._news.is_set():
                now = time.monotonic()
                if now >= poll_at:
                    self.rescan, self.woken = True, set(self.games)
                    poll_at = self.next_poll()
                    break
                if now >= quiet_until:
                    break
                with anyio.move_on_after(min(poll_at, quiet_until) - now):
                    await self._news.wait()
            yield await self.read()

    def next_poll(self) -> float:
        """When the safety poll looks at everything next (``time.monotonic``), jittered."""
        seconds = ANNOUNCED_POLL_SECONDS if self.announcing else POLL_SECONDS
        return time.monotonic() + seconds * random.uniform(1 - JITTER, 1 + JITTER)

    def heard(self, game_id: str | None) -> None:
        """News (from any thread) of a game's appends, or (None) of a game that may be new to
        her; a no-op once the loop has closed."""
        if self._loop is not None:
            with suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._mark, game_id)

    def _mark(self, game_id: str | None) -> None:
        if game_id is None:
            self.rescan = True
        else:
            self.woken.add(game_id)
        self._news.set()

    async def read(self) -> list[Note]:
        """The notes the news since the last read holds (the store read on a worker thread)."""
        self._news.clear()
        self.reads += 1
        rescan, woken = self.rescan, self.woken
        self.rescan, self.woken = False, set()
        return await anyio.to_thread.run_sync(self.notes, rescan, woken)

    def notes(self, rescan: bool, woken: set[str]) -> list[Note]:
        """The notes of the games woken (and, with ``rescan``, of the games new to the feed and
        the seeks matched), in id order."""
        found = self.scan() if rescan else []
        for game_id in woken:
            if game_id in self.games:
                found += self.catch_up(game_id)
        kept = [note for note in map(self.with_seek, found) if note is not None]
        return sorted(kept, key=lambda note: note.id)

    def scan(self) -> list[Note]:
        """The notes of the games that name her and that the feed does not follow yet."""
        found: list[Note] = []
        since = self.since if self.after else None
        for game_id in self.feeds.named.concerning(self.handle, since):
            if game_id not in self.games:
                found += self.take_up(game_id)
        return found

    def take_up(self, game_id: str) -> list[Note]:
        """Follow a game that names her: fold it from its start and keep the notes not sent
        yet (those past where it was set aside, if it was; past ``after``; else those that
        stand and those since the start)."""
        summarised = self.store.summary(game_id)
        if summarised is None:
            return []
        summary = summarised.summary
        names = player_id(self.handle) in {player_id(h) for h in named_in(summary.document)}
        quiet = summary.status in OVER or not names
        if game_id in self.aside and (quiet or summarised.version <= self.aside[game_id]):
            return []
        if quiet and (self.after is None or summarised.updated_at < self.since):
            self.aside[game_id] = summarised.version  # nothing of it can be after the start
            return []
        self.subscriptions[game_id] = self.subscribe(game_id)
        game = self.games[game_id] = GameNotes(game_id, self.handle)
        folded = self.fold(game)
        if game.replay is not None and QUICK_PLAY in game.replay.created.tags:
            self.shapes[game_id] = game.replay.created.tags[QUICK_PLAY]
        if game_id in self.aside:
            found = [note for note in folded if note.version > self.aside.pop(game_id)]
        elif self.after is None:
            standing = {note.id for note in game.standing()}
            found = [note for note in folded if note.id in standing or note.at >= self.since]
        else:
            found = [note for note in folded if self.new(note)]
        self.set_aside_if_done(game)
        return found

    def catch_up(self, game_id: str) -> list[Note]:
        """The notes of a followed game's events since its fold's version."""
        game = self.games[game_id]
        found = self.fold(game)
        self.set_aside_if_done(game)
        return found

    def fold(self, game: GameNotes) -> list[Note]:
        """Every note of the game's events after the version folded (a seek's id looked up)."""
        found: list[Note] = []
        while events := self.store.read(game.game_id, after=game.version, limit=READ):
            for stored in events:
                found += game.take(stored)
            if len(events) < READ:
                break
        return found

    def with_seek(self, note: Note) -> Note | None:
        """A ``seek-matched`` note with the id of the seek the seeks' log matched into her
        seat; None when it has none (a game tagged so by its creator, not by quick play)."""
        if note.kind != "seek-matched":
            return note
        shape = self.shapes.get(note.game_id, "")
        seek = self.feeds.seek_of(shape, note.game_id, note.seat)
        return msgspec.structs.replace(note, seek=seek) if seek else None

    def set_aside_if_done(self, game: GameNotes) -> None:
        """Stop following a game over, or one that names her no longer."""
        if game.finished or (not game.seats() and game.invited() is None):
            self.aside[game.game_id] = game.version
            self.games.pop(game.game_id, None)
            if (unsubscribe := self.subscriptions.pop(game.game_id, None)) is not None:
                unsubscribe()

    def subscribe(self, game_id: str) -> Callable[[], None]:
        """The store's news of a game's appends (nothing over a store that cannot announce:
        the poll reads it)."""
        if not isinstance(self.store, Announcing):
            return lambda: None
        return self.store.subscribe(game_id, lambda _version: self.heard(game_id))

    def new(self, note: Note) -> bool:
        """Whether a note of a game the feed takes up is to be sent: after ``after``, or with
        none since the feed's start."""
        return note.id > self.after if self.after else note.at >= self.since

    def close(self) -> None:
        """End the watches and the subscriptions."""
        if self.unwatch is not None:
            self.unwatch()
        for unsubscribe in self.subscriptions.values():
            unsubscribe()
        self.subscriptions.clear()


def encoded(note: Note) -> str:
    """A note as JSON."""
    return msgspec.json.encode(note).decode()

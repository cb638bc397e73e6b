"""A registered player's feed: ``GET /me/socket`` (a WebSocket, messages in
``feed_messages``) and ``GET /me/stream`` (the same notes as Server-Sent Events).

The feed pushes what concerns the player across every game that names her
(``service.usecases.live.notes``): invitations, rematches offered, seeks matched, games
started, her turn, games finished. It is made again from the logs each time it opens
(``service.usecases.live.player_feed``), so a feed resumed after the last note's id sent gets
what came since, each note once.

The socket keeps the game socket's conventions (``service.api.socket``): the key in the first
message, never in the URL; a stream slot of the client's while open (4429 when none is free);
a budget of messages (``refused`` over it, closed 4429 after a whole burst over it); a push
that cannot be sent for ``Settings.socket_send_timeout`` seconds closes it (4409); and a key
replaced or a handle retired, by any process, closes it (4401, reason ``key-revoked``). The
stream ends then instead. While a feed is open, the player's seeks stay alive (``renew``).
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator
from contextlib import suppress
from typing import Annotated, Any

import anyio
import msgspec
import structlog
from litestar import Controller, Request, WebSocket, get, websocket
from litestar.exceptions import WebSocketDisconnect
from litestar.params import QueryParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage

from service.api.apidoc import problems
from service.api.bodies import checked
from service.api.deps import LastEventId
from service.api.feed_messages import FeedClientMessage, FeedHello, FeedWelcome, NoteMessage
from service.api.identity import bearer, caller_async, player_of, resolve
from service.api.problems import problem_body
from service.api.socket import (
    KEY_CHECK_SECONDS,
    Closed,
    KeyWatch,
    Wire,
    message_type,
    ref_of,
)
from service.api.socket_messages import Ping, Pong, Refused
from service.api.streams import StreamSlots, address, closing, stream_slot
from service.core.actor import Player
from service.core.refusal import Refusal, refuse
from service.usecases.faults import store_fault
from service.usecases.live.notes import Note, is_note_id
from service.usecases.live.player_feed import Feeds, PlayerFeed, encoded
from service.usecases.live.stream import KEEPALIVE_SECONDS
from service.usecases.players.book import PlayerBook

RENEW_SECONDS = 20.0
"""How often an open feed renews its player's seeks."""
SOCKET_QUIET_SECONDS = 3600.0
"""The socket sends no keep-alive of its own (the server's protocol pings it)."""
log = structlog.get_logger()
encoder = msgspec.json.Encoder()


def after_of(text: str | None, where: str) -> str | None:
    """A note id to resume after, checked (400 ``validation-failed`` naming ``where``)."""
    if text is None or text == "":
        return None
    if not is_note_id(text):
        detail = f"{where} must be the id of a note the feed sent: <at>/<game id>/<version>/<rank>"
        raise refuse("validation-failed", detail)
    return text


async def keep_seeks(feeds: Feeds, handle: str) -> None:
    """Renew the player's seeks now and every ``RENEW_SECONDS`` (on a worker thread)."""
    while True:
        await renew(feeds, handle)
        await anyio.sleep(RENEW_SECONDS)


async def renew(feeds: Feeds, handle: str) -> None:
    """Renew the player's seeks once (a refusal, such as a store's fault, is let be: the next
    renewal comes)."""
    with suppress(Refusal):
        await anyio.to_thread.run_sync(feeds.renew, handle)


class FeedSession(Wire):
    """One open feed socket: its player, her key watched, her notes, and how it sends."""

    def __init__(self, socket: WebSocket[Any, Any, Any]) -> None:
        super().__init__(socket)
        state = socket.app.state
        self.feeds: Feeds = state.feeds
        self.players: PlayerBook = state.players
        self.player: Player | None = None
        self.watch: KeyWatch | None = None
        self.feed: PlayerFeed | None = None

    async def send(self, message: Any) -> None:
        """Send one message (``Wire.send_text``)."""
        await self.send_text(encoder.encode(message).decode())

    async def hello(self) -> None:
        """Read the hello (within ``HELLO_SECONDS``), check the key, welcome the player."""
        frame = await self.first()
        try:
            message = checked(frame, FeedClientMessage)
            if not isinstance(message, FeedHello):
                why = f"the first message must be a hello, not {message_type(message)}"
                raise Closed(4400, why)
            after = after_of(message.after, "after")
        except Refusal as refusal:
            raise Closed(4400, refusal.detail[:120]) from None
        self.player = await self.identify(message.token)
        assert message.token is not None
        self.watch = KeyWatch(self.players, self.player, message.token)
        await self.watch.check()  # a change between the hello's check and the watch
        self.feed = self.feeds.open(self.player.handle, after)
        await self.send(FeedWelcome(self.player.handle))

    async def identify(self, token: str | None) -> Player:
        """The player whose key the hello holds (4401 for none, a refused key or another
        kind of bearer)."""
        try:
            state = self.socket.app.state
            who = await anyio.to_thread.run_sync(resolve, state.players, state.apps, token)
            return player_of(who)
        except Refusal as refusal:
            raise Closed(4401, refusal.detail[:120]) from None

    async def run(self) -> None:
        """Push the notes, answer the player's messages, watch her key and keep her seeks,
        until one of them ends."""
        assert self.watch is not None and self.player is not None
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self.push)
                tasks.start_soon(self.answer)
                tasks.start_soon(self.watch.run)
                tasks.start_soon(keep_seeks, self.feeds, self.player.handle)
        except ExceptionGroup as group:  # the first reason to close, not the group
            closed = [e for e in group.exceptions if isinstance(e, Closed)]
            raise (closed[0] if closed else group.exceptions[0]) from None

    async def push(self) -> None:
        """Send the notes to send first, then each note as it comes."""
        feed = self.feed
        assert feed is not None
        for note in await feed.start():
            await self.send(NoteMessage(note))
        async for batch in feed.follow(SOCKET_QUIET_SECONDS):
            for note in batch:
                await self.send(NoteMessage(note))

    async def answer(self) -> None:
        """Answer the player's messages until the socket closes, each within the budget."""
        while True:
            frame = await self.receive()
            if wait := self.budget.spend():
                await self.over_budget(ref_of(frame), wait)
                continue
            try:
                message = checked(frame, FeedClientMessage)
            except Refusal as refusal:
                await self.refuse(ref_of(frame), refusal)
                continue
            if isinstance(message, Ping):
                await self.send(Pong(message.ref))
            else:
                await self.refuse(None, refuse("malformed-request", "hello was already said"))

    async def over_budget(self, ref: str | None, wait: float) -> None:
        """Refuse a message over the budget, or close a socket that went on sending over it."""
        budget = self.budget
        if budget.broken:
            raise Closed(4429, f"too many messages: over {budget.rate:g} a second, refused")
        seconds = max(1, int(wait + 0.999))
        detail = (
            f"too many messages on this socket: at most {budget.rate:g} a second (bursts of "
            f"{budget.burst}); retry in {seconds} s"
        )
        await self.refuse(ref, refuse("rate-limited", detail, retry_after=seconds))

    async def refuse(self, ref: str | None, refusal: Refusal) -> None:
        """Answer a message with its problem."""
        await self.send(Refused(ref, problem_body(refusal, "/me/socket")))

    def close(self) -> None:
        """End the feed's watches."""
        if self.feed is not None:
            self.feed.close()
        if self.watch is not None:
            self.watch.stop()


@websocket("/me/socket")
async def feed_socket(socket: WebSocket[Any, Any, Any]) -> None:
    """A registered player's feed over one WebSocket (see the module docstring)."""
    slots: StreamSlots = socket.app.state.limits.streams
    client = address(socket.scope)
    await socket.accept()
    try:
        slots.acquire(client)
    except Refusal as refusal:
        await socket.close(4429, refusal.detail[:120])
        return
    session = FeedSession(socket)
    code, reason = 1000, ""
    try:
        await session.hello()
        await session.run()
    except WebSocketDisconnect:
        code = 0
    except Closed as closed:
        code, reason = closed.code, closed.reason
    except Exception as error:  # the store unreachable here: connect again (to another host)
        if store_fault(error) is None:
            raise
        code, reason = 1011, "the event store cannot be reached here: connect again"
    finally:
        session.close()
        slots.release(client)
    if code:
        with suppress(Exception):  # the client may be gone already
            await socket.close(code, reason)
    handle = session.player.handle if session.player else None
    log.info("feed closed", handle=handle, outcome=code or "gone")


class FeedController(Controller):
    """The player's feed as Server-Sent Events."""

    @get(
        "/me/stream",
        operation_id="streamMyNotes",
        media_type="text/event-stream",
        middleware=[stream_slot],
        responses=problems(400, 401, 403, 429),
    )
    async def stream(
        self,
        request: Request[Any, Any, Any],
        after: Annotated[str | None, QueryParameter(max_length=200)] = None,
        last_event_id: LastEventId = None,
    ) -> ServerSentEvent:
        """The player's notes as Server-Sent Events (``event: note``, ``id:`` the note's id),
        live: those after ``Last-Event-ID`` (or ``after``), or with neither those that stand
        now, then each as it comes. It ends when her key is replaced or her handle retired.
        Each open stream holds a slot of the caller's and of the server's."""
        player = player_of(await caller_async(request))
        resumed = after_of(last_event_id, "Last-Event-ID") if last_event_id else None
        start = resumed or after_of(after, "after")
        key = bearer(request) or ""
        state = request.app.state
        events = note_events(state.feeds, state.players, player, key, start)
        return ServerSentEvent(closing(request, events))


class KeyCheck:
    """When a stream checks its player's key: once a read of the feed has begun after news of
    a change to her keys (so every note made before the change is sent first), and every
    ``KEY_CHECK_SECONDS``."""

    def __init__(self, players: PlayerBook, key: str, feed: PlayerFeed) -> None:
        self.players, self.key, self.feed = players, key, feed
        self.changed: int | None = None
        """The feed's count of reads when the news of a change came (None: no news)."""
        self.checked = time.monotonic()

    def heard(self) -> None:
        """News of a change to her keys (from any thread): wake the feed."""
        if self.changed is None:
            self.changed = self.feed.reads
        self.feed.heard(None)

    async def still_hers(self, now: bool = False) -> bool:
        """Whether the key is still the player's latest, checked (a store read, on a worker
        thread) when due or asked ``now``."""
        moment = time.monotonic()
        news = self.changed is not None and self.feed.reads > self.changed
        if not (now or news or moment - self.checked >= KEY_CHECK_SECONDS):
            return True
        self.changed, self.checked = None, moment
        try:
            await anyio.to_thread.run_sync(self.players.authenticate, self.key)
        except Refusal:
            return False
        return True


async def note_events(
    feeds: Feeds,
    players: PlayerBook,
    player: Player,
    key: str,
    after: str | None,
) -> AsyncGenerator[ServerSentEventMessage, None]:
    """The feed's notes as Server-Sent Events, until the player's key is no longer her latest
    (``KeyCheck``); her seeks renewed every ``RENEW_SECONDS`` meanwhile."""
    feed = feeds.open(player.handle, after)
    check = KeyCheck(players, key, feed)
    unwatch = players.watch(player, check.heard)
    renewed = time.monotonic()
    try:
        if not await check.still_hers(now=True):  # a change before the watch
            return
        await renew(feeds, player.handle)
        for note in await feed.start():
            yield message_of(note)
        quiet = time.monotonic()  # since the last message
        async for batch in feed.follow(KEEPALIVE_SECONDS):
            for note in batch:
                yield message_of(note)
            if batch or time.monotonic() - quiet >= KEEPALIVE_SECONDS:
                if not batch:
                    yield ServerSentEventMessage(comment="keep-alive", data=None)
                quiet = time.monotonic()
            if not await check.still_hers():
                return
            if time.monotonic() - renewed >= RENEW_SECONDS:
                renewed = time.monotonic()
                await renew(feeds, player.handle)
    finally:
        unwatch()
        feed.close()


def message_of(note: Note) -> ServerSentEventMessage:
    """A note as a Server-Sent Event."""
    return ServerSentEventMessage(data=encoded(note), event="note", id=note.id)

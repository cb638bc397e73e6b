"""``GET /games/{id}/socket``: live play over one WebSocket (messages in ``socket_messages``).

A socket is a seat's, the referee's or a spectator's view of one game, named by the token in
its first message (never in the URL, so it reaches no log). The server pushes every event the
caller may see as it is appended, whoever caused it (another socket, an HTTP write, a bot, a
clock, another process on PostgreSQL), and plays the caller's writes through the same use
cases, body checks, rate limit and idempotency scope as the HTTP routes: a write is answered
once it is durable. The caller's ``Feed`` sends each event once, in order, in a push or in the
reply to the write that caused it.

A socket holds one of the client's stream slots (as an SSE stream does) while it is open. A
frame over the largest request body is closed by the server (1009); a push that cannot be sent
for ``Settings.socket_send_timeout`` seconds (a reader that stopped reading) closes the socket
(4409) instead of buffering (the server's protocol, ``service.socket_protocol``, times the
send out); uvicorn pings every
``PING_SECONDS`` and closes a socket whose pong does not come (1011). A socket whose hello or
push finds the event store unreachable (a host cut off from its database) is closed with 1011
too, saying so: the client connects again, through a load balancer to a host that can serve
it, and resumes from its last version.

Each socket has a budget of messages (``MessageBudget``: ``Settings.socket_message_rate`` a
second, bursts of ``socket_message_burst``), which the server's protocol shares with it to
count the protocol's pings too: a message over it is answered ``refused`` (``rate-limited``,
with ``retry_after``), and a socket that goes on for a whole burst over it is closed (4429).
The caller's writes spend the write rate limit of its seat besides, as over HTTP. The protocol
gives the app a message that was already waiting only after the other connections' turn, so a
socket whose messages came by the thousand in one read does not hold the event loop for all
of them.

A seat's socket makes the seat present while it is open (``service.usecases.live.presence``),
and every socket whose hello asked for it (``"presence": true``) is sent ``presence`` whenever
the table's present seats change (not the change its own opening makes: ``GET /games/{id}``
shows the seats' presence). A socket that did not ask gets no message it did not know of.

A socket opened with a registered player's key (``service.api.identity``) is that player's
seat's for as long as the key is the player's latest: when the key is replaced or the handle
retired, by this process or another, the socket closes (4401, reason ``key-revoked``). The
news of the player's keys (``PlayerBook.watch``) wakes a check of the key at once; a write
message checks it first too (news from another process may be late), and so does a slow
safety poll (``KEY_CHECK_SECONDS``).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any, Literal

import anyio
import msgspec
import structlog
from litestar import WebSocket, websocket
from litestar.exceptions import WebSocketDisconnect
from litestar.params import FromPath
from litestar.types import WebSocketSendEvent

from domain.model import Viewer
from service.api.bodies import checked
from service.api.deps import check_referee
from service.api.identity import in_game, resolve
from service.api.limits import BUDGET, Limits, MessageBudget
from service.api.problems import problem_body, translate
from service.api.socket_messages import (
    ClientMessage,
    Hello,
    Ping,
    Play,
    Pong,
    Presence,
    Refused,
    SeatPresence,
    ServerMessage,
    UndoRequest,
    Welcome,
    Write,
)
from service.api.streams import StreamSlots, address
from service.core.actor import GameCaller, Player
from service.core.refusal import Refusal, refuse
from service.usecases.faults import store_fault
from service.usecases.games.commands import Commands
from service.usecases.games.queries import Queries
from service.usecases.live import presence
from service.usecases.live.feed import Feed
from service.usecases.live.stream import seconds_until
from service.usecases.players.book import PlayerBook
from service.usecases.replies import LegalMoves
from service.usecases.replies import Played as PlayedReply

HELLO_SECONDS = 10.0
PING_SECONDS = 20.0
KEY_CHECK_SECONDS = 30.0
"""How often a player's socket checks her key besides the news of a change to her keys (a
store's announcements may be missed while its listening connection is down)."""
KEY_REVOKED = "key-revoked"
log = structlog.get_logger()
encoder = msgspec.json.Encoder()


class Closed(Exception):
    """The socket is to be closed with ``code`` (``socket_messages.CLOSE_CODES``)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code, self.reason = code, reason


class KeyWatch:
    """The key a player's socket was opened with, checked again whenever the player's keys
    change (and every ``KEY_CHECK_SECONDS``): a key no longer the player's latest closes the
    socket (4401 ``key-revoked``)."""

    def __init__(self, players: PlayerBook, player: Player, key: str) -> None:
        self.players, self.key = players, key
        self._loop = asyncio.get_running_loop()
        self._changed = asyncio.Event()
        self.stop = players.watch(player, self.heard)
        """End the watch (when the socket closes)."""

    def heard(self) -> None:
        """The player's keys changed, or may have (from another thread; a no-op once the
        loop has closed)."""
        with suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._changed.set)

    async def check(self) -> None:
        """Close the socket unless its key is still the player's latest (a store read, on a
        worker thread)."""
        try:
            await anyio.to_thread.run_sync(self.players.authenticate, self.key)
        except Refusal:
            raise Closed(4401, KEY_REVOKED) from None

    async def run(self) -> None:
        """Check the key at each news of a change, and every ``KEY_CHECK_SECONDS``."""
        while True:
            with anyio.move_on_after(KEY_CHECK_SECONDS):
                await self._changed.wait()
            self._changed.clear()
            await self.check()


class Wire:
    """What every socket of the service shares: its message budget (the protocol's, which
    its pings spend too), how a message is sent (a send that cannot go for
    ``Settings.socket_send_timeout`` seconds closes it with 4409) and read, and the first
    frame it must get within ``HELLO_SECONDS`` (4408)."""

    def __init__(self, socket: WebSocket[Any, Any, Any]) -> None:
        self.socket = socket
        self.limits: Limits = socket.app.state.limits
        settings = self.limits.settings
        budget = (socket.scope.get("extensions") or {}).get(BUDGET)  # the protocol's: its pings
        self.budget: MessageBudget = (
            budget
            if isinstance(budget, MessageBudget)
            else MessageBudget(settings.socket_message_rate, settings.socket_message_burst)
        )

    async def send_text(self, text: str) -> None:
        """Send one message made already. The server's protocol gives up on a send that
        could not go for ``Settings.socket_send_timeout`` seconds
        (``service.socket_protocol``): that closes the socket with 4409."""
        try:
            await self.socket.send(WebSocketSendEvent(type="websocket.send", bytes=None, text=text))
        except TimeoutError:
            seconds = self.limits.settings.socket_send_timeout
            raise Closed(4409, f"a message could not be sent for {seconds:g} s") from None
        except OSError:  # the server's protocol closed or lost the connection meanwhile
            raise WebSocketDisconnect(detail="gone", code=1006) from None

    async def receive(self) -> bytes:
        """The next frame's bytes (text frames; a binary frame is read as its bytes)."""
        message = await self.socket.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(detail="closed", code=message.get("code", 1000))
        text, data = message.get("text"), message.get("bytes")
        if isinstance(text, str):
            return text.encode()
        return data if isinstance(data, bytes) else b""

    async def first(self) -> bytes:
        """The first frame, the hello, within ``HELLO_SECONDS`` (else closed with 4408)."""
        frame = None
        with anyio.move_on_after(HELLO_SECONDS):
            frame = await self.receive()
        if frame is None:
            raise Closed(4408, f"no hello within {HELLO_SECONDS:.0f} s")
        return frame


class Session(Wire):
    """One open socket: its caller, its feed and how it sends."""

    def __init__(self, socket: WebSocket[Any, Any, Any], game_id: str) -> None:
        super().__init__(socket)
        self.game_id = game_id
        state = socket.app.state
        self.commands: Commands = state.commands
        self.queries: Queries = state.queries
        self.token: GameCaller = None
        self.role: Viewer = None
        self.feed: Feed | None = None
        self.watch: KeyWatch | None = None
        """A player's socket: her key, watched."""
        self.presence: presence.Presence = state.presence
        self.seats = 0  # how many the table has
        self.tells_presence = False  # the hello asked for presence messages
        self.leave: Callable[[], None] | None = None
        """A seat's socket: the end of its presence (when the socket closes)."""

    async def send(self, message: ServerMessage) -> None:
        """Send one message, or close the socket (4409) when it cannot go for too long."""
        await self.send_text(encoder.encode(message).decode())

    async def hello(self) -> None:
        """Read the hello (within ``HELLO_SECONDS``) and welcome the caller."""
        frame = await self.first()
        try:
            message = checked(frame, ClientMessage)
        except Refusal as refusal:
            raise Closed(4400, refusal.detail[:120]) from None
        if not isinstance(message, Hello):
            raise Closed(4400, f"the first message must be a hello, not {message_type(message)}")
        try:
            self.token, self.role, version = await anyio.to_thread.run_sync(self.join, message)
        except Refusal as refusal:
            raise Closed(close_code(refusal), refusal.detail[:120]) from None
        if isinstance(self.token, Player) and message.token is not None:
            self.watch = KeyWatch(self.socket.app.state.players, self.token, message.token)
            await self.watch.check()  # a change between the hello's check and the watch
        self.feed = Feed(self.queries, self.game_id, self.role, message.after)
        self.tells_presence = message.presence
        seat = self.role if isinstance(self.role, int) else None
        if seat is not None:
            self.leave = self.presence.attend(self.game_id, seat)
        await self.send(Welcome(role_name(self.role), seat, version))

    def join(self, hello: Hello) -> tuple[GameCaller, Viewer, int]:
        """Who the hello's token or key makes the caller (``service.api.identity``), their
        role and the game's version (on a worker thread: a key is checked in the store)."""
        state = self.socket.app.state
        caller = in_game(resolve(state.players, state.apps, hello.token))
        joined = self.queries.joining(self.game_id, caller, hello.after)
        with self.queries.games.game(self.game_id, fresh=False) as game:
            self.seats = len(game.created.seats)
        return (caller, *joined)

    async def run(self) -> None:
        """Push the log's news and answer the caller's messages, until either ends (each in
        a task of its own: a message wakes a short stack, not the handler's whole chain of
        middleware)."""
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self.push)
                tasks.start_soon(self.answer)
                if self.tells_presence:
                    tasks.start_soon(self.tell_presence)
                if self.watch is not None:
                    tasks.start_soon(self.watch.run)
        except ExceptionGroup as group:  # the first reason to close, not the group
            closed = [e for e in group.exceptions if isinstance(e, Closed)]
            raise (closed[0] if closed else group.exceptions[0]) from None

    async def push(self) -> None:
        """Send the log's news to the caller as it comes, until the socket closes. The log is
        read when the store's news may hold something the caller has not been sent (not for
        the caller's own writes, whose replies carried their events), when a delayed event
        comes due, and by the slow safety poll."""
        feed = self.feed
        assert feed is not None
        with feed.news() as news:
            read = True
            while True:
                if read:
                    async with feed.hold():
                        news.clear()
                        batch = await feed.read()
                        page = batch.page
                        if page.events:
                            await self.send_text(batch.frame(events_frame))
                            feed.sent(page.events)
                            continue
                    read_at = news.next_read()
                    if page.due is not None:
                        read_at = min(
                            read_at, time.monotonic() + seconds_until(page.due, self.queries.now())
                        )
                if not await news.wait(read_at - time.monotonic()):
                    read = True  # the safety poll, or a delayed event come due
                    continue
                async with feed.hold():  # a write of this socket's in flight answers first
                    read = news.beyond(feed.cursor)

    async def tell_presence(self) -> None:
        """Send ``presence`` whenever the table's present seats change, until the socket
        closes (the news comes from any thread: ``Presence.watch``)."""
        loop, changed = asyncio.get_running_loop(), asyncio.Event()

        def heard() -> None:
            with suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(changed.set)

        unwatch = self.presence.watch(self.game_id, heard)
        try:
            told = self.presence.present(self.game_id)
            while True:
                await changed.wait()
                changed.clear()
                present = self.presence.present(self.game_id)
                if present != told:
                    seats = [SeatPresence(seat, seat in present) for seat in range(self.seats)]
                    await self.send(Presence(seats))
                    told = present
        finally:
            unwatch()

    async def answer(self) -> None:
        """Answer the caller's messages until the socket closes, each within the budget."""
        while True:
            frame = await self.receive()
            if wait := self.budget.spend():
                await self.over_budget(frame, wait)
                continue
            try:
                message = checked(frame, ClientMessage)
            except Refusal as refusal:
                await self.refuse(ref_of(frame), refusal)
                continue
            if isinstance(message, Ping):
                await self.send(Pong(message.ref))
            elif isinstance(message, Hello):
                await self.refuse(None, refuse("malformed-request", "hello was already said"))
            else:
                await self.write(message)

    async def over_budget(self, frame: bytes, wait: float) -> None:
        """Refuse a message over the budget, or close a socket that went on sending over it."""
        budget = self.budget
        if budget.broken:
            raise Closed(4429, f"too many messages: over {budget.rate:g} a second, refused")
        seconds = max(1, math.ceil(wait))
        detail = (
            f"too many messages on this socket: at most {budget.rate:g} a second (bursts of "
            f"{budget.burst}); retry in {seconds} s"
        )
        refusal = refuse("rate-limited", detail, retry_after=seconds)  # not logged: a flood's
        await self.send(Refused(ref_of(frame), problem_body(refusal, self.instance())))

    async def write(self, message: Write) -> None:
        """Play one write through the use cases; answer ``played`` or ``refused``. The feed is
        held from before the write to its answer, so the pushes wait for it and the answer
        carries the write's events (and any the caller had not been sent before them)."""
        feed = self.feed
        assert feed is not None
        async with feed.hold():
            if self.watch is not None:
                await self.watch.check()  # the key's news from another process may be late
            try:
                if self.limits.writes.rate > 0:
                    self.limits.check_write(f"game:{self.game_id}:{self.role}")
                stored = await self.stored(message)
                reply = self.queries.played(self.game_id, self.token, stored, with_state=False)
            except Exception as error:  # every refusal is answered, the rest logged
                await self.refuse(message.ref, known(error))
                return
            batch = await feed.after_write(reply, stored)
            await self.send_text(played_frame(message.ref, reply, batch.json()))
            feed.sent(batch.page.events)
        log.info("socket write", game_id=self.game_id, ref=message.ref, outcome="played")

    async def stored(self, message: Write) -> list[Any]:
        """The events the write stored (or had stored, for a retried key)."""
        key, token, game_id = message.idempotency_key, self.token, self.game_id
        if isinstance(message, Play):
            return await self.commands.play_async(game_id, token, message.command(), key)
        if isinstance(message, UndoRequest):
            return await anyio.to_thread.run_sync(
                self.commands.undo, game_id, token, message.command(), key
            )
        command = message.command()

        def chance() -> list[Any]:  # the referee check may load the game: off the event loop
            check_referee(self.queries, game_id, token)
            return self.commands.post_chance(game_id, token, command, key)

        return await anyio.to_thread.run_sync(chance)

    def instance(self) -> str:
        """The ``instance`` of this socket's problems."""
        return f"/games/{self.game_id}/socket"

    async def refuse(self, ref: str | None, refusal: Refusal) -> None:
        """Answer a message with its problem."""
        await self.send(Refused(ref, problem_body(refusal, self.instance())))
        log.info("socket refusal", game_id=self.game_id, ref=ref, outcome=refusal.slug, detail=None)


def events_frame(events: str) -> str:
    """An ``events`` message's text around its events' JSON (``Events``, made by hand: the
    same encoded events go to every socket on the game)."""
    return f'{{"type":"events","events":{events}}}'


def played_frame(ref: str, reply: PlayedReply, events: str) -> str:
    """A ``played`` message's text around its events' JSON (``Played``, made by hand: the
    events are those the game's other sockets are pushed, encoded once)."""
    head = f'{{"type":"played","ref":{encoder.encode(ref).decode()},"version":{reply.version}'
    return f'{head},"events":{events},"legal_moves":{encoder.encode(legal(reply)).decode()}}}'


def legal(reply: PlayedReply) -> LegalMoves:
    """The legal moves of a write's reply as ``LegalMoves``."""
    return LegalMoves(reply.version, reply.legal_moves)


def known(error: Exception) -> Refusal:
    """A write's error as its refusal; an unforeseen one is logged and answered as a 500's."""
    try:
        return translate(error)
    except Exception:
        log.exception("unhandled error on a socket")
        return refuse("internal-error", "the server failed; the error is logged")


def role_name(role: Viewer) -> Literal["seat", "referee", "spectator"]:
    return "referee" if role == "referee" else "spectator" if role is None else "seat"


def message_type(message: ClientMessage) -> str:
    return type(message).__struct_config__.tag  # type: ignore[return-value]


def ref_of(frame: bytes) -> str | None:
    """The ``ref`` of an unreadable message, when it has a readable one."""
    with suppress(Exception):
        ref = msgspec.json.decode(frame).get("ref")
        if isinstance(ref, str) and len(ref) <= 100:
            return ref
    return None


def close_code(refusal: Refusal) -> int:
    """The close code of a refused hello."""
    codes = {"game-not-found": 4404, "unauthorized": 4401, "key-refused": 4401, "forbidden": 4401}
    return codes.get(refusal.slug, 4400)


@websocket("/games/{game_id:str}/socket")
async def game_socket(socket: WebSocket[Any, Any, Any], game_id: FromPath[str]) -> None:
    """Live play and every event of one game over one WebSocket (see the module docstring)."""
    slots: StreamSlots = socket.app.state.limits.streams
    client = address(socket.scope)
    await socket.accept()
    try:
        slots.acquire(client)
    except Refusal as refusal:
        await socket.close(4429, refusal.detail[:120])
        return
    session = Session(socket, game_id)
    code, reason = 1000, ""
    try:
        await session.hello()
        await session.run()
    except WebSocketDisconnect:
        code = 0
    except Closed as closed:
        code, reason = closed.code, closed.reason
    except Exception as error:
        if store_fault(error) is None:
            raise
        code, reason = 1011, "the event store cannot be reached here: connect again"
    finally:
        if session.leave is not None:
            session.leave()
        slots.release(client)
        if session.watch is not None:
            session.watch.stop()
    if code:
        with suppress(Exception):  # the client may be gone already
            await socket.close(code, reason)
    log.info("socket closed", game_id=game_id, role=str(session.role), outcome=code or "gone")

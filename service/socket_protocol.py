"""uvicorn's sans-I/O WebSocket protocol, with a bounded send buffer, a send that waits a
bounded time for a stalled reader, a close that never waits for one, bounded pings and a
budget of messages.

Each socket's kernel send buffer is set to ``send_buffer`` bytes (``SO_SNDBUF``; Linux keeps
twice that) instead of growing by itself up to megabytes, and the event loop's buffer of the
connection pauses the sender at as much again; so a thousand sockets cost a known amount of
memory, and a reader that stops reading blocks its sender after about three times
``send_buffer`` instead of after megabytes.

A message sent while the connection is not writable waits ``send_timeout`` seconds at most for
it to drain, then the send fails with ``TimeoutError`` (the app closes the socket with 4409:
``service.api.socket``). The deadline is armed only then: a send to a reader that keeps up
costs no timer.

uvicorn sends every message, the close frame too, only once the connection is writable again:
a client that stopped reading keeps its socket (and the app's handler, waiting to send the
close) forever, or until the keep-alive ping gives up. Here a close sent while the connection
is not writable is queued behind what is already buffered, the app is told the socket is
closed at once, and the connection is aborted if that buffer has not drained within
``send_timeout`` seconds. A client that reads again gets what was buffered, then the close
frame with the app's code (``4409`` for a socket that could not be sent to:
``service.api.socket``).

Nothing else waits for a buffer to drain either. uvicorn writes the pong of every ping
straight into the buffer, and closes a socket whose keep-alive ping went unanswered with a
close that waits for the buffer to drain: a client sending pings and never reading grew the
server without end and kept its stream slot. Here

- a ping is answered while the connection is writable; one that comes while it is not is
  answered once it drains, and only the latest (RFC 6455, 5.5.3, allows it), so pongs never
  take the buffer past its bound;
- a connection whose buffer stays over its bound for twice ``send_timeout`` is aborted, and so
  is one whose keep-alive ping went unanswered; the app sees it gone and gives back its slot.
  A connection closing (either side's close frame sent) is aborted if it has not closed
  ``send_timeout`` seconds later (uvicorn waits 10 s for the client's close frame, then
  closes, which waits for the buffer to drain);
- each ping or pong frame spends one of the socket's messages (``MessageBudget``, shared with
  the app through the scope's ``extensions`` under ``BUDGET``, so JSON messages and control
  frames draw on one budget): a ping over the budget is not answered, and a socket that goes
  on for a whole burst over it is closed with 4429 (aborted when its buffer is full). Once a
  socket is closed with 4429 (by this or by the app) nothing more it sends is read;
- a read (up to 256 KiB: some 40,000 pings, 12,000 small messages) is parsed ``SLICE`` bytes
  at a time, reading paused meanwhile: the rest waits for the loop's next turn, or while the
  app has messages to read, until it has read them, and is dropped once the connection is
  closing. So a flood costs its budget, not a whole read, other connections have their turn
  between its slices, and the app is given a slice's messages at a time, not a read's; a
  message that was waiting when the app asked for it is given after the others' turn.

It subclasses a uvicorn internal, as ``service.http_limits`` does: uvicorn is pinned in
pyproject.toml to the versions this was tested on (``tests/service/live/test_socket_protocol.py``).
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from service.api.limits import BUDGET, MessageBudget

SLICE = 4096
PONG = b"\x8a"  # the first byte of a server's pong frame (FIN, opcode 10)
TOO_MANY = 4429


def bounded_socket_protocol(
    send_buffer: int, send_timeout: float, message_rate: float = 0.0, message_burst: int = 1
) -> type[WebSocketsSansIOProtocol]:
    """The protocol class for uvicorn's ``ws`` setting, with these bounds."""
    limits = {
        "SEND_BUFFER": send_buffer,
        "SEND_TIMEOUT": send_timeout,
        "MESSAGE_RATE": message_rate,
        "MESSAGE_BURST": message_burst,
    }
    return type("BoundedWebSocketProtocol", (ClosingWebSocketProtocol,), limits)


class ClosingWebSocketProtocol(WebSocketsSansIOProtocol):
    """See the module docstring."""

    SEND_BUFFER = 256 * 1024
    SEND_TIMEOUT = 10.0
    MESSAGE_RATE = 0.0
    MESSAGE_BURST = 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.budget = MessageBudget(self.MESSAGE_RATE, self.MESSAGE_BURST)
        self.late_pong = b""  # the pong of the latest ping that came while not writable
        self.unread = b""  # the rest of a read, parsed once the app has read what came before
        self.deaf = False  # closed for flooding: nothing more is read
        self.stall_timer: asyncio.TimerHandle | None = None
        self.close_timeout = self.SEND_TIMEOUT  # for the peer's close frame, then aborted

    def connection_made(self, transport: Any) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.SEND_BUFFER)
        transport.set_write_buffer_limits(high=self.SEND_BUFFER)
        super().connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.stall_timer is not None:
            self.stall_timer.cancel()
            self.stall_timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.deaf:
            return
        if self.unread:  # reading resumed before the rest was parsed (the app's close)
            data, self.unread = self.unread + data, b""
        if len(data) <= SLICE:  # the common case: one slice
            super().data_received(data)
        else:
            self.parse(data)

    def parse(self, data: bytes) -> None:
        """Parse a slice of ``data``, and the rest later (reading paused meanwhile): on the
        loop's next turn, or once the app has read the messages it was given (``receive``)."""
        super().data_received(data[:SLICE])
        rest = data[SLICE:]
        if not rest or self.transport.is_closing() or self.deaf:
            return
        self.unread = rest
        if not self.read_paused:  # else uvicorn paused reading until the app has read
            self.transport.pause_reading()
            self.loop.call_soon(self.parse_rest)

    def parse_rest(self) -> None:
        """Go on parsing the rest of a read, unless the app has messages to read first."""
        if self.unread and not self.read_paused and not self.transport.is_closing():
            data, self.unread = self.unread, b""
            self.transport.resume_reading()
            self.parse(data)

    async def receive(self) -> Any:
        """uvicorn's, but a message that was already waiting lets every other connection have
        its turn first: the app answers one message of a flood a turn."""
        if not self.queue.empty():
            await asyncio.sleep(0)
        message = await self.queue.get()
        if self.read_paused and self.queue.empty():  # as uvicorn's: the app has read all
            self.read_paused = False
            self.transport.resume_reading()
        if self.unread and not self.read_paused:
            data, self.unread = self.unread, b""
            self.parse(data)
        return message

    def handle_pong(self, event: Any) -> None:
        if self.budget.spend() and self.budget.broken:
            self.too_many()
        else:
            super().handle_pong(event)

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        if self.handshake_initiated and not self.close_sent:
            extensions: dict[str, Any] = self.scope["extensions"]
            extensions[BUDGET] = self.budget

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.stall_timer is None:
            self.stall_timer = self.loop.call_later(2 * self.SEND_TIMEOUT, self.transport.abort)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.stall_timer is not None:
            self.stall_timer.cancel()
            self.stall_timer = None
        if self.late_pong and not self.close_sent and not self.transport.is_closing():
            self.transport.write(self.late_pong)
        self.late_pong = b""

    def handle_ping(self) -> None:
        """Answer the pings parsed (the pongs websockets made for them), within the budget
        and the bound (see the module docstring)."""
        frames = self.conn.data_to_send()
        pongs = [frame for frame in frames if frame[:1] == PONG]
        if len(pongs) < len(frames):  # a close echoed in the same read: uvicorn's to write
            self.transport.write(b"".join(f for f in frames if f[:1] != PONG))
        if self.budget.spend():
            if self.budget.broken:
                self.too_many()
        elif self.writable.is_set():
            self.transport.write(b"".join(pongs))
        elif pongs:
            self.late_pong = pongs[-1]

    def too_many(self) -> None:
        """Close a socket that went on pinging for a whole burst over its budget (4429); the
        app is told at once."""
        if self.close_sent:
            return
        reason = "too many messages: the socket went on sending over its budget"
        self.queue.put_nowait({"type": "websocket.disconnect", "code": TOO_MANY, "reason": reason})
        self.conn.send_close(TOO_MANY, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        if self.writable.is_set():
            self.stop_reading()
            self.abort_later()
        else:
            self.transport.abort()

    def stop_reading(self) -> None:
        """Read nothing more of a socket closed for flooding: its close frame is on its way,
        and what it sends meanwhile is not worth parsing."""
        self.unread, self.deaf = b"", True
        self.transport.pause_reading()

    def abort_later(self) -> None:
        """Abort the connection if it is still open ``close_timeout`` seconds from now (uvicorn
        closes it then, which waits for the buffer to drain: forever for a client that
        stopped reading)."""
        if self.close_timer is not None:
            self.close_timer.cancel()
        self.close_timer = self.loop.call_later(self.close_timeout, self.transport.abort)

    def handle_close(self, event: Any) -> None:
        super().handle_close(event)
        if self.transport.is_closing():
            self.abort_later()

    def keepalive_timeout(self) -> None:
        """uvicorn's, but aborted: its close would wait for a buffer that a client that
        stopped reading never drains."""
        super().keepalive_timeout()
        self.transport.abort()

    async def send(self, message: Any) -> None:
        if self.close_sent and message["type"] == "websocket.send":
            raise ClientDisconnected()  # closed by the server (4429, keep-alive): gone
        stalled = not self.writable.is_set() and self.handshake_complete and not self.close_sent
        if message["type"] != "websocket.close" or not stalled or self.transport.is_closing():
            if stalled:
                async with asyncio.timeout(self.SEND_TIMEOUT):
                    await self.writable.wait()
            await super().send(message)
            if message["type"] == "websocket.close" and self.close_sent:
                self.abort_later()
                if message.get("code") == TOO_MANY:
                    self.stop_reading()
            return
        code, reason = message.get("code", 1000), message.get("reason", "") or ""
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
        self.conn.send_close(code, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.abort_later()

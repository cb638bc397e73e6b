"""uvicorn's sans-I/O WebSocket protocol, with a bounded send buffer, a send that waits a
bounded time for a stalled reader, and a close that never waits for one.

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
``ABORT_SECONDS``. A client that reads again gets what was buffered, then the close frame with
the app's code (``4409`` for a socket that could not be sent to: ``service.api.socket``).

It subclasses a uvicorn internal, as ``service.http_limits`` does: uvicorn is pinned in
pyproject.toml to the versions this was tested with.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

ABORT_SECONDS = 10.0


def bounded_socket_protocol(
    send_buffer: int, send_timeout: float
) -> type[WebSocketsSansIOProtocol]:
    """The protocol class for uvicorn's ``ws`` setting, with this send buffer and timeout."""
    limits = {"SEND_BUFFER": send_buffer, "SEND_TIMEOUT": send_timeout}
    return type("BoundedWebSocketProtocol", (ClosingWebSocketProtocol,), limits)


class ClosingWebSocketProtocol(WebSocketsSansIOProtocol):
    """See the module docstring."""

    SEND_BUFFER = 256 * 1024
    SEND_TIMEOUT = 10.0

    def connection_made(self, transport: Any) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.SEND_BUFFER)
        transport.set_write_buffer_limits(high=self.SEND_BUFFER)
        super().connection_made(transport)

    async def send(self, message: Any) -> None:
        stalled = not self.writable.is_set() and self.handshake_complete and not self.close_sent
        if message["type"] != "websocket.close" or not stalled or self.transport.is_closing():
            if stalled:
                async with asyncio.timeout(self.SEND_TIMEOUT):
                    await self.writable.wait()
            await super().send(message)
            return
        code, reason = message.get("code", 1000), message.get("reason", "") or ""
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
        self.conn.send_close(code, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.close_timer = self.loop.call_later(ABORT_SECONDS, self.transport.abort)

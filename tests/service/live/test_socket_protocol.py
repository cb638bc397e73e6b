"""service/socket_protocol.py against a peer that never reads: the protocol on a transport
whose buffer never drains (as uvicorn's own tests drive it), so what it writes, pauses and
aborts is seen frame by frame.

- The pongs of a flood of pings stop at the send buffer's bound; once it drains, the latest
  ping is answered, once.
- A connection whose buffer stays over the bound is aborted, and the app is told.
- A socket whose keep-alive ping goes unanswered is aborted (uvicorn's close would wait for
  the buffer to drain: forever here), and the app is told.
"""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.server import ServerState

from service.socket_protocol import bounded_socket_protocol
from tests.waiting import wait_until_async

SEND_BUFFER = 4096
UPGRADE = (
    b"GET /socket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
PING = b"\x89\x80\0\0\0\0"  # a client's ping, empty, masked with a zero key


class StuckTransport(asyncio.Transport):
    """A transport to a peer that never reads: everything written stays buffered."""

    def __init__(self, protocol: Any) -> None:
        super().__init__()
        self.protocol, self.buffered, self.high = protocol, 0, 65536
        self.frames: list[bytes] = []
        self.closing = self.aborted = self.paused = False

    def write(self, data: Any) -> None:
        self.frames.append(bytes(data))
        before, self.buffered = self.buffered, self.buffered + len(data)
        if before <= self.high < self.buffered:
            self.protocol.pause_writing()

    def drain(self) -> None:
        """The peer reads everything at last."""
        self.buffered, self.frames = 0, []
        self.protocol.resume_writing()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self.high = high if high is not None else self.high

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 8000) if name in ("sockname", "peername") else default

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:  # waits for the buffer to drain: never
        self.closing = True

    def abort(self) -> None:
        if not self.aborted:
            self.closing = self.aborted = True
            asyncio.get_running_loop().call_soon(self.protocol.connection_lost, None)

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False


async def opened(seen: list[dict[str, Any]], send_timeout: float = 10.0) -> Any:
    """A protocol whose app accepts the socket, then records what it receives until told the
    socket is gone; its transport, after the upgrade."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        while (message := await receive())["type"] != "websocket.disconnect":
            seen.append(message)
        seen.append(message)

    config = uvicorn.Config(app, ws_ping_interval=20.0, ws_ping_timeout=20.0)
    config.load()
    protocol_class = bounded_socket_protocol(SEND_BUFFER, send_timeout)
    protocol = protocol_class(config=config, server_state=ServerState(), app_state={})
    transport = StuckTransport(protocol)
    protocol.connection_made(transport)
    protocol.data_received(UPGRADE)
    for _ in range(10):
        await asyncio.sleep(0)
    assert transport.frames and transport.frames[0].startswith(b"HTTP/1.1 101"), transport.frames
    return protocol, transport


def test_pongs_stop_at_the_send_buffers_bound_and_the_latest_is_answered_once_drained() -> None:
    async def flood() -> tuple[int, list[bytes], bool]:
        protocol, transport = await opened([])
        for _ in range(100):
            protocol.data_received(PING * 1000)
            await asyncio.sleep(0)
        buffered = transport.buffered
        transport.drain()
        return buffered, transport.frames, transport.aborted

    buffered, after_drain, aborted = asyncio.run(flood())
    assert buffered <= 2 * SEND_BUFFER, f"{buffered:,} bytes buffered for 100,000 pings"
    assert after_drain == [b"\x8a\x00"]  # one pong, for the latest ping
    assert not aborted


def test_a_connection_whose_buffer_stays_over_the_bound_is_aborted() -> None:
    async def stuck() -> tuple[bool, list[dict[str, Any]]]:
        seen: list[dict[str, Any]] = []
        protocol, transport = await opened(seen, send_timeout=0.01)
        protocol.data_received(PING * 5000)  # pongs beyond the bound
        await wait_until_async(lambda: seen, timeout=5, message="the app was never told")
        return transport.aborted, seen

    aborted, seen = asyncio.run(stuck())
    assert aborted
    assert seen and seen[-1]["type"] == "websocket.disconnect"


def test_a_socket_whose_keep_alive_ping_is_not_answered_is_aborted() -> None:
    async def unanswered() -> tuple[bool, list[dict[str, Any]]]:
        seen: list[dict[str, Any]] = []
        protocol, transport = await opened(seen)
        protocol.send_keepalive_ping()
        protocol.keepalive_timeout()  # its pong did not come
        for _ in range(10):
            await asyncio.sleep(0)
        return transport.aborted, seen

    aborted, seen = asyncio.run(unanswered())
    assert aborted, "the keep-alive closed the socket, which waits for a buffer never drained"
    assert seen and seen[-1]["type"] == "websocket.disconnect"

"""The client's game sockets, sync and async, lose none of the events that come in the same
read as the welcome: a tiny server answers the hello with the welcome and an events frame in
one write, so both arrive together before the caller asks for events."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import socket
import threading
from collections.abc import Iterator

import pytest
from tabula_client import AsyncGameSocket, GameSocket

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def event(version: int) -> dict[str, object]:
    return {
        "type": "TurnPassed", "data": {"seat": 0, "reason": "no legal move"}, "by": "server",
        "game_id": "g", "version": version, "at": "", "prev_hash": "", "hash": "",
    }  # fmt: skip


def frame(message: dict[str, object]) -> bytes:
    """An unmasked text frame (server to client)."""
    payload = json.dumps(message).encode()
    assert len(payload) < 65536
    size = bytes([len(payload)]) if len(payload) < 126 else b"\x7e" + len(payload).to_bytes(2)
    return b"\x81" + size + payload


def answer(connection: socket.socket) -> None:
    """Upgrade, read the hello, then send the welcome and two events in one write; answer the
    client's close."""
    with connection:
        request = b""
        while b"\r\n\r\n" not in request:
            request += connection.recv(4096)
        key = next(
            line.split(b":", 1)[1].strip()
            for line in request.split(b"\r\n")
            if line.lower().startswith(b"sec-websocket-key:")
        )
        accept = base64.b64encode(hashlib.sha1(key + GUID.encode()).digest())
        connection.sendall(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n"
        )
        connection.recv(4096)  # the hello
        welcome = {"type": "welcome", "role": "spectator", "seat": None, "version": 2}
        events = {"type": "events", "events": [event(1), event(2)]}
        connection.sendall(frame(welcome) + frame(events))
        if connection.recv(4096):  # the client's close, answered
            connection.sendall(b"\x88\x00")


@pytest.fixture
def server_url() -> Iterator[str]:
    """A server that answers every connection as ``answer`` does."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=answer, args=(connection,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{port}"
    listener.close()


def test_the_sync_socket_keeps_the_events_of_the_welcomes_read(server_url: str) -> None:
    with GameSocket(server_url, "g", None, reconnect=False) as live:
        assert live.welcome.version == 2
        assert [e.version for e in live.events(timeout=0.2)] == [1, 2]
        assert live.version == 2


def test_the_async_socket_keeps_the_events_of_the_welcomes_read(server_url: str) -> None:
    async def scenario() -> list[int]:
        async with AsyncGameSocket(server_url, "g", None, reconnect=False) as live:
            assert live.welcome.version == 2
            return [e.version async for e in live.events(timeout=0.2)]

    assert asyncio.run(scenario()) == [1, 2]

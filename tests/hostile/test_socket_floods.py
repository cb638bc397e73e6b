"""The game socket against floods (issue 44, items 1 to 3), on the real server.

- A socket sending JSON pings as fast as it can is answered within its budget of messages,
  then refused ``rate-limited``, then closed with 4429.
- While a socket floods (with no budget, so that it goes on), another client's ``/health``
  is answered all along: the socket's loop gives the others their turn.
- A socket sending protocol PING frames and never reading neither grows the server nor keeps
  its stream slot: with the budget it is closed at once; without it, its pongs stop at the
  send buffer's bound and it is aborted once that buffer stays full.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, suppress
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from bench.harness import JSON_PINGS, PING_FRAMES, raw_websocket
from tests.hostile.conftest import Server
from tests.waiting import wait_until

Start = Callable[..., AbstractContextManager[Server]]
QUOTA = 2
FLOOD_BYTES = 64 << 20  # a flood the server does not stop goes on this long (tens of seconds)
FLOOD_MESSAGES = 100_000  # ... or this many JSON pings


def new_game(server: Server) -> str:
    seats = [{"name": "A"}, {"name": "B"}]
    reply = httpx.post(f"{server.url}/games", json={"ruleset": "race35", "seats": seats})
    assert reply.status_code == 201, reply.text
    return str(reply.json()["id"])


@contextmanager
def said_hello(server: Server, game_id: str) -> Iterator[ClientConnection]:
    """A socket on the game as a spectator, its welcome read (fails on any other answer)."""
    url = f"ws://{server.host}:{server.port}/games/{game_id}/socket"
    with connect(url, open_timeout=10, close_timeout=1) as ws:
        ws.send(json.dumps({"type": "hello", "token": None}))
        welcome = json.loads(ws.recv(timeout=10))
        assert welcome["type"] == "welcome", welcome
        yield ws


def raw_socket(server: Server, game_id: str, receive_buffer: int = 0) -> socket.socket:
    """A WebSocket over a plain socket that has said hello (its replies left unread)."""
    sock, head = raw_websocket(server.host, server.port, game_id, receive_buffer)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def flood(sock: socket.socket, data: bytes, limit: int = FLOOD_BYTES) -> int:
    """Send ``data`` again and again until the server ends the connection or ``limit`` bytes
    have gone; the bytes sent."""
    sent = 0
    try:
        while sent < limit:
            sock.sendall(data)
            sent += len(data)
    except OSError:  # reset or broken pipe: the server let the socket go
        pass
    return sent


def ping_forever(ws: ClientConnection) -> None:
    """Send JSON pings on ``ws`` without waiting for their pongs, until it closes."""
    with suppress(ConnectionClosed):
        while True:
            ws.send('{"type": "ping", "ref": "f"}')


def full_quota_opens(server: Server, game_id: str) -> bool:
    """Whether this address opens its ``QUOTA`` sockets now."""
    with ExitStack() as opened:
        try:
            for _ in range(QUOTA):
                opened.enter_context(said_hello(server, game_id))
        except (ConnectionClosed, AssertionError):
            return False
    return True


def test_a_flood_of_json_pings_is_refused_then_closed_4429(server: Server) -> None:
    game_id = new_game(server)
    with said_hello(server, game_id) as ws:
        sending = threading.Thread(target=ping_forever, args=(ws,), daemon=True)
        sending.start()
        seen: list[dict[str, Any]] = []
        with pytest.raises(ConnectionClosed) as closed:
            while len(seen) < FLOOD_MESSAGES:
                seen.append(json.loads(ws.recv(timeout=30)))
        sending.join(timeout=30)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
    kinds = [message["type"] for message in seen if message["type"] != "events"]  # pushes
    assert kinds[0] == "pong" and kinds.count("pong") >= 1000  # the burst
    refused = [message for message in seen if message["type"] == "refused"]
    assert refused, "no message was refused before the close"
    problem = refused[0]["problem"]
    assert problem["type"].endswith("/rate-limited") and problem["status"] == 429
    assert refused[0]["ref"] == "f" and problem["retry_after"] >= 1
    assert kinds.index("refused") > kinds.index("pong")
    assert httpx.get(f"{server.url}/health").status_code == 200


def test_while_a_socket_floods_other_clients_are_answered(start_server: Start) -> None:
    with start_server(env={"TABULA_SOCKET_MESSAGE_RATE": "0"}) as server:  # it floods on
        game_id = new_game(server)
        sock = raw_socket(server, game_id)
        stop, answered_flood = threading.Event(), threading.Event()

        def read() -> None:  # the flood reads every pong, as fast as they come
            with sock, suppress(OSError):
                while not stop.is_set() and sock.recv(1 << 16):
                    answered_flood.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        sender = threading.Thread(target=flood, args=(sock, JSON_PINGS), daemon=True)
        sender.start()
        assert answered_flood.wait(10), "the flood was never answered"  # it is under way
        answered, deadline = 0, time.monotonic() + 3
        with httpx.Client(base_url=server.url, timeout=10) as client:
            while time.monotonic() < deadline:
                answered += client.get("/health").status_code == 200
        flooding = sender.is_alive()
        stop.set()
        sock.shutdown(socket.SHUT_RDWR)
        sender.join(timeout=30)
    assert flooding, "the flood ended before the health checks did"
    assert answered >= 100, f"/health answered {answered} times in 3 s of a socket's flood"


def test_ping_frames_never_read_are_closed_and_the_slot_freed(start_server: Start) -> None:
    env = {"TABULA_MAX_STREAMS_PER_CLIENT": str(QUOTA), "TABULA_SOCKET_SEND_TIMEOUT": "1"}
    with start_server(env=env) as server:
        game_id = new_game(server)
        assert full_quota_opens(server, game_id)
        before = server.rss_kib()
        with raw_socket(server, game_id, receive_buffer=4096) as sock:
            sent = flood(sock, PING_FRAMES)
            grown = server.rss_kib() - before
            wait_until(lambda: full_quota_opens(server, game_id), timeout=10, interval=0.2)
    assert sent < FLOOD_BYTES, "the server never let the flooding socket go"
    assert grown < 20 * 1024, f"the server grew {grown / 1024:.0f} MiB"


def test_ping_frames_never_read_without_a_budget_are_bounded_and_aborted(
    start_server: Start,
) -> None:
    env = {
        "TABULA_MAX_STREAMS_PER_CLIENT": str(QUOTA),
        "TABULA_SOCKET_MESSAGE_RATE": "0",
        "TABULA_SOCKET_SEND_BUFFER": "4096",
        "TABULA_SOCKET_SEND_TIMEOUT": "1",
    }
    with start_server(env=env) as server:
        game_id = new_game(server)
        before = server.rss_kib()
        with raw_socket(server, game_id, receive_buffer=4096) as sock:
            began = time.monotonic()
            sent = flood(sock, PING_FRAMES)
            seconds = time.monotonic() - began
            grown = server.rss_kib() - before
            wait_until(lambda: full_quota_opens(server, game_id), timeout=10, interval=0.2)
    assert sent < FLOOD_BYTES, f"the flooding socket was not let go in {seconds:.0f} s"
    assert grown < 20 * 1024, f"the server grew {grown / 1024:.0f} MiB"

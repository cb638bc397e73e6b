"""Event streams against hostile clients (issue 16, items 2 and 3), on the real server.

- A stream's slot is given back however its client goes: closed before the first byte, closed
  in the middle, reset (``SO_LINGER`` 0) before or during the stream, or half-closed
  (``shutdown(SHUT_WR)``); afterwards the address opens its full quota again.
- Streams are capped per client address and in total, each a 429 ``rate-limited`` problem
  with ``Retry-After`` before any stream starts.
- Streams sleep until an append wakes them: an append reaches an open stream at once, and
  idle streams cost the server next to no CPU.
"""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack

import httpx
import pytest

from tests.hostile.conftest import Server
from tests.waiting import wait_until

QUOTA = 4
ROUNDS = 3  # each bad close is made this many times the quota
STREAM_ENV = {"TABULA_MAX_STREAMS_PER_CLIENT": str(QUOTA)}
Start = Callable[..., AbstractContextManager[Server]]


@pytest.fixture
def quota_server(start_server: Start) -> Iterator[Server]:
    """A server allowing ``QUOTA`` open streams per client."""
    with start_server(env=STREAM_ENV) as server:
        yield server


def new_game(server: Server) -> dict[str, object]:
    """A running race35 game (its created reply: id, tokens)."""
    seats = [{"name": "A"}, {"name": "B"}]
    reply = httpx.post(f"{server.url}/games", json={"ruleset": "race35", "seats": seats})
    assert reply.status_code == 201, reply.text
    created: dict[str, object] = reply.json()
    return created


def stream_request(game_id: object) -> bytes:
    return f"GET /games/{game_id}/events/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode()


def connect(server: Server, source: str = "127.0.0.1") -> socket.socket:
    """A TCP connection to the server from the loopback address ``source``."""
    sock = socket.create_connection(
        (server.host, server.port), timeout=10, source_address=(source, 0)
    )
    return sock


def read_until(sock: socket.socket, marker: bytes, limit: int = 1 << 16) -> bytes:
    """Bytes from the socket up to and including ``marker`` (fails on EOF or timeout)."""
    data = b""
    while marker not in data:
        chunk = sock.recv(4096)
        assert chunk, f"the server closed the connection; got {data!r}"
        data += chunk
        assert len(data) < limit
    return data


def status_of(sock: socket.socket) -> int:
    """The status of the reply on ``sock`` (reads its head)."""
    head = read_until(sock, b"\r\n\r\n")
    return int(head.split(b" ", 2)[1])


def reset(sock: socket.socket) -> None:
    """Close with a TCP reset (SO_LINGER on, 0 s) instead of a FIN."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def full_quota_opens(server: Server, game_id: object, source: str = "127.0.0.1") -> bool:
    """Whether ``source`` opens exactly ``QUOTA`` streams now (one more is 429)."""
    with ExitStack() as opened:
        for _ in range(QUOTA):
            sock = opened.enter_context(connect(server, source))
            sock.sendall(stream_request(game_id))
            if status_of(sock) != 200:
                return False
        extra = opened.enter_context(connect(server, source))
        extra.sendall(stream_request(game_id))
        assert status_of(extra) == 429
    return True


def quota_comes_back(server: Server, game_id: object, source: str = "127.0.0.1") -> None:
    wait_until(
        lambda: full_quota_opens(server, game_id, source),
        timeout=15,
        interval=0.2,
        message=f"the address never got its {QUOTA} streams back",
    )


ENDINGS: dict[str, Callable[[socket.socket], None]] = {
    "closed": socket.socket.close,
    "reset": reset,
}


@pytest.mark.parametrize("ending", ENDINGS)
def test_streams_ended_before_the_first_byte_give_their_slots_back(
    quota_server: Server, ending: str
) -> None:
    game_id = new_game(quota_server)["id"]
    for _ in range(QUOTA * ROUNDS):
        sock = connect(quota_server)
        sock.sendall(stream_request(game_id))
        ENDINGS[ending](sock)
    quota_comes_back(quota_server, game_id)


@pytest.mark.parametrize("ending", ENDINGS)
def test_streams_ended_in_the_middle_give_their_slots_back(
    quota_server: Server, ending: str
) -> None:
    game_id = new_game(quota_server)["id"]
    for n in range(ROUNDS):  # each from an address of its own
        source = f"127.0.1.{n + 1}"
        socks = [connect(quota_server, source) for _ in range(QUOTA)]
        for sock in socks:
            sock.sendall(stream_request(game_id))
            read_until(sock, b"\nid: 1")  # the stream has begun: its first event came
        for sock in socks:
            ENDINGS[ending](sock)
        quota_comes_back(quota_server, game_id, source)


def test_half_closed_streams_give_their_slots_back(quota_server: Server) -> None:
    game_id = new_game(quota_server)["id"]
    with ExitStack() as kept_open:
        for _ in range(QUOTA * ROUNDS):
            sock = kept_open.enter_context(connect(quota_server))
            sock.sendall(stream_request(game_id))
            sock.shutdown(socket.SHUT_WR)  # done sending; still open for reading
        quota_comes_back(quota_server, game_id)


def test_streams_are_capped_per_client_and_in_total(start_server: Start) -> None:
    env = {"TABULA_MAX_STREAMS_PER_CLIENT": "3", "TABULA_MAX_STREAMS": "5"}
    with start_server(env=env) as server, ExitStack() as opened:
        game_id = new_game(server)["id"]

        def open_from(source: str) -> socket.socket:
            sock = opened.enter_context(connect(server, source))
            sock.sendall(stream_request(game_id))
            return sock

        assert [status_of(open_from("127.0.0.1")) for _ in range(3)] == [200] * 3
        per_client = read_problem(open_from("127.0.0.1"))
        assert (
            per_client["status"] == 429
            and "3 open event streams per client" in per_client["detail"]
        )
        assert [status_of(open_from("127.0.0.2")) for _ in range(2)] == [200] * 2
        total = read_problem(open_from("127.0.0.3"))  # a new address, but the server is full
        assert total["status"] == 429 and "(5)" in total["detail"]
        assert total["retry-after"] == "5" and per_client["retry-after"] == "1"


def read_problem(sock: socket.socket) -> dict[str, str | int]:
    """A refused stream's status, problem type, detail and Retry-After, from its raw reply."""
    data = read_until(sock, b"\r\n\r\n")
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {k.lower(): v for k, _, v in (line.partition(": ") for line in lines[1:])}
    assert headers["content-type"].startswith("application/problem+json"), head
    while len(body) < int(headers["content-length"]):
        chunk = sock.recv(4096)
        assert chunk, f"the body was cut short: {body!r}"
        body += chunk
    problem = httpx.Response(200, content=body).json()
    assert problem["type"].endswith("/rate-limited")
    return {
        "status": int(lines[0].split(" ")[1]),
        "detail": problem["detail"],
        "retry-after": headers["retry-after"],
    }


@pytest.mark.slow
def test_an_append_wakes_an_open_stream_at_once(server: Server) -> None:
    created = new_game(server)
    game_id, referee = created["id"], created["tokens"]["referee"]  # type: ignore[index]
    with connect(server) as sock:
        sock.sendall(stream_request(game_id))
        read_until(sock, b"\nid: 1")
        time.sleep(0.5)  # the stream has read the log and sleeps
        began = time.monotonic()
        moved = httpx.post(
            f"{server.url}/games/{game_id}/moves",
            json={"move": "roll"},
            headers={"Authorization": f"Bearer {referee}"},
        )
        assert moved.status_code == 200, moved.text
        read_until(sock, b"\nid: 2")
        # woken by the append, long before the safety poll (30 s +- 25%) would read the log
        assert time.monotonic() - began < 5.0


IDLE_STREAMS = 200
CPU_SECONDS = 3.0


@pytest.mark.slow
def test_idle_streams_cost_next_to_no_cpu(start_server: Start) -> None:
    env = {"TABULA_MAX_STREAMS_PER_CLIENT": str(IDLE_STREAMS), "TABULA_LOG_LEVEL": "warning"}
    with start_server(env=env) as server, ExitStack() as opened:
        game_id = new_game(server)["id"]
        socks = [opened.enter_context(connect(server)) for _ in range(IDLE_STREAMS)]
        for sock in socks:
            sock.sendall(stream_request(game_id))
        for sock in socks:
            read_until(sock, b"\nid: 1")
        time.sleep(0.5)
        before = server.cpu_seconds()
        time.sleep(CPU_SECONDS)
        share = (server.cpu_seconds() - before) / CPU_SECONDS
        # polling every 0.1 s took 88% of a core with 200 streams; woken on appends, ~1%
        assert share < 0.10, f"{IDLE_STREAMS} idle streams took {share:.0%} of a core"

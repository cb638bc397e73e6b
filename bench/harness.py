"""Shared parts of the HTTP benchmarks: a real server in a subprocess, its RSS, raw fsyncs."""

from __future__ import annotations

import base64
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext, suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import msgspec

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
STARTUP_SECONDS = 20.0
STOP_SECONDS = 30.0


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def server(
    database: Path,
    synchronous: str = "FULL",
    url: str | None = None,
    database_url: str = "",
    workers: int = 1,
) -> Iterator[tuple[str, int]]:
    """Run ``python -m service`` on a free port over ``database`` with ``workers`` processes;
    yield its URL and pid (the parent's, when there are several).

    Given ``url``, use the server already running there instead (pid 0). Given
    ``database_url``, the server runs on that PostgreSQL database instead of the file.
    The server creates games without a budget (``TABULA_CREATE_RATE=0``): the benchmarks
    create them as fast as they can, which is what the budget is there to stop.
    """
    if url is not None:
        yield url, 0
        return
    env = {"TABULA_LOG_LEVEL": "warning", "TABULA_SYNCHRONOUS": synchronous}
    env |= {"TABULA_DATABASE_URL": database_url, "TABULA_CREATE_RATE": "0"}
    env |= {"TABULA_WORKERS": str(workers)}
    with service_process(database, env) as (url, process):
        yield url, process.pid


@contextmanager
def service_process(
    database: Path,
    env: dict[str, str],
    *,
    port: int | None = None,
    root: Path = ROOT,
    log: Path | None = None,
    startup_seconds: float = STARTUP_SECONDS,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Run ``python -m service`` from ``root`` on loopback ``port`` (None: a free one) over
    ``database``, ``env`` added to this process's environment, its output to ``log`` (None:
    this process's); yield its URL and process once it answers /health. When the block ends,
    stop it (SIGTERM, then SIGKILL if it has not exited within STOP_SECONDS).

    The options come before any command, as in every version of the command line (another
    checkout's server too: bench/costs.py ``--root``)."""
    port = port or free_port()
    command = [sys.executable, "-m", "service", "--host", HOST, "--port", str(port)]
    command += ["--database", str(database)]
    with log.open("wb") if log is not None else nullcontext() as output:
        process = subprocess.Popen(
            command, cwd=root, env=os.environ | env, stdout=output, stderr=output
        )
    url = f"http://{HOST}:{port}"
    try:
        wait_until_up(url, process, startup_seconds, log)
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_SECONDS)


@contextmanager
def servers(database_url: str, count: int) -> Iterator[tuple[list[str], list[int]]]:
    """Run ``count`` service processes over one PostgreSQL database; yield their URLs and pids."""
    with ExitStack() as stack:
        started = [
            stack.enter_context(server(Path("unused.db"), database_url=database_url))
            for _ in range(count)
        ]
        yield [url for url, _ in started], [pid for _, pid in started]


@contextmanager
def python_server(code: str) -> Iterator[tuple[str, int]]:
    """``python -c code`` from the project's root, ``code`` a format string whose ``{port}`` is
    a free port it serves on; yield its URL and pid once it answers /health, stop it after."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", code.format(port=port)], cwd=ROOT)
    url = f"http://{HOST}:{port}"
    try:
        wait_until_up(url, process)
        yield url, process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)


def wait_until_up(
    url: str,
    process: subprocess.Popen[bytes],
    timeout: float = STARTUP_SECONDS,
    log: Path | None = None,
) -> None:
    """Poll /health until the server answers (or give up after ``timeout`` seconds); if the
    server exits first, the error holds its output (``log``, where it went)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = f":\n{log.read_text(errors='replace')}" if log is not None else ""
            raise RuntimeError(f"the server exited with {process.returncode}{output}")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"the server at {url} did not come up")


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    """The resident set size of a process, in KiB (Linux /proc); ``field="VmHWM"``: its
    peak so far."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} for pid {pid}")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far, in seconds (Linux /proc)."""
    if pid == 0:
        return float("nan")
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def service_cpu_seconds(pid: int) -> float:
    """``cpu_seconds`` of a service and of its live children (its workers)."""
    spent = cpu_seconds(pid)
    for child in children(pid) if pid else []:
        with suppress(OSError):  # ended meanwhile
            spent += cpu_seconds(child)
    return spent


def children(pid: int) -> list[int]:
    """A process's live children (Linux /proc)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with suppress(OSError):
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def raw_commits_per_second(folder: Path, seconds: float) -> float:
    """One-row durable commits per second: INSERT + COMMIT, WAL, synchronous=FULL."""
    path = folder / "raw-commits.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE IF NOT EXISTS t (n INTEGER, payload TEXT)")
    count, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t VALUES (?, ?)", (count, "x" * 200))
        conn.execute("COMMIT")
        count += 1
    rate = count / (time.perf_counter() - began)
    conn.close()
    return rate


def percentile(values: list[float], fraction: float) -> float:
    """The value below which ``fraction`` of the sorted values lie (nearest rank)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


MINIMAL = "return=minimal"  # benchmarks need a move's next legal moves, not the state


class Client:
    """One keep-alive HTTP/1.1 connection speaking JSON over a plain socket. The bench measures
    the server: http.client parses each reply's head with the email package, about 0.1 ms of
    the client's CPU per request, which on a machine of two cores is taken from the server. So
    the request is written and the reply read here, for just what the server sends (a status
    line, headers with Content-Length, the body)."""

    def __init__(self, url: str, prefer: str | None = MINIMAL) -> None:
        parts = urlsplit(url)
        self.host = f"{parts.hostname or '127.0.0.1'}:{parts.port}"
        self.sock = socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.prefer = f"Prefer: {prefer}\r\n" if prefer else ""
        self.pending = b""

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        """Send one request; return the status and the decoded JSON reply."""
        payload = b"" if body is None else msgspec.json.encode(body)
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
        if token is not None:
            head += f"Authorization: Bearer {token}\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\n{self.prefer}"
        head += f"Content-Length: {len(payload)}\r\n\r\n"
        self.sock.sendall(head.encode() + payload)
        status, reply = self.reply()
        return status, msgspec.json.decode(reply) if reply else None

    def reply(self) -> tuple[int, bytes]:
        """The status and body of the next reply on the connection."""
        data = self.pending
        while (end := data.find(b"\r\n\r\n")) < 0:
            data += self.receive()
        head, data = data[:end], data[end + 4 :]
        lines = head.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        length = next(
            int(line.partition(b":")[2])
            for line in lines
            if line[:15].lower() == b"content-length:"
        )
        while len(data) < length:
            data += self.receive()
        self.pending = data[length:]
        return status, data[:length]

    def receive(self) -> bytes:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        return chunk

    def close(self) -> None:
        self.sock.close()


def ws_frames(opcode: int, payload: bytes, count: int) -> bytes:
    """``count`` client frames of ``opcode`` (masked with a zero key: the payload as it is)."""
    return (bytes([0x80 | opcode, 0x80 | len(payload)]) + b"\0\0\0\0" + payload) * count


JSON_PINGS = ws_frames(0x1, b'{"type":"ping","ref":"f"}', 2000)
"""A flood's read: 2,000 JSON ``ping`` messages."""
PING_FRAMES = ws_frames(0x9, b"", 10_000)
"""A flood's read: 10,000 protocol PING frames."""


def raw_websocket(
    host: str, port: int, game_id: str, receive_buffer: int = 0
) -> tuple[socket.socket, bytes]:
    """A game socket over a plain connection that has said hello as a spectator (what the
    server sends left unread), and the head of the server's answer to the upgrade; a receive
    buffer of ``receive_buffer`` bytes if given (0: the system's)."""
    sock = socket.create_connection((host, port), timeout=10)
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.sendall(
        f"GET /games/{game_id}/socket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    sock.sendall(ws_frames(0x1, b'{"type":"hello","token":null}', 1))
    return sock, head


class WebSocketClient:
    """One WebSocket connection speaking JSON text frames over a plain socket, for the same
    reason as ``Client``: a library's client would spend the machine's second core. It masks
    what it sends (as a client must), reads unmasked frames, answers pings, and fails on a
    close frame."""

    def __init__(self, url: str, path: str) -> None:
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        self.sock = socket.create_connection((host, port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        data = b""
        while (end := data.find(b"\r\n\r\n")) < 0:
            data += self.receive()
        if not data.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(f"no upgrade: {data[:end].decode(errors='replace')}")
        self.pending = data[end + 4 :]

    def send(self, message: Any) -> None:
        """Send one JSON text frame."""
        self.frame(0x1, msgspec.json.encode(message))

    def frame(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        size = len(payload)
        if size < 126:
            head = bytes([0x80 | opcode, 0x80 | size])
        elif size < 65536:
            head = bytes([0x80 | opcode, 0x80 | 126]) + size.to_bytes(2, "big")
        else:
            head = bytes([0x80 | opcode, 0x80 | 127]) + size.to_bytes(8, "big")
        repeated = (mask * (size // 4 + 1))[:size]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(
            size, "big"
        )
        self.sock.sendall(head + mask + masked)

    def recv(self) -> Any:
        """The next JSON text message (pings answered on the way)."""
        while True:
            opcode, payload = self.read_frame()
            if opcode == 0x1:
                return msgspec.json.decode(payload)
            if opcode == 0x9:
                self.frame(0xA, payload)
            elif opcode == 0x8:
                code = int.from_bytes(payload[:2], "big") if payload else 1005
                raise ConnectionError(f"closed by the server: {code} {payload[2:].decode()}")

    def read_frame(self) -> tuple[int, bytes]:
        head = self.take(2)
        opcode, size = head[0] & 0x0F, head[1] & 0x7F
        if size == 126:
            size = int.from_bytes(self.take(2), "big")
        elif size == 127:
            size = int.from_bytes(self.take(8), "big")
        return opcode, self.take(size)

    def take(self, count: int) -> bytes:
        while len(self.pending) < count:
            self.pending += self.receive()
        data, self.pending = self.pending[:count], self.pending[count:]
        return data

    def receive(self) -> bytes:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        return chunk

    def close(self) -> None:
        self.sock.close()

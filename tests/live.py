"""The real app served by uvicorn on a free loopback port, in a background thread."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from litestar import Litestar

from tests.waiting import wait_until


@contextmanager
def serving(app: Litestar) -> Iterator[str]:
    """Serve ``app`` until the block ends; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this; without it each response waits ~40 ms for a delayed ACK.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # The tests' clients share this process (and its GIL) with the server, and on a loaded
    # machine a client thread can sit idle past uvicorn's 5 s keep-alive: its next request then
    # races the server's close and fails ("Server disconnected"), which no test is about.
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_keep_alive=120)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()

    def started() -> bool:
        if not thread.is_alive():
            raise RuntimeError("uvicorn stopped before it started")
        return bool(server.started)

    wait_until(started, timeout=10, message="uvicorn did not start")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()

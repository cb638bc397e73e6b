"""Fixtures: the real app, served by uvicorn in a thread (sync client) or in-process (async)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
import uvicorn
from litestar import Litestar
from tabula_client import Client

from service.app import create_app
from service.settings import Settings


def make_app(folder: Path) -> Litestar:
    """The service over a fresh SQLite file in ``folder``, logging only warnings."""
    return create_app(Settings(database=str(folder / "tabula.db"), log_level="warning"))


@pytest.fixture
def transport(tmp_path: Path) -> httpx.ASGITransport:
    """The ASGI transport into a fresh app, for in-process ``AsyncClient`` tests."""
    # Litestar types its scopes more narrowly than httpx's generic ASGI signature.
    return httpx.ASGITransport(app=cast(Any, make_app(tmp_path)))


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of the real app served by uvicorn on a free port in a background thread."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this; without it each response waits ~40 ms for a delayed ACK.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        make_app(tmp_path_factory.mktemp("server")), log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()


@pytest.fixture
def client(server_url: str) -> Iterator[Client]:
    """A spectator client (no token) against the uvicorn server."""
    with Client(server_url) as spectator:
        yield spectator

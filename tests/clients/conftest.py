"""Fixtures: the real app, served by uvicorn in a thread (sync client) or in-process (async)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from litestar import Litestar
from tabula_client import Client

from service.app import create_app
from service.settings import Settings
from tests.live import serving


def make_app(folder: Path, **settings: Any) -> Litestar:
    """The service over a fresh SQLite file in ``folder``, logging only warnings."""
    return create_app(Settings(database=str(folder / "tabula.db"), log_level="warning", **settings))


@pytest.fixture
def transport(tmp_path: Path) -> httpx.ASGITransport:
    """The ASGI transport into a fresh app, for in-process ``AsyncClient`` tests."""
    # Litestar types its scopes more narrowly than httpx's generic ASGI signature.
    return httpx.ASGITransport(app=cast(Any, make_app(tmp_path)))


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of the real app served by uvicorn on a free port in a background thread,
    shared by the whole session: every client test creates games from one address, so the
    creation budget is out of their way (tests/hostile checks it on a server of its own)."""
    folder = tmp_path_factory.mktemp("server")
    with serving(make_app(folder, create_rate=1000.0, create_burst=100_000)) as url:
        yield url


@pytest.fixture
def client(server_url: str) -> Iterator[Client]:
    """A spectator client (no token) against the uvicorn server."""
    with Client(server_url) as spectator:
        yield spectator

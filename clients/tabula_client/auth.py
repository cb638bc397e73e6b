"""The bearer token as an ``httpx.Auth``: every request a client sends carries it."""

from __future__ import annotations

from collections.abc import Generator

import httpx


class BearerAuth(httpx.Auth):
    """Sends ``Authorization: Bearer <token>`` (a seat's, the referee's or a tournament's
    token, a player's key or an app's key): the only place a key travels, never a URL."""

    def __init__(self, token: str) -> None:
        self.token = token

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self.token}"
        yield request

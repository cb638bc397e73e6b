"""Open event streams: a cap per client address and a cap in total, and a slot that cannot leak.

A stream holds a slot from before its handler runs until its response has been sent, however
it ends: ``stream_slot`` is ASGI middleware of the stream route, so the slot is taken and
given back in one ``try``/``finally`` around the whole request (the handler, the response
start, every event, the close). A client that closes before the first byte, in the middle,
with a reset or a half-close ends the response (Litestar cancels it on ``http.disconnect``),
and the ``finally`` gives the slot back. A refused stream is a 429 ``rate-limited`` problem
with ``Retry-After``, answered by the app's exception handler before any stream starts.

The handler registers its event generator with ``closing``; the middleware closes it in the
same ``finally``, so the stream's subscription to the store ends with the response too, not
whenever the garbage collector finds the generator. A seat's stream of its game makes the
seat present while it runs (``attended``), ending with it the same way.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncGenerator
from contextlib import aclosing, suppress
from typing import Any, TypeVar

from litestar import Litestar, Request
from litestar.types import ASGIApp, Receive, Scope, Send

from service.core.refusal import refuse
from service.usecases.budgets import SharedSlots
from service.usecases.live.presence import Presence

Item = TypeVar("Item")
CLOSING = "tabula.stream"
"""The request state key of the generator the middleware closes."""

CLIENT_RETRY_SECONDS = 1
TOTAL_RETRY_SECONDS = 5


class StreamSlots:
    """Counts open event streams and sockets per client and in total; refuses more than either
    cap. The total is this process's; the cap per client is counted across every process when
    ``shared`` is given (several processes: a slot row per stream, renewed while this process
    lives, so a killed process's slots expire), else in this process alone."""

    def __init__(self, per_client: int, total: int, shared: SharedSlots | None = None) -> None:
        self.per_client, self.total = per_client, total
        self.shared = shared
        self._open: dict[str, int] = {}
        self._held: dict[str, list[str]] = {}  # client: the shared slots this process holds
        self._all = 0
        self._lock = threading.Lock()

    def acquire(self, client: str) -> None:
        """Take a slot for ``client`` or raise a ``rate-limited`` problem (with Retry-After)."""
        with self._lock:
            if self._all >= self.total:
                raise refuse(
                    "rate-limited",
                    f"the server has its most open event streams ({self.total}); "
                    f"retry in {TOTAL_RETRY_SECONDS} s",
                    retry_after=TOTAL_RETRY_SECONDS,
                )
            count = self._open.get(client, 0)
            if count >= self.per_client or not self.shared_slot(client):
                raise refuse(
                    "rate-limited",
                    f"at most {self.per_client} open event streams per client",
                    retry_after=CLIENT_RETRY_SECONDS,
                )
            self._open[client] = count + 1
            self._all += 1

    def shared_slot(self, client: str) -> bool:
        """Take one of ``client``'s slots counted across the processes, if shared; whether
        one was free (True too when the database cannot be asked: this process's count
        stands alone meanwhile). Under the lock."""
        if self.shared is None:
            return True
        holder = self.shared.holder()
        taken = self.shared.acquire(client, holder)
        if taken:
            self._held.setdefault(client, []).append(holder)
        return taken is not False

    def release(self, client: str) -> None:
        """Give back a slot of ``client``."""
        with self._lock:
            count = self._open.get(client, 0)
            if count <= 0:
                return
            if count > 1:
                self._open[client] = count - 1
            else:
                del self._open[client]
            self._all -= 1
            held = self._held.get(client)
            holder = held.pop() if held else None
            if held == []:
                del self._held[client]
        if holder is not None and self.shared is not None:
            self.shared.release(client, holder)

    def count(self, client: str | None = None) -> int:
        """How many streams ``client`` has open (every client's with None)."""
        with self._lock:
            return self._all if client is None else self._open.get(client, 0)


def address(scope: Scope) -> str:
    """The client's address from the scope (as ``limits.client_of`` from a connection): the key
    of the per-client stream cap and of the refusals' budget (``tarpit``)."""
    client = scope.get("client")
    return client[0] if client else "unknown"


def slots_of(scope: Scope) -> StreamSlots:
    """The app's stream slots (``app.state.limits.streams``)."""
    slots: StreamSlots = Litestar.from_scope(scope).state.limits.streams
    return slots


def stream_slot(app: ASGIApp) -> ASGIApp:
    """Route middleware of a stream: hold one slot of the client while the request lasts."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        slots, client = slots_of(scope), address(scope)
        slots.acquire(client)  # a Refusal: the app's exception handler answers 429
        try:
            await app(scope, receive, send)
        finally:
            slots.release(client)
            events: AsyncGenerator[Any, None] | None = scope["state"].pop(CLOSING, None)
            if events is not None:
                with suppress(RuntimeError):  # still running: it ends with its task anyway
                    await events.aclose()

    return middleware


def closing(
    request: Request[Any, Any, Any], events: AsyncGenerator[Item, None]
) -> AsyncGenerator[Item, None]:
    """``events``, to be closed by ``stream_slot`` when the request ends."""
    request.scope["state"][CLOSING] = events
    return events


async def attended(
    request: Request[Any, Any, Any], game_id: str, seat: int, items: AsyncGenerator[Item, None]
) -> AsyncGenerator[Item, None]:
    """``items``, the seat present at its game's table while they stream (``Presence``)."""
    presence: Presence = request.app.state.presence
    leave = presence.attend(game_id, seat)
    try:
        async with aclosing(items):
            async for item in items:
                yield item
    finally:
        leave()

"""Refused callers are slowed down: the tarpit.

A flood of requests that are refused (a made-up token, a body that fails its checks, a
creation over its budget) costs the server little each, but a client that sends the next one
as soon as the refusal arrives gets thousands a second, and everybody else waits behind them.
So each client address has a budget of refusals (``Settings.refusal_rate`` a second, bursts of
``refusal_burst``); past it, each refusal is answered ``REFUSAL_DELAY`` late. A client that
waits for its replies then sends about one request a second per connection, and a
well-behaved client, refused now and then, never notices.

What counts as a refusal: any 4xx reply but 409 (a version conflict is how a race between
two well-behaved players ends). At most ``REFUSALS_DELAYED`` refusals of requests with a
body over 4 KiB wait at once (each holds its body), and ``SMALL_REFUSALS_DELAYED`` others (a
waiting reply costs a timer and a few KiB: holding every connection of a flood keeps it to one
request a second each, where answering at once let it spin); the rest are answered at once
with ``Connection: close``, so a client opening ever more connections pays a handshake for
each refusal.

Behind a proxy every client shares the proxy's address unless ``trusted_proxies`` names it:
then one client's refusals slow other clients' refusals (never their successes). With several
processes an address's refusals are counted once across them (``Limits.refusals``, a
``SharedBucket``); the refusals waiting at once are each process's.
"""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.api.limits import Limits
from service.api.streams import address

SPARED = frozenset({409})
SMALL_BODY = 4096
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def slow_refusals(app: ASGIApp, limits: Limits) -> ASGIApp:
    """``app`` with each client's refusals over its budget answered late."""
    if limits.refusals.rate <= 0:
        return app

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        client = address(scope)

        async def late(message: Message) -> None:
            if (
                message["type"] == "http.response.start"
                and refused(message["status"])
                and limits.refusals.take(client) > 0
                and not await limits.hold_refusal(large(scope))
            ):
                message["headers"] = [*message["headers"], (b"connection", b"close")]
            await send(message)

        await app(scope, receive, late)

    return middleware


def large(scope: Scope) -> bool:
    """Whether a request may hold a body over ``SMALL_BODY`` while its refusal waits: one
    with a body and no Content-Length at most that."""
    length = next((v for k, v in scope["headers"] if k == b"content-length"), None)
    if length is None:
        return scope.get("method") in BODY_METHODS
    return not length.isdigit() or int(length) > SMALL_BODY


def refused(status: int) -> bool:
    """Whether a reply of ``status`` counts against the client's refusal budget."""
    return 400 <= status < 500 and status not in SPARED

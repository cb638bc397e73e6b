"""Limits at the HTTP protocol level: uvicorn's httptools protocol, bounded.

uvicorn's httptools (llhttp) protocol puts no bound on a request head: an endless header or
request line is buffered without end (its pieces are joined by ``+=``, at a quadratic cost),
and a connection may take forever to send its head or its body. ``bounded_protocol(limits)``
is that protocol with

- a head (request line and headers) of at most ``max_head_bytes``, at most
  ``max_header_lines`` header lines: over either, ``431`` and the connection closed, before
  the app sees anything. An unfinished head is cut off at the first read that takes it over
  the limit (a read is at most 256 KiB);
- a head that must be complete within ``head_timeout`` seconds of the connection opening or
  of its first byte after a keep-alive wait: otherwise ``408`` and closed (slowloris);
- a body that must arrive at ``body_min_rate`` bytes a second on average, after a grace of
  ``body_timeout`` seconds from the end of the head: otherwise ``408`` (or, once the app has
  begun its reply, just closed). The app sees the client disconnected.

Everything else is uvicorn's. See docs/design/reliability.md (Protocol limits) for the figures
that chose this over uvicorn's h11 protocol.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import msgspec
import structlog
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from service.api.problems import PROBLEM_BASE
from service.settings import Settings

TESTED_UVICORN = ">=0.54,<0.55"
"""The uvicorn releases this module was tested on: it subclasses uvicorn's private
``HttpToolsProtocol`` (its parser callbacks and ``send_400_response``), which any release may
change. pyproject.toml pins uvicorn to this range, and a test fails on any other."""


class ProtocolLimits(msgspec.Struct, frozen=True):
    """What one connection may send (see the module docstring); from ``Settings``."""

    max_head_bytes: int
    max_header_lines: int
    head_timeout: float
    body_timeout: float
    body_min_rate: float

    @classmethod
    def of(cls, settings: Settings) -> ProtocolLimits:
        return cls(**{name: getattr(settings, name) for name in cls.__struct_fields__})


REFUSALS = {
    431: ("header-too-large", "Request header too large"),
    408: ("request-timeout", "Request took too long to arrive"),
}


class TooLarge(Exception):
    """Raised in a parser callback: the head is over a limit (the parser stops there)."""


def refusal(status: int, detail: str, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """A whole HTTP/1.1 problem+json reply that closes the connection."""
    slug, title = REFUSALS[status]
    body = json.dumps(
        {"type": PROBLEM_BASE + slug, "title": title, "status": status, "detail": detail}
    ).encode()
    head = [STATUS_LINE[status]]
    head += [name + b": " + value + b"\r\n" for name, value in default_headers]
    head += [
        b"content-type: application/problem+json\r\n",
        b"content-length: %d\r\n" % len(body),
        b"x-content-type-options: nosniff\r\n",
        b"connection: close\r\n\r\n",
    ]
    return b"".join(head) + body


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """See the module docstring; ``bounded_protocol`` makes one with its limits."""

    LIMITS: ProtocolLimits

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = self.LIMITS
        self.heads_begun = 0  # messages begun on this connection (llhttp's count)
        self.between_messages = True  # the next byte read begins a message
        self.in_head = False  # a head has begun and is not complete yet
        self.head_bytes = 0  # bytes of the head in progress (whole reads only)
        self.header_count = 0
        self.too_large = ""  # why the head was refused, once it is
        self.timer: asyncio.TimerHandle | None = None
        self.body_began = 0.0
        self.body_bytes = 0
        self.log = structlog.get_logger()

    # -- the connection

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self.arm(self.limits.head_timeout, self.head_too_slow)

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        began, between = self.heads_begun, self.between_messages
        super().data_received(data)
        if self.transport.is_closing() or not self.in_head:
            return
        if self.heads_begun != began and not between:
            # A pipelined head began inside this read, after the end of the message
            # before it: the part of the read that is head is not known, and at most
            # one read (256 KiB), so it is left out of the count.
            return
        self.head_bytes += len(data)
        if self.head_bytes > self.limits.max_head_bytes:
            self.refuse(431, f"the request head is over {self.limits.max_head_bytes} bytes")

    # -- parser callbacks

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.heads_begun += 1
        self.between_messages = False
        self.in_head, self.head_bytes, self.header_count = True, 0, 0
        if self.timer is None:  # a keep-alive connection's next request
            self.arm(self.limits.head_timeout, self.head_too_slow)

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > self.limits.max_head_bytes:
            self.stop(f"the request line is over {self.limits.max_head_bytes} bytes")

    def on_header(self, name: bytes, value: bytes) -> None:
        super().on_header(name, value)
        self.header_count += 1
        if self.header_count > self.limits.max_header_lines:
            self.stop(f"more than {self.limits.max_header_lines} header lines")

    def on_headers_complete(self) -> None:
        size = len(self.url) + sum(len(n) + len(v) + 4 for n, v in self.headers)
        if size > self.limits.max_head_bytes:
            self.stop(f"the request head is over {self.limits.max_head_bytes} bytes")
        self.in_head = False
        self.disarm()
        super().on_headers_complete()
        self.body_began, self.body_bytes = time.monotonic(), 0
        self.arm(self.limits.body_timeout, self.body_too_slow)

    def on_body(self, body: bytes) -> None:
        self.body_bytes += len(body)
        super().on_body(body)

    def on_message_complete(self) -> None:
        self.between_messages = True
        self.disarm()
        super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a parser error: 431 when the error was a limit."""
        if self.too_large:
            self.refuse(431, self.too_large)
        else:
            super().send_400_response(msg)

    # -- limits

    def stop(self, why: str) -> None:
        """Stop parsing this head: uvicorn answers the parser error (``send_400_response``)."""
        self.too_large = why
        raise TooLarge(why)

    def refuse(self, status: int, detail: str) -> None:
        """Answer ``status`` (unless the app has begun its reply) and close."""
        self.disarm()
        if self.transport.is_closing():
            return
        client = f"{self.client[0]}:{self.client[1]}" if self.client else ""
        self.log.warning("refused", status=status, detail=detail, client=client)
        # The app cannot reply meanwhile: it waits for more body, and is woken only once
        # the connection is lost (then uvicorn drops whatever it sends).
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(refusal(status, detail, self.server_state.default_headers))
        self.transport.close()

    def head_too_slow(self) -> None:
        self.timer = None
        if self.flow.read_paused:  # the server stopped reading, not the client's fault
            self.arm(self.limits.head_timeout, self.head_too_slow)
        elif self.in_head or self.cycle is None or self.cycle.response_complete:
            self.refuse(408, f"no whole request head within {self.limits.head_timeout:g} s")

    def body_too_slow(self) -> None:
        self.timer = None
        allowed = self.limits.body_timeout + self.body_bytes / self.limits.body_min_rate
        left = self.body_began + allowed - time.monotonic()
        if left > 0 or self.flow.read_paused:
            self.arm(max(left, 0.5), self.body_too_slow)
        else:
            self.refuse(
                408,
                f"the body came slower than {self.limits.body_min_rate:g} bytes/s "
                f"(after {self.limits.body_timeout:g} s)",
            )

    def arm(self, seconds: float, then: Any) -> None:
        self.disarm()
        self.timer = self.loop.call_later(seconds, then)

    def disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


def bounded_protocol(limits: ProtocolLimits) -> type[HttpToolsProtocol]:
    """uvicorn's httptools protocol with ``limits`` (a class for ``uvicorn.Config(http=)``)."""
    return type("BoundedHttpToolsProtocol", (BoundedHttpToolsProtocol,), {"LIMITS": limits})

"""Abuse limits: a token bucket on writes, caps on open event streams (``streams.py``), page
and CORS settings.

Each limit is configured in ``Settings``; ``Limits`` holds their live state for one app and is
reached from handlers through ``app.state.limits``.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any

from litestar import Request
from litestar.config.cors import CORSConfig
from litestar.connection import ASGIConnection

from service.api.streams import StreamSlots
from service.core.refusal import refuse
from service.settings import Settings

Clock = Callable[[], float]
CORS_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID", "X-Request-ID"]
CORS_EXPOSED = ["Retry-After", "X-Request-ID"]


class TokenBucket:
    """Per-key token buckets: ``rate`` tokens a second, at most ``burst`` saved up."""

    def __init__(self, rate: float, burst: int, clock: Clock = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, max(burst, 1), clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """Spend one token of ``key``'s bucket: 0 when granted, else seconds until one is due."""
        with self._lock:
            now = self.clock()
            tokens, then = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - then) * self.rate)
            if tokens >= 1:
                self._buckets[key] = (tokens - 1, now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.rate


class Limits:
    """The live state of one app's limits."""

    def __init__(self, settings: Settings, clock: Clock = time.monotonic) -> None:
        self.settings = settings
        self.writes = TokenBucket(settings.write_rate, settings.write_burst, clock)
        self.streams = StreamSlots(settings.max_streams_per_client, settings.max_streams)

    def check_write(self, key: str) -> None:
        """Refuse a write over the rate limit with 429 ``rate-limited`` and Retry-After."""
        if self.settings.write_rate <= 0:
            return
        wait = self.writes.take(key)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise refuse(
                "rate-limited",
                f"too many writes: at most {self.settings.write_rate:g} a second "
                f"(bursts of {self.settings.write_burst}); retry in {seconds} s",
                retry_after=seconds,
            )

    def check_page(self, limit: int | None) -> int:
        """The page size asked for, or the largest allowed; more than that is out of range."""
        largest = self.settings.max_page
        if limit is None:
            return largest
        if limit > largest:
            raise refuse("out-of-range", f"limit={limit} is over the largest page, {largest}")
        return limit


def client_of(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The client's address (the key of per-client limits)."""
    return connection.client.host if connection.client else "unknown"


def writer_of(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The key of the write rate limit: the bearer token if any, else the client's address."""
    header = connection.headers.get("authorization", "")
    return "token:" + header if header else "client:" + client_of(connection)


async def write_limit(request: Request[Any, Any, Any]) -> None:
    """Run before every write route: the per-token rate limit. A hook, not a guard: Litestar
    copies the handler for each guard call, which cost a write more than the check itself."""
    limits: Limits = request.app.state.limits
    limits.check_write(writer_of(request))


def cors_config(settings: Settings) -> CORSConfig | None:
    """CORS for the configured origins (comma-separated), or None (no CORS headers) when unset."""
    origins = [o.strip() for o in settings.cors_origins.split(",") if o.strip()]
    if not origins:
        return None
    return CORSConfig(
        allow_origins=origins,
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=CORS_HEADERS,
        expose_headers=CORS_EXPOSED,
    )

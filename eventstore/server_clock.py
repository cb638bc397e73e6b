"""A clock that follows the PostgreSQL server's: the time of every process over one database
is the database server's, whatever each host's own clock says.

It reads the server's ``clock_timestamp()`` once when made, and again when it is asked the
time more than ``SYNC_SECONDS`` after its latest reading (on a short-lived thread, with a
short connection: no thread or connection stays open between readings), taking the reading
as the server's time at the middle of the round trip. Between readings it counts forward
with the host's monotonic clock, which no step of the host's wall clock moves. Several
application hosts then stamp events and judge deadlines on one time, within a round trip of
each other, even when one host's clock is stepped by minutes.

Until its first reading succeeds (the server unreachable when the process starts) it is the
``fallback`` clock. A reading that fails keeps the one before, and is tried again
``RETRY_SECONDS`` later.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import psycopg

from .clock import utcnow

SYNC_SECONDS = 10.0
RETRY_SECONDS = 1.0  # a failed reading is tried again after this


class ServerClock:
    """The PostgreSQL server's time at ``url``, counted forward on the monotonic clock."""

    def __init__(
        self,
        url: str,
        timeout: float = 5.0,
        fallback: Callable[[], datetime] = utcnow,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url, self.timeout = url, timeout
        self.fallback, self.monotonic = fallback, monotonic
        self.anchor: tuple[float, datetime] | None = None  # (monotonic, server time) read
        self._syncing = threading.Lock()
        self.failed_at = None if self.sync() else monotonic()  # the latest failed reading's

    def __call__(self) -> datetime:
        anchor = self.anchor
        now = self.monotonic()
        if self._due(now) and not self._syncing.locked():
            threading.Thread(target=self._sync_once, daemon=True, name="server-clock").start()
        if anchor is None:
            return self.fallback()
        at, server = anchor
        return server + timedelta(seconds=now - at)

    def _due(self, now: float) -> bool:
        """Whether to read the server's time again: none read, or the latest reading
        ``SYNC_SECONDS`` old, and no reading failed within the last ``RETRY_SECONDS``."""
        stale = self.anchor is None or now - self.anchor[0] > SYNC_SECONDS
        return stale and (self.failed_at is None or now - self.failed_at > RETRY_SECONDS)

    def _sync_once(self) -> None:
        if self._syncing.acquire(blocking=False):
            try:
                self.failed_at = None if self.sync() else self.monotonic()
            finally:
                self._syncing.release()

    def sync(self) -> bool:
        """Read the server's time now; whether it could."""
        try:
            with psycopg.connect(
                self.url, autocommit=True, connect_timeout=max(2, round(self.timeout))
            ) as conn:
                before = self.monotonic()
                row = conn.execute("SELECT clock_timestamp()").fetchone()
                after = self.monotonic()
        except psycopg.Error:
            return False
        if row is None or not isinstance(row[0], datetime):
            return False
        self.anchor = ((before + after) / 2, row[0].astimezone(UTC))
        return True

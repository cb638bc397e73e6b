"""The service's one clock: what every use case and read takes the time from.

The composition root makes it (``clock_of``) and hands the same one to the store (the times
it stamps on events and keys) and to the use cases (deadlines, spectator delays, listings,
ratings), so they never disagree. It is the machine's UTC time, unless the setting
``clock_offset_file`` names a file: then it is the machine's time plus the number of seconds
the file holds (negative: behind), read again whenever the file changes. That file is for
tests of clock skew, which move a whole running service forward and back by writing it; an
empty, missing or unreadable file is an offset of 0.

With the store on PostgreSQL the clock is the database server's instead
(``eventstore.server_clock``): read from the server, counted forward on the monotonic clock,
so every process over one database keeps one time and a host's clock stepped (or its offset
file changed) moves nothing; the machine's clock (with its offset) serves only until the
server's time is first read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime, timedelta

from eventstore import utcnow

MAX_OFFSET_SECONDS = 1000 * 365 * 86_400.0
Clock = Callable[[], datetime]
"""A source of the current time, timezone-aware in UTC."""


class OffsetClock:
    """The machine's time plus the offset in seconds a file holds."""

    def __init__(self, path: str, machine: Clock = utcnow) -> None:
        self.path, self.machine = path, machine
        self.seen: tuple[int, int] | None = None  # the file's (mtime_ns, size) last read
        self.offset = timedelta()

    def __call__(self) -> datetime:
        try:
            status = os.stat(self.path)
            seen = (status.st_mtime_ns, status.st_size)
        except OSError:
            seen = None
        if seen != self.seen:
            self.seen, self.offset = seen, read_offset(self.path)
        return self.machine() + self.offset


def read_offset(path: str) -> timedelta:
    """The offset a clock offset file holds (0 when it is missing, empty, no number, or more
    than a thousand years)."""
    try:
        with open(path, encoding="utf-8") as file:
            seconds = float(file.read().strip() or 0)
        if abs(seconds) > MAX_OFFSET_SECONDS:
            return timedelta()
        return timedelta(seconds=seconds)
    except (OSError, ValueError):  # NaN compares false above and is a ValueError here
        return timedelta()


def clock_of(offset_file: str = "", database_url: str = "", timeout: float = 5.0) -> Clock:
    """The clock the settings ask for: the machine's, or shifted by an offset file; with the
    store on PostgreSQL (``database_url``), the database server's (``ServerClock``), with that
    one until the server's time is first read."""
    machine = OffsetClock(offset_file) if offset_file else utcnow
    if not database_url:
        return machine
    from eventstore.server_clock import ServerClock

    return ServerClock(database_url, timeout, fallback=machine)

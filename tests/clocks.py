"""A clock that tests move by hand (the service's clock is injected: ``service.clock``)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta


class ManualClock:
    """The time a test says: it starts at the machine's time and moves only when told
    (forward or back); safe to read from the service's threads."""

    def __init__(self, start: datetime | None = None) -> None:
        self.moment = start or datetime.now(UTC)
        self.lock = threading.Lock()

    def __call__(self) -> datetime:
        with self.lock:
            return self.moment

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward (back when negative)."""
        with self.lock:
            self.moment += timedelta(seconds=seconds)

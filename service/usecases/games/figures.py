"""What operators watch, as plain numbers: counted cheaply where it happens, everything else
read only when asked (``service.api.metrics`` asks at each scrape)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime

from eventstore import CommitSizes, iso_timestamp
from service.core.clocks import parse_at
from service.usecases.faults import Readiness, readiness
from service.usecases.games.repository import Repository


class Tally:
    """Counts by name (thread-safe): the moves played, by rule set."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def add(self, name: str) -> None:
        with self._lock:
            self._counts[name] = self._counts.get(name, 0) + 1

    def counts(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)


class Figures:
    """One process's figures over its repository and store."""

    def __init__(self, games: Repository, moves: Tally, now: Callable[[], datetime]) -> None:
        self.games, self.moves, self.now = games, moves, now

    def games_in_memory(self) -> int:
        """Games held in memory (the repository's cache)."""
        return self.games.live()

    def sweep_lag(self) -> float:
        """Seconds the earliest deadline not yet enforced is past (0 when none is): how far
        the clock sweeper is behind."""
        now = self.now()
        due = self.games.store.due(iso_timestamp(now), limit=1)
        return max(0.0, (now - parse_at(due[0][1])).total_seconds()) if due else 0.0

    def commit_sizes(self) -> CommitSizes:
        """Events per commit of the store."""
        return self.games.store.commit_sizes()

    def store_faults(self) -> dict[str, int]:
        """Operations the store refused because of a fault of its database, by kind."""
        return self.games.store.faults()

    def readiness(self) -> Readiness:
        """Whether this process can take writes now (``GET /ready``)."""
        return readiness(self.games.store)

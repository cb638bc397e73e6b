"""Events per commit, tallied in plain counts for whoever watches the store.

The store knows no metrics library: it counts, and the service turns the counts into its
metrics when asked. Buckets are powers of two (1, 2, 4, ... 32,768 events); a commit that
appended nothing (a snapshot alone, or only refused or replayed appends) is not counted.
"""

from __future__ import annotations

import threading

import msgspec

BOUNDS = tuple(2**i for i in range(16))


class CommitSizes(msgspec.Struct, frozen=True):
    """How many events the commits that appended any held: ``counts[i]`` commits held more
    than ``bounds[i - 1]`` and at most ``bounds[i]`` events, the last count more than every
    bound; ``events`` is their sum."""

    bounds: tuple[int, ...]
    counts: tuple[int, ...]
    events: int


class CommitTally:
    """Counts commits by the number of events each appended (thread-safe)."""

    def __init__(self) -> None:
        self._counts = [0] * (len(BOUNDS) + 1)
        self._events = 0
        self._lock = threading.Lock()

    def record(self, events: int) -> None:
        """Count one commit that appended ``events`` events (none: not counted)."""
        if events <= 0:
            return
        index = min((events - 1).bit_length(), len(BOUNDS))
        with self._lock:
            self._counts[index] += 1
            self._events += events

    def sizes(self) -> CommitSizes:
        """The counts so far."""
        with self._lock:
            return CommitSizes(BOUNDS, tuple(self._counts), self._events)

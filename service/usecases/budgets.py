"""Per-caller budgets counted once across every process (``eventstore.budgets``), with what each
process keeps to itself to stay cheap and to go on when the database is away.

``SharedBucket`` stands where a process's own token bucket stands (``take(key, cost)``, then
0 or the seconds to wait): it spends from the shared bucket, one UPSERT a request granted.
A key refused is remembered here until its tokens are due, so a flood of requests over the
budget is refused without asking the database again. ``SharedSlots`` counts things held at
once (open streams and sockets, analyses under way, games with bots) per key across the
processes. ``Beat`` renews this process's slots every third of their lease, so a process
killed without a word frees its slots a lease later.

When the database cannot be asked (``StoreError``: the server down, unreachable), each
budget falls back on this process's own count, as a single process counts: a caller may then
get each budget once per process until the database is back, never none at all.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from contextlib import suppress

import structlog

from eventstore import StoreError
from eventstore.budgets import Budgets

__all__ = ["Beat", "Budgets", "SharedBucket", "SharedSlots", "shared_slots"]

Take = Callable[[str, int], float]
"""A process's own bucket: spend ``cost`` of ``key``, 0 or the seconds to wait."""
UNCAPPED = 2**62
REMEMBERED = 100_000
"""Refused keys remembered at most per bucket (the oldest forgotten first)."""


class SharedBucket:
    """A token bucket of ``rate`` a second, bursts of ``burst``, shared by every process on
    ``budgets`` under ``name``; ``local`` is this process's own, used while the database
    cannot be asked."""

    def __init__(self, budgets: Budgets, name: str, rate: float, burst: int, local: Take) -> None:
        self.budgets, self.name = budgets, name
        self.rate, self.burst = rate, max(burst, 1)
        self.local = local
        self.refused: dict[str, float] = {}  # key: monotonic time its tokens are due
        self._lock = threading.Lock()

    def take(self, key: str, cost: int = 1) -> float:
        """Spend ``cost`` tokens of ``key``'s shared bucket: 0 when granted, else the seconds
        until they are due (remembered: asked again before then, refused here)."""
        now = time.monotonic()
        with self._lock:
            due = self.refused.get(key)
            if due is not None:
                if due > now:
                    return due - now
                del self.refused[key]
        try:
            wait = self.budgets.take(self.name, key, cost, self.rate, self.burst)
        except StoreError:
            return self.local(key, cost)
        if wait > 0:
            with self._lock:
                if len(self.refused) >= REMEMBERED:
                    self.forget(now)
                self.refused[key] = now + wait
        return wait

    def forget(self, now: float) -> None:
        """Drop the refusals whose tokens are due, or every one if none is (under the lock)."""
        due = [key for key, at in self.refused.items() if at <= now]
        for key in due or list(self.refused):
            del self.refused[key]


class SharedSlots:
    """At most ``limit`` of something held at once per key (``name``), counted across every
    process; each slot is named by the ``holder`` that takes and gives it back."""

    def __init__(self, budgets: Budgets, name: str, limit: int) -> None:
        self.budgets, self.name, self.limit = budgets, name, limit
        self._numbers = itertools.count()

    def holder(self) -> str:
        """A name for a new slot, unique in this process."""
        return f"{self.name}:{next(self._numbers)}"

    def acquire(self, key: str, holder: str, count: int = 1) -> bool | None:
        """Hold ``count`` slots of ``key`` as ``holder`` if within the limit: whether they
        were taken, or None when the database cannot be asked (the caller counts alone)."""
        try:
            return self.budgets.acquire(self.name, key, holder, self.limit, count)
        except StoreError:
            return None

    def hold(self, key: str, holder: str) -> None:
        """Hold a slot of ``key`` as ``holder`` whatever the count (a thing already let in:
        it counts against the next ones)."""
        try:
            self.budgets.acquire(self.name, key, holder, UNCAPPED)
        except StoreError:
            structlog.get_logger().warning("slot not held", budget=self.name, key=key)

    def release(self, key: str, holder: str, count: int = 1) -> None:
        """Give back the slots ``holder`` took (they expire anyway if the database is away)."""
        try:
            self.budgets.release(self.name, key, holder, count)
        except StoreError:
            structlog.get_logger().warning("slot not given back", budget=self.name, key=key)

    def held(self, key: str) -> int:
        """How many slots of ``key`` every process holds (0 when the database is away)."""
        try:
            return self.budgets.held(self.name, key)
        except StoreError:
            return 0


def shared_slots(budgets: Budgets | None, name: str, limit: int) -> SharedSlots | None:
    """Slots named ``name`` counted across the processes on ``budgets``, if any."""
    return None if budgets is None else SharedSlots(budgets, name, limit)


class Beat:
    """Renews the process's slots every third of their lease, on a thread of its own."""

    def __init__(self, budgets: Budgets) -> None:
        self.budgets = budgets
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True, name="budgets")

    def start(self) -> None:
        """Begin renewing."""
        self.thread.start()

    def run(self) -> None:
        """Renew until stopped (a failure is logged, and tried again at the next beat)."""
        while not self.stopping.wait(self.budgets.lease / 3):
            try:
                self.budgets.renew()
            except StoreError:
                structlog.get_logger().warning("budget slots not renewed")

    def stop(self) -> None:
        """Stop renewing and give every slot of this process back."""
        self.stopping.set()
        if self.thread.is_alive():
            self.thread.join(timeout=5)
        with suppress(StoreError):
            self.budgets.close()

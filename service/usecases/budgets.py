"""Per-caller budgets counted once across every process (``eventstore.budgets``), with what each
process keeps to itself to stay cheap and to go on when the database is away.

``SharedBucket`` stands where a process's own token bucket stands (``take(key, cost)``, then
0 or the seconds to wait): it spends from the shared bucket, one UPSERT a request granted.
A key refused is remembered here until its tokens are due, so a flood of requests over the
budget is refused without asking the database again. ``SharedSlots`` counts things held at
once (open streams and sockets, analyses under way, games with bots) per key across the
processes. ``Beat`` renews this process's slots every third of their lease, so a process
killed without a word frees its slots a lease later.

The database is asked on threads of their own (``Asking``), and an answer is awaited at most
``DEADLINE`` seconds: a check runs on the event loop, which a database slow to answer or cut
off must not hold up. While a question is unanswered past its deadline, none is asked: each
budget falls back at once on this process's own count, as a single process counts, and so it
does while the database cannot be asked (``StoreError``: the server down, unreachable). A
caller may then get each budget once per process until the database answers again, never
none at all. Slots given back are told, not awaited (a slot not given back expires).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as Late
from contextlib import suppress
from typing import Any, TypeVar

import structlog

from eventstore import StoreError
from eventstore.budgets import Budgets

__all__ = ["Asking", "Beat", "Budgets", "SharedBucket", "SharedSlots", "shared_slots"]

T = TypeVar("T")
DEADLINE = 0.25
"""Seconds a budget's question is awaited before this process counts alone."""
THREADS = 1
"""One thread: the questions and news are answered in the order they were asked and told."""

Take = Callable[[str, int], float]
"""A process's own bucket: spend ``cost`` of ``key``, 0 or the seconds to wait."""
UNCAPPED = 2**62
REMEMBERED = 100_000
"""Refused keys remembered at most per bucket (the oldest forgotten first)."""


class Asking:
    """``budgets`` asked on ``THREADS`` thread of its own, each answer awaited at most
    ``deadline`` seconds; None for an answer that did not come (late, or a ``StoreError``)."""

    def __init__(self, budgets: Budgets, deadline: float = DEADLINE) -> None:
        self.budgets, self.deadline = budgets, deadline
        self.pool = ThreadPoolExecutor(THREADS, thread_name_prefix="budgets")
        self.late: Future[Any] | None = None  # a question unanswered past its deadline
        self._lock = threading.Lock()

    def ask(self, question: Callable[[Budgets], T]) -> T | None:
        """The answer to ``question``, or None at once while an earlier one is late."""
        if self.late is not None:
            return None
        try:
            future = self.pool.submit(question, self.budgets)
        except RuntimeError:  # closed: the process is stopping
            return None
        try:
            return future.result(timeout=self.deadline)
        except StoreError:
            return None
        except Late:
            self.overdue(future)
            return None

    def tell(self, news: Callable[[Budgets], object]) -> None:
        """Have ``news`` done, not awaited (a failure is logged; once closed, nothing is
        done: the process's slots go with ``Budgets.close``)."""
        with suppress(RuntimeError):
            self.pool.submit(told, news, self.budgets)

    def overdue(self, future: Future[T]) -> None:
        """Ask nothing more until ``future`` is answered."""
        with self._lock:
            self.late = future
        structlog.get_logger().warning("budgets late: counting in this process alone")
        future.add_done_callback(self.answered)

    def answered(self, future: Future[T]) -> None:
        """A late question was answered: ask again."""
        with self._lock:
            if self.late is future:
                self.late = None

    def close(self) -> None:
        """Stop the threads (a question under way is dropped)."""
        self.pool.shutdown(wait=False, cancel_futures=True)


def told(news: Callable[[Budgets], object], budgets: Budgets) -> None:
    """Do ``news`` on a budgets thread, logging a failure."""
    try:
        news(budgets)
    except StoreError:
        structlog.get_logger().warning("budgets not told", exc_info=True)


class SharedBucket:
    """A token bucket of ``rate`` a second, bursts of ``burst``, shared by every process on
    the budgets ``asking`` asks, under ``name``; ``local`` is this process's own, used while
    the database does not answer."""

    def __init__(self, asking: Asking, name: str, rate: float, burst: int, local: Take) -> None:
        self.asking, self.name = asking, name
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
        wait = self.asking.ask(lambda b: b.take(self.name, key, cost, self.rate, self.burst))
        if wait is None:
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

    def __init__(self, asking: Asking, name: str, limit: int) -> None:
        self.asking, self.name, self.limit = asking, name, limit
        self._numbers = itertools.count()

    def holder(self) -> str:
        """A name for a new slot, unique in this process."""
        return f"{self.name}:{next(self._numbers)}"

    def acquire(self, key: str, holder: str, count: int = 1) -> bool | None:
        """Hold ``count`` slots of ``key`` as ``holder`` if within the limit: whether they
        were taken, or None when the database does not answer (the caller counts alone)."""
        return self.asking.ask(lambda b: b.acquire(self.name, key, holder, self.limit, count))

    def hold(self, key: str, holder: str) -> None:
        """Hold a slot of ``key`` as ``holder`` whatever the count (a thing already let in:
        it counts against the next ones); not awaited."""
        self.asking.tell(lambda b: b.acquire(self.name, key, holder, UNCAPPED))

    def release(self, key: str, holder: str, count: int = 1) -> None:
        """Give back the slots ``holder`` took; not awaited (they expire if never given)."""
        self.asking.tell(lambda b: b.release(self.name, key, holder, count))

    def held(self, key: str) -> int:
        """How many slots of ``key`` every process holds (0 when the database does not
        answer)."""
        return self.asking.ask(lambda b: b.held(self.name, key)) or 0


def shared_slots(asking: Asking | None, name: str, limit: int) -> SharedSlots | None:
    """Slots named ``name`` counted across the processes on the budgets asked, if any."""
    return None if asking is None else SharedSlots(asking, name, limit)


class Beat:
    """Renews the process's slots every third of their lease, on a thread of its own."""

    def __init__(self, asking: Asking) -> None:
        self.asking, self.budgets = asking, asking.budgets
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True, name="budgets-beat")

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
        """Stop renewing and asking, and give every slot of this process back."""
        self.stopping.set()
        if self.thread.is_alive():
            self.thread.join(timeout=5)
        self.asking.close()
        with suppress(StoreError):
            self.budgets.close()

"""Time control: clocks kept from the events' timestamps, enforced by the server.

A seat's clock runs while the seat is pending (to act). ``per_decision`` limits each stretch
between two of the seat's acts; ``total`` limits the sum over the game, plus ``increment`` per
act. When time runs out the server records ``TimeExpired`` and its consequence: the turn
passes (``pass``: a pending move's card or throw is forfeited), a random legal move
(``random_move``, the default) or a forfeit (``forfeit``: every other seat wins).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Literal

import msgspec
import structlog

from domain.model import Pending

Consequence = Literal["pass", "random_move", "forfeit"]


class Clock(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A game's time control, in seconds."""

    per_decision: float | None = None
    total: float | None = None
    increment: float = 0.0
    on_timeout: Consequence = "random_move"


def clock_fault(clock: Clock) -> str | None:
    """Why a new game's clock cannot be used, or None. Checked at creation only, so games
    already stored with such a clock still load."""
    if clock.per_decision is None and clock.total is None:
        return "a clock needs per_decision or total (seconds)"
    for name in ("per_decision", "total"):
        limit = getattr(clock, name)
        if limit is not None and not limit > 0:
            return f"clock {name} must be more than 0 seconds, not {limit}"
    if not clock.increment >= 0:
        return f"clock increment must be 0 seconds or more, not {clock.increment}"
    return None


class ClockState:
    """Each seat's time used and since when it has been pending."""

    def __init__(self, clock: Clock, seats: int) -> None:
        self.clock = clock
        self.used = [0.0] * seats
        self.acts = [0] * seats
        self.since: dict[int, datetime] = {}

    def update(self, at: datetime, by: int | str, pending: list[Pending]) -> None:
        """Account for an event stored at ``at`` by ``by`` after which ``pending`` must act."""
        now_pending = {p.seat for p in pending}
        for seat, started in list(self.since.items()):
            acted = by == seat
            if acted or seat not in now_pending:
                self.used[seat] += (at - started).total_seconds()
                self.acts[seat] += acted
                del self.since[seat]
        for seat in now_pending:
            self.since.setdefault(seat, at)

    def remaining(self, seat: int, now: datetime) -> float | None:
        """Seconds left before ``seat`` runs out (None without a limit)."""
        limits = []
        running = (now - self.since[seat]).total_seconds() if seat in self.since else 0.0
        if self.clock.per_decision is not None:
            limits.append(self.clock.per_decision - running)
        if self.clock.total is not None:
            budget = self.clock.total + self.clock.increment * self.acts[seat]
            limits.append(budget - self.used[seat] - running)
        return min(limits) if limits else None

    def expired(self, now: datetime) -> list[int]:
        """The pending seats whose time has run out."""
        return [
            s
            for s in sorted(self.since)
            if (left := self.remaining(s, now)) is not None and left <= 0
        ]

    def view(self, now: datetime) -> dict[str, object]:
        """The clock as the state view shows it."""
        return {
            **msgspec.to_builtins(self.clock),
            "remaining": [self.remaining(seat, now) for seat in range(len(self.used))],
            "deadlines": {
                str(seat): deadline(now, left)
                for seat in sorted(self.since)
                if (left := self.remaining(seat, now)) is not None
            },
        }


def deadline(now: datetime, left: float) -> str:
    """The moment ``left`` seconds after ``now`` (before it if negative), as the view shows it;
    one past the range of a datetime (a limit of 1e20 s) is shown as the last or first one."""
    try:
        moment = now + timedelta(seconds=left)
    except OverflowError:
        moment = (datetime.max if left > 0 else datetime.min).replace(tzinfo=UTC)
    return moment.isoformat().replace("+00:00", "Z")


def parse_at(at: str) -> datetime:
    """An event's ``at`` timestamp."""
    return datetime.fromisoformat(at.replace("Z", "+00:00"))


class Sweeper:
    """A daemon thread that enforces clocks every ``interval`` seconds."""

    def __init__(self, enforce: Callable[[], object], interval: float = 0.25) -> None:
        self.enforce, self.interval = enforce, interval
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, name="clock-sweeper", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()

    def run(self) -> None:
        """Enforce until stopped; an error is logged, never fatal."""
        while not self.stopping.wait(self.interval):
            try:
                self.enforce()
            except Exception:
                structlog.get_logger().exception("clock sweep failed")

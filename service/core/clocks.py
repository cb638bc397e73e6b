"""Time control: clocks kept from the events' timestamps, enforced by the server.

A seat's clock runs while the seat is pending (to act). ``per_decision`` limits each stretch
between two of the seat's acts; ``total`` limits the sum over the game, plus ``increment`` per
act. When time runs out the server records ``TimeExpired`` and its consequence: the turn
passes (``pass``: a pending move's card or throw is forfeited), a random legal move
(``random_move``, the default), a forfeit (``forfeit``: every other seat wins) or the seat is
handed to a bot (``bot:<level>``), which plays it from then on.

A table's absence rule (``Absence``, ``absent`` in ``CreateGame``) times a seat out the same
way, with the rule's ``then`` as the consequence, when the seat must act and has not been at
the table (``service.usecases.live.presence``) for ``after`` seconds; its consequence's reason
says so (``ABSENT``), which tells it from a clock's when the log is judged again.

Time never runs backwards on a game's clocks: an event stamped before the latest one seen
(the service's clock set back) counts as at that latest time, and a moment before a seat's
turn began uses none of its time, so a clock set back runs nobody out and, once it catches
up, has cost nobody the time it was behind.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

import msgspec

from domain.events import (
    CardDrawn,
    CardExchanged,
    CardsDealt,
    DiceRolled,
    Event,
    GameCreated,
    MovePlayed,
)
from domain.model import ClockView, Pending
from domain.replay import Replay
from service.core.fields import ON_ABSENCE, ON_TIMEOUT

Consequence = Literal["pass", "random_move", "forfeit"]
OnTimeout = Annotated[str, msgspec.Meta(pattern=ON_TIMEOUT)]
"""``on_timeout``: a consequence, or ``bot:<level>`` (the seat is handed to that bot)."""
OnAbsence = Annotated[str, msgspec.Meta(pattern=ON_ABSENCE)]
"""``then``: ``pass``, ``forfeit``, or ``bot:<level>`` (the seat is handed to that bot)."""
ABSENT = "was absent for"
"""What the reason of an absence's consequence says (``absence_reason``)."""


class Clock(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A game's time control, in seconds."""

    per_decision: float | None = None
    total: float | None = None
    increment: float = 0.0
    on_timeout: OnTimeout = "random_move"


class Absence(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A table's absence rule: a seat that must act and has been away for ``after`` seconds
    is timed out as ``then`` says: handed to a bot (``bot:<level>``), every other seat winning
    (``forfeit``) or its turn passed (``pass``)."""

    after: Annotated[float, msgspec.Meta(gt=0)]
    then: OnAbsence


def absence_of(created: GameCreated) -> Absence | None:
    """A game's absence rule, if it has one."""
    return None if created.absent is None else msgspec.convert(created.absent, Absence)


def absence_reason(absence: Absence) -> str:
    """The reason an absence's consequence gives: ``was absent for 60 s``."""
    return f"{ABSENT} {absence.after:g} s"


def by_absence(created: GameCreated, consequence: str, reason: str | None) -> bool:
    """Whether a recorded ``TimeExpired`` with ``consequence``, followed by an event giving
    ``reason`` (None: none follows that gives one, a random move or chance), was the absence
    rule's rather than the clock's: the only one the game has, else what the reason says,
    else the consequence the clock could not have had."""
    if created.absent is None:
        return False
    if created.clock is None:
        return True
    if reason is not None:
        return ABSENT in reason
    on_timeout = msgspec.convert(created.clock, Clock).on_timeout
    return consequence != on_timeout and (consequence, on_timeout) != ("random_move", "pass")


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
        self.latest: datetime | None = None  # the latest event time seen

    def update(self, at: datetime, acted_for: int | None, pending: list[Pending]) -> None:
        """Account for an event stored at ``at``, the act of seat ``acted_for`` (by the seat or
        by the referee for it; None for anything else), after which ``pending`` must act."""
        if self.latest is not None and at < self.latest:
            at = self.latest
        self.latest = at
        now_pending = {p.seat for p in pending}
        for seat, started in list(self.since.items()):
            acted = acted_for == seat
            if acted or seat not in now_pending:
                self.used[seat] += (at - started).total_seconds()
                self.acts[seat] += acted
                del self.since[seat]
        for seat in now_pending:
            self.since.setdefault(seat, at)

    def copy(self) -> ClockState:
        """An independent copy (to try what a write would do)."""
        twin = ClockState(self.clock, len(self.used))
        twin.used, twin.acts, twin.since = list(self.used), list(self.acts), dict(self.since)
        twin.latest = self.latest
        return twin

    def remaining(self, seat: int, now: datetime) -> float | None:
        """Seconds left before ``seat`` runs out (None without a limit)."""
        limits = []
        started = self.since.get(seat)
        running = max((now - started).total_seconds(), 0.0) if started is not None else 0.0
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

    def deadline(self, now: datetime) -> datetime | None:
        """When the first pending seat runs out of time, if any has a limit."""
        left = [x for seat in self.since if (x := self.remaining(seat, now)) is not None]
        return moment(now, min(left)) if left else None

    def view(self, now: datetime) -> ClockView:
        """The clock as the state view shows it."""
        clock = self.clock
        return ClockView(
            clock.per_decision,
            clock.total,
            clock.increment,
            clock.on_timeout,
            remaining=[self.remaining(seat, now) for seat in range(len(self.used))],
            deadlines={
                str(seat): deadline(now, left)
                for seat in sorted(self.since)
                if (left := self.remaining(seat, now)) is not None
            },
        )


def moment(now: datetime, left: float) -> datetime:
    """The moment ``left`` seconds after ``now`` (before it if negative); one past the range of
    a datetime (a limit of 1e20 s) is the last or first one."""
    try:
        return now + timedelta(seconds=left)
    except OverflowError:
        return (datetime.max if left > 0 else datetime.min).replace(tzinfo=UTC)


def deadline(now: datetime, left: float) -> str:
    """The moment ``left`` seconds after ``now``, as the view shows it."""
    return moment(now, left).isoformat().replace("+00:00", "Z")


def parse_at(at: str) -> datetime:
    """An event's ``at`` timestamp."""
    return datetime.fromisoformat(at.replace("Z", "+00:00"))


ACTS = (MovePlayed, CardExchanged, CardDrawn, DiceRolled)


def acted_for(by: int | str, event: Event) -> int | None:
    """The seat whose act ``event`` is: the seat that acted, or the one the referee acted for;
    None for what the server does and for what is nobody's act."""
    if isinstance(by, int):
        return by
    if by in ("referee", "bot") and isinstance(event, ACTS):
        return event.seat
    if by in ("referee", "bot") and isinstance(event, CardsDealt):
        return event.dealer
    return None


def clocked(replay: Replay) -> list[Pending]:
    """The pending seats whose clocks run: those people play (a bot's seat is on no clock);
    none while a table gathers (its clocks start when it does)."""
    if replay.gathering:
        return []
    return [p for p in replay.rules.to_act(replay.state) if replay.bot_of(p.seat) is None]

"""Folding a game's log into its state, undo included (pure).

A game created with open or invited seats gathers (``domain.tables``): its rule state is set
up for every seat at creation, and ``Replay.gathering`` names the seats still to fill; nobody
acts while there are any. A table closed before it started ends the game with no result (the
rule state takes it as a ``GameFinished`` with no winners).

A replay can also start from a snapshot (``Replay.from_snapshot``): one frame with no parents.
Undo needs the frames before the one it returns to, so pushing an undo that reverts past such
a root raises ``MissingHistory``; the caller folds again from an earlier snapshot or the start.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from domain.events import (
    CardDrawn,
    CardExchanged,
    CardsDealt,
    DiceRolled,
    Event,
    GameCreated,
    GameFinished,
    MovePlayed,
    MoveUndone,
    SeatHandedOver,
    SeatPlayer,
    TableClosed,
    TableStarted,
)
from domain.registry import find_ruleset
from domain.ruleset import RuleSet
from domain.tables import Table, seated, table_of

CHANCE_EVENTS = (CardDrawn, CardsDealt, DiceRolled)


SNAPSHOT_EVERY = 64


class Frame(msgspec.Struct, frozen=True):
    """The state after one effective event; ``parent`` is the frame undo returns to. ``by`` is
    who caused the event, as the caller of ``push`` names it (opaque here)."""

    version: int
    state: Any
    chance_count: int
    decision: bool
    parent: Frame | None = None
    by: int | str | None = None
    bots: tuple[str, ...] = ()
    """The level of the bot playing each seat ("" for a person), or () when no bot plays."""
    table: Table | None = None
    """Who sits where at a table that gathered (None for a game created with every seat
    filled)."""

    @property
    def chance(self) -> bool:
        """Whether this frame's event was a chance outcome."""
        before = self.parent.chance_count if self.parent is not None else 0
        return self.chance_count > before


class MissingHistory(Exception):
    """An undo reverts past the frame a replay was restored from: fold from earlier."""

    def __init__(self, reverts: int, root: int) -> None:
        self.reverts = reverts
        self.root = root
        super().__init__(f"undo of version {reverts} reaches before the snapshot at {root}")


class StoredFrame(msgspec.Struct, frozen=True, array_like=True):
    """A frame as a snapshot stores it: the state's own encoding and its counters."""

    version: int
    chance_count: int
    decision: bool
    state: msgspec.Raw
    bots: tuple[str, ...] = ()
    table: Table | None = None


class Replay:
    """A game folded event by event.

    Frames form a chain back to the start, so undo can return to any earlier decision, and a
    snapshot of the whole fold is one frame: one is kept every ``SNAPSHOT_EVERY`` versions.
    """

    def __init__(self, created: GameCreated, top: Frame | None = None, version: int = 1) -> None:
        self.rules: RuleSet[Any] = find_ruleset(created.ruleset, created.ruleset_version)
        self.created = created
        if top is None:
            state = self.rules.setup(created.options, len(created.seats))
            top = Frame(1, state, 0, False, bots=seated_bots(created), table=table_of(created))
        self.top = top
        self.version = version
        self.snapshots: dict[int, Frame] = {}
        self.complete = True
        """Whether the frames reach back to the start (False when restored from a snapshot)."""

    @classmethod
    def from_snapshot(cls, created: GameCreated, version: int, data: bytes) -> Replay:
        """A replay at ``version`` from a snapshot's bytes (``snapshot_bytes``); no parents."""
        replay = cls(created)
        stored = msgspec.msgpack.decode(data, type=StoredFrame)
        state = msgspec.msgpack.decode(stored.state, type=type(replay.state))
        bots = stored.bots or seated_bots(created)  # snapshots saved before bots held none
        counts = (stored.version, state, stored.chance_count, stored.decision)
        replay.top = Frame(*counts, bots=bots, table=stored.table)
        replay.version, replay.complete = version, False
        return replay

    def snapshot_bytes(self) -> bytes:
        """The top frame as a snapshot: msgpack of its version, counters and state."""
        top = self.top
        state = msgspec.Raw(msgspec.msgpack.encode(top.state))
        return msgspec.msgpack.encode(
            StoredFrame(top.version, top.chance_count, top.decision, state, top.bots, top.table)
        )

    @property
    def state(self) -> Any:
        """The current state."""
        return self.top.state

    @property
    def table(self) -> Table | None:
        """Who sits where, for a game that gathered (None for one created with every seat
        filled)."""
        return self.top.table

    @property
    def gathering(self) -> tuple[int, ...]:
        """The seats still to fill (open or kept for an invited player) while the table
        gathers; () when it does not (it started, closed, or never gathered)."""
        table = self.top.table
        return () if table is None else table.gathering

    @property
    def names(self) -> tuple[str, ...]:
        """Each seat's name now ("" for a seat still open)."""
        table = self.top.table
        return self.created.seats if table is None else table.names

    @property
    def players(self) -> tuple[SeatPlayer, ...]:
        """The seats that belong to registered players now: from the creation, or taken by
        joining."""
        table = self.top.table
        return self.created.players if table is None else table.players

    def seat_of(self, handle: str) -> int | None:
        """The seat that belongs to the player ``handle`` now, or while the table gathers the
        seat kept for her invitation; None when neither."""
        for owned in self.players:
            if owned.handle == handle:
                return owned.seat
        table = self.top.table
        if table is not None and not table.started and not table.closed:
            for invite in table.invites:
                if invite.handle == handle:
                    return invite.seat
        return None

    def bot_of(self, seat: int) -> str | None:
        """The level of the bot playing ``seat`` now, or None when a person plays it."""
        bots = self.top.bots
        return bots[seat] or None if 0 <= seat < len(bots) else None

    @property
    def chance_count(self) -> int:
        """Chance outcomes in the effective (not undone) history."""
        return self.top.chance_count

    def push(self, version: int, event: Event, by: int | str | None = None) -> None:
        """Fold one more event (stored at ``version``, caused by ``by``); MissingHistory if
        undo needs more."""
        top = self.top
        if isinstance(event, MoveUndone):
            while top.parent is not None and top.version >= event.reverts:
                top = top.parent
            if top.version >= event.reverts:
                raise MissingHistory(event.reverts, top.version)
        else:
            count = top.chance_count + isinstance(event, CHANCE_EVENTS)
            state = self.rules.apply(top.state, ruled(event))
            bots = handed_over(top.bots, event, len(self.created.seats))
            table = top.table if top.table is None else seated(top.table, event)
            top = Frame(version, state, count, is_decision(event), top, by, bots, table)
        self.top, self.version = top, version
        if version % SNAPSHOT_EVERY == 0:
            self.snapshots[version] = top

    def snapshot_before(self, version: int) -> Replay:
        """A new replay at the latest snapshot at or before ``version`` (to fold on from)."""
        taken = [v for v in self.snapshots if v <= version]
        if not taken:
            return Replay(self.created)
        at = max(taken)
        return Replay(self.created, self.snapshots[at], at)

    def last_decision(self) -> int | None:
        """The version of the latest effective decision, which undo would revert."""
        frame: Frame | None = self.top
        while frame is not None:
            if frame.decision:
                return frame.version
            frame = frame.parent
        if not self.complete:
            raise MissingHistory(self.top.version, self.top.version)
        return None

    def last_chance(self) -> int | None:
        """The version of the latest effective chance outcome if no decision followed it."""
        frame: Frame | None = self.top
        while frame is not None and frame.parent is not None:
            if frame.decision:
                return None
            if frame.chance:
                return frame.version
            frame = frame.parent
        if not self.complete:
            raise MissingHistory(self.top.version, self.top.version)
        return None

    def since(self, version: int) -> list[Frame]:
        """The effective frames from ``version`` on, oldest first."""
        frames: list[Frame] = []
        frame: Frame | None = self.top
        while frame is not None and frame.version >= version:
            frames.append(frame)
            frame = frame.parent
        return frames[::-1]


def seated_bots(created: GameCreated) -> tuple[str, ...]:
    """Each seat's bot level at the start ("" for a person), or () when no bot plays."""
    if not created.bots:
        return ()
    levels = [""] * len(created.seats)
    for bot in created.bots:
        levels[bot.seat] = bot.level
    return tuple(levels)


def handed_over(bots: tuple[str, ...], event: Event, seats: int) -> tuple[str, ...]:
    """Who plays each seat after ``event``: a hand-over changes one seat, a table starting
    with bots seats them, nothing else changes any."""
    if isinstance(event, TableStarted) and event.bots:
        levels = list(bots or [""] * seats)
        for bot in event.bots:
            levels[bot.seat] = bot.level
        return tuple(levels)
    if not isinstance(event, SeatHandedOver):
        return bots
    levels = list(bots or [""] * seats)
    levels[event.seat] = event.bot
    return tuple(levels) if any(levels) else ()


def ruled(event: Event) -> Event:
    """``event`` as the rule state takes it: a table closed is a game over with no winners."""
    if isinstance(event, TableClosed):
        return GameFinished((), f"the table closed: {event.reason}")
    return event


def is_decision(event: Event) -> bool:
    """Whether an event records a seat's own choice (what undo reverts)."""
    if isinstance(event, MovePlayed):
        return not event.auto
    return isinstance(event, CardExchanged)


def fold(events: Iterable[tuple[int, Event]]) -> Replay:
    """Replay a log given as (version, event) pairs, the first being GameCreated."""
    iterator = iter(events)
    _, first = next(iterator)
    if not isinstance(first, GameCreated):
        raise ValueError("a game's log starts with GameCreated")
    replay = Replay(first)
    for version, event in iterator:
        replay.push(version, event)
    return replay


def settle(rules: RuleSet[Any], state: Any) -> tuple[Any, list[Event]]:
    """Apply the rule set's automatic events until a seat must act or the game is over."""
    events: list[Event] = []
    while batch := rules.automatic(state):
        for event in batch:
            state = rules.apply(state, event)
        events.extend(batch)
    return state, events

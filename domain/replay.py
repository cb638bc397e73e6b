"""Folding a game's log into its state, undo included (pure)."""

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
    MovePlayed,
    MoveUndone,
)
from domain.registry import find_ruleset
from domain.ruleset import RuleSet

CHANCE_EVENTS = (CardDrawn, CardsDealt, DiceRolled)


SNAPSHOT_EVERY = 64


class Frame(msgspec.Struct, frozen=True):
    """The state after one effective event; ``parent`` is the frame undo returns to."""

    version: int
    state: Any
    chance_count: int
    decision: bool
    parent: Frame | None = None


class Replay:
    """A game folded event by event.

    Frames form a chain back to the start, so undo can return to any earlier decision, and a
    snapshot of the whole fold is one frame: one is kept every ``SNAPSHOT_EVERY`` versions.
    """

    def __init__(self, created: GameCreated, top: Frame | None = None, version: int = 1) -> None:
        self.rules: RuleSet = find_ruleset(created.ruleset)
        self.created = created
        if top is None:
            top = Frame(1, self.rules.setup(created.options, len(created.seats)), 0, False)
        self.top = top
        self.version = version
        self.snapshots: dict[int, Frame] = {}

    @property
    def state(self) -> Any:
        """The current state."""
        return self.top.state

    @property
    def chance_count(self) -> int:
        """Chance outcomes in the effective (not undone) history."""
        return self.top.chance_count

    def push(self, version: int, event: Event) -> None:
        """Fold one more event (stored at ``version``)."""
        self.version = version
        top = self.top
        if isinstance(event, MoveUndone):
            while top.parent is not None and top.version >= event.reverts:
                top = top.parent
        else:
            count = top.chance_count + isinstance(event, CHANCE_EVENTS)
            state = self.rules.apply(top.state, event)
            top = Frame(version, state, count, is_decision(event), top)
        self.top = top
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
        return None


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


def settle(rules: RuleSet, state: Any) -> tuple[Any, list[Event]]:
    """Apply the rule set's automatic events until a seat must act or the game is over."""
    events: list[Event] = []
    while batch := rules.automatic(state):
        for event in batch:
            state = rules.apply(state, event)
        events.extend(batch)
    return state, events

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


class Frame(msgspec.Struct, frozen=True):
    """The state after one effective event, and how many chance outcomes it holds."""

    version: int
    state: Any
    chance_count: int
    decision: bool


class Replay:
    """A game folded event by event; keeps the frames that undo may return to."""

    def __init__(self, created: GameCreated) -> None:
        self.rules: RuleSet = find_ruleset(created.ruleset)
        self.created = created
        state = self.rules.setup(created.options, len(created.seats))
        self.frames: list[Frame] = [Frame(1, state, 0, False)]
        self.version = 1

    @property
    def state(self) -> Any:
        """The current state."""
        return self.frames[-1].state

    @property
    def chance_count(self) -> int:
        """Chance outcomes in the effective (not undone) history."""
        return self.frames[-1].chance_count

    def push(self, version: int, event: Event) -> None:
        """Fold one more event (stored at ``version``)."""
        self.version = version
        if isinstance(event, MoveUndone):
            while self.frames[-1].version >= event.reverts:
                self.frames.pop()
            return
        top = self.frames[-1]
        count = top.chance_count + isinstance(event, CHANCE_EVENTS)
        state = self.rules.apply(top.state, event)
        self.frames.append(Frame(version, state, count, is_decision(event)))

    def last_decision(self) -> int | None:
        """The version of the latest effective decision, which undo would revert."""
        for frame in reversed(self.frames):
            if frame.decision:
                return frame.version
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

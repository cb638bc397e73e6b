"""Where chance comes from when the referee needs it: the sealed seed, or a record's outcomes.

Live play and the check of a record whose seed is known use ``Seeded``: every outcome is the
seed's (``core.chance``). A record checked without its seed (a running game's export) uses
``Recorded``: each outcome is the one the record holds next, accepted if the rules allow it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from typing import Protocol

from domain.events import (
    CardDrawn,
    CardExchanged,
    CardsDealt,
    DiceRolled,
    Event,
    MovePlayed,
    SeedRevealed,
)
from domain.model import CHANCE_KINDS, ChanceNeed, Deal, Draw, Move, Roll
from domain.replay import CHANCE_EVENTS
from service.core import chance
from service.core.refusal import refuse


class Luck(Protocol):
    """The source of a game's chance outcomes."""

    def outcome(self, index: int, need: ChanceNeed, seat: int) -> Event:
        """Chance outcome number ``index`` (counted in the effective history) for ``need``."""
        ...

    def pick(self, index: int, moves: Sequence[Move]) -> Move:
        """A move chosen at random for a seat out of time, at version ``index``."""
        ...

    def seed(self) -> str:
        """The seed to reveal when the game ends."""
        ...


class Seeded:
    """Chance from the game's secret seed."""

    def __init__(self, seed: str) -> None:
        self._seed = seed

    def outcome(self, index: int, need: ChanceNeed, seat: int) -> Event:
        return chance.outcome(self._seed, index, need, seat)

    def pick(self, index: int, moves: Sequence[Move]) -> Move:
        return moves[chance.draw_number(self._seed, index, part=-1) % len(moves)]

    def seed(self) -> str:
        return self._seed


class Recorded:
    """Chance as a record has it, for a record checked without its seed: outcomes are taken
    in order from ``events[start:]`` (the record from the point being judged) when possible.
    The record is shared, not copied: each judged command starts from its own point."""

    def __init__(self, events: Sequence[Event], start: int) -> None:
        self.events, self.start = events, start
        self.next = start  # where the next outcome is looked for

    def outcome(self, index: int, need: ChanceNeed, seat: int) -> Event:
        while self.next < len(self.events):
            event = self.events[self.next]
            self.next += 1
            if isinstance(event, CHANCE_EVENTS):
                if not possible(need, event):
                    raise refuse(
                        "invalid-record", f"an impossible outcome for {type(need).__name__}"
                    )
                return event
        raise refuse("invalid-record", "the record ends before a chance outcome it needs")

    def pick(self, index: int, moves: Sequence[Move]) -> Move:
        after = self.events[self.start + 1] if self.start + 1 < len(self.events) else None
        for move in moves:
            if isinstance(after, MovePlayed) and move.id == after.move:
                return move
            if isinstance(after, CardExchanged) and move.uses == after.card:
                return move
            if isinstance(after, CHANCE_EVENTS) and move.id in CHANCE_KINDS:
                return move
        return moves[0]

    def seed(self) -> str:
        later = islice(self.events, self.start, None)
        revealed = (e.seed for e in later if isinstance(e, SeedRevealed))
        return next(revealed, "")


def possible(need: ChanceNeed, event: Event) -> bool:
    """Whether a chance outcome could have come from ``need``."""
    match need, event:
        case Roll(dice=count), DiceRolled(dice=dice):
            return len(dice) == count and all(1 <= d <= 6 for d in dice)
        case Draw(pile=pile), CardDrawn(card=card):
            return card in pile
        case Deal(pile=pile, seats=seats, count=count), CardsDealt(seats=dealt, hands=hands):
            cards = [c for hand in hands for c in hand]
            left = list(pile)
            for card in cards:
                if card not in left:
                    return False
                left.remove(card)
            enough = len(hands) == len(seats) and all(len(hand) == count for hand in hands)
            return dealt == seats and enough
    return False

"""Fair server chance: every outcome is a pure function of the secret seed and its index.

The seed itself is drawn by the use case that creates a game (``usecases.tokens.new_seed``);
from then on nothing here is random.
"""

from __future__ import annotations

import hashlib
import hmac

from domain.events import CardDrawn, CardsDealt, DiceRolled, Event
from domain.model import ChanceNeed, Deal, Draw, Roll


def commitment(seed: str) -> str:
    """``sha256(seed)`` as published at creation."""
    return hashlib.sha256(seed.encode()).hexdigest()


def draw_number(seed: str, index: int, part: int = 0) -> int:
    """A 256-bit number for outcome ``index`` (part ``part`` of it: one per die)."""
    digest = hmac.new(seed.encode(), f"{index}/{part}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest, "big")


def outcome(seed: str, index: int, need: ChanceNeed, seat: int) -> Event:
    """The chance event for outcome number ``index`` of a game (counted from 0)."""
    match need:
        case Roll(dice=count):
            return DiceRolled(
                seat, tuple(1 + draw_number(seed, index, i) % 6 for i in range(count))
            )
        case Draw(pile=pile):
            ordered = sorted(pile)
            return CardDrawn(seat, ordered[draw_number(seed, index) % len(ordered)])
        case Deal(pile=pile, seats=seats, count=count):
            return CardsDealt(seat, seats, deal(seed, index, sorted(pile), len(seats), count))
    raise TypeError(f"unknown chance need {need!r}")


def deal(
    seed: str, index: int, pile: list[str], hands: int, count: int
) -> tuple[tuple[str, ...], ...]:
    """``count`` cards to each of ``hands`` hands, one at a time, from the sorted ``pile``."""
    dealt: list[list[str]] = [[] for _ in range(hands)]
    for part in range(hands * count):
        dealt[part % hands].append(pile.pop(draw_number(seed, index, part) % len(pile)))
    return tuple(tuple(hand) for hand in dealt)

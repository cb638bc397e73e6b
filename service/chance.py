"""Fair server chance: every outcome is a pure function of the secret seed and its index."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from domain.events import CardDrawn, DiceRolled, Event
from domain.model import ChanceNeed, Draw, Roll


def new_seed() -> str:
    """A fresh secret seed (256 bits, hex)."""
    return secrets.token_hex(32)


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
    raise TypeError(f"unknown chance need {need!r}")

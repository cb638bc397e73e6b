"""Seats played by bots: which levels exist and whether one plays a rule set (checked where a
game, a clock or a hand-over names a level)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import bots
from domain.events import SeatBot
from service.core.clocks import Absence
from service.core.fields import Path, bad_field

BOT_PREFIX = "bot:"
"""How a clock's ``on_timeout`` names the bot a seat out of time is handed to."""


def seated(path: Path, name: str, ruleset: str) -> bots.Level:
    """The level called ``name`` that plays ``ruleset``, or a refusal naming the field at
    ``path``: 400 unknown-bot listing the levels, 422 bad-setup for a rule set it does not play."""
    try:
        level = bots.find_level(name)
    except KeyError:
        names = [level.name for level in bots.LEVELS]
        known = ", ".join(f"`{known}`" for known in names)
        why = f"no bot level `{name}`; the levels are {known}"
        raise bad_field(path, why, "unknown-bot", names) from None
    if ruleset not in level.rulesets:
        plays = ", ".join(f"`{r}`" for r in level.rulesets)
        why = f"the bot `{name}` does not play `{ruleset}`; it plays {plays}"
        raise bad_field(path, why, "bad-setup")
    return level


def timeout_bot(on_timeout: str) -> str | None:
    """The level a clock's ``on_timeout`` hands a seat to, or None for another consequence."""
    return on_timeout.removeprefix(BOT_PREFIX) if on_timeout.startswith(BOT_PREFIX) else None


def level_version(name: str | None) -> int:
    """The version of the level called ``name`` (0 for none, or one no longer known)."""
    try:
        return bots.find_level(name).version if name else 0
    except KeyError:
        return 0


def seat_bots(
    levels: Sequence[str | None], on_timeout: str | None, ruleset: str
) -> tuple[SeatBot, ...]:
    """The seats bots play in a new game (``levels``: each seat's, None for a person), every
    level checked, and the level a clock's ``on_timeout`` hands a seat to."""
    if on_timeout is not None and (level := timeout_bot(on_timeout)):
        seated(("clock", "on_timeout"), level, ruleset)
    return tuple(
        SeatBot(seat, name, seated(("seats", seat, "bot"), name, ruleset).version)
        for seat, name in enumerate(levels)
        if name is not None
    )


def absence_rule(absence: Absence | None, ruleset: str) -> dict[str, Any] | None:
    """A new game's absence rule as ``GameCreated`` records it, the level of the bot its
    ``then`` hands a seat to checked."""
    if absence is None:
        return None
    if (level := timeout_bot(absence.then)) is not None:
        seated(("absent", "then"), level, ruleset)
    return {"after": absence.after, "then": absence.then}

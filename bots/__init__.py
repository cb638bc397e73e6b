"""Computer opponents: the levels a seat can be played at, and their choice of move.

A stand-in until the bot engine lands: every level plays the first legal move. It keeps the
engine's interface (``Level``, ``LEVELS``, ``find_level``, ``choose``) so the service can seat
bots now. It imports only ``domain`` and the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.events import Event
from domain.model import Move
from domain.registry import RULESETS


@dataclass(frozen=True)
class Level:
    """A level of play: its name, a one-line description, the version of its play (bumped
    when its choices change) and the rule sets it plays."""

    name: str
    description: str
    version: int
    rulesets: tuple[str, ...]


EVERY_RULESET = tuple(sorted(RULESETS))
LEVELS: tuple[Level, ...] = (
    Level("random", "plays a legal move at random", 1, EVERY_RULESET),
    Level("greedy", "plays the move that gains most at once", 1, EVERY_RULESET),
    Level("expert", "searches ahead over every card and die", 1, EVERY_RULESET),
)


def find_level(name: str) -> Level:
    """The level called ``name``; KeyError listing the names."""
    for level in LEVELS:
        if level.name == name:
            return level
    names = ", ".join(level.name for level in LEVELS)
    raise KeyError(f"no bot level {name!r}; the levels are {names}")


def choose(
    level: str,
    ruleset: str,
    ruleset_version: int,
    seat: int,
    seen: list[Event],
    moves: list[Move],
    seed: int,
) -> str:
    """The id of one of ``moves`` (the stand-in: the first)."""
    find_level(level)
    return moves[0].id

"""Delayed broadcast: how far behind the live game its spectators are.

A game created with ``spectator_delay`` shows callers without a token of the game only a
prefix of its log: the events more than ``seconds`` old, or those before its last ``moves``
moves (``MovePlayed`` events, automatic ones included). Seats and the referee see it live. A
spectator always sees the game's creation; a delay in moves ends when the game finishes (no
move follows to release the last ones), a delay in seconds runs on past the end.
"""

from __future__ import annotations

from bisect import bisect_right
from datetime import datetime, timedelta
from typing import Annotated, Any

import msgspec

MAX_DELAY_SECONDS = 86_400
MAX_DELAY_MOVES = 1_000
FINISH = ("GameFinished", "SeedRevealed")
"""The events of a finish (the seed's reveal follows the end in the same append)."""


class SpectatorDelay(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """How far behind spectators are: exactly one of ``seconds`` and ``moves``."""

    seconds: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=MAX_DELAY_SECONDS,
                description="spectators see the events more than this many seconds old",
            ),
        ]
        | None
    ) = None
    moves: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=MAX_DELAY_MOVES,
                description="spectators see the game as it was before its last this many "
                "moves (until it finishes)",
            ),
        ]
        | None
    ) = None

    def describe(self) -> str:
        """The delay in words, for problem details."""
        if self.seconds is not None:
            return f"{self.seconds} s"
        return f"{self.moves} move{'s' if self.moves != 1 else ''}"


def delay_fault(delay: SpectatorDelay) -> str | None:
    """Why a delay cannot be used, or None."""
    if (delay.seconds is None) == (delay.moves is None):
        return "give exactly one of `seconds` and `moves`"
    return None


def parse_delay(data: dict[str, Any] | None) -> SpectatorDelay | None:
    """The delay a ``GameCreated`` records (ValueError when it is no delay)."""
    if data is None:
        return None
    try:
        delay = msgspec.convert(data, SpectatorDelay)
    except msgspec.ValidationError as error:
        raise ValueError(f"spectator_delay: {error}") from None
    if fault := delay_fault(delay):
        raise ValueError(f"spectator_delay: {fault}")
    return delay


class Timeline:
    """What the delay needs of a game's log: each event's time (never earlier than the one
    before, so times from several processes still sort) and the versions of its moves."""

    def __init__(self, delay: SpectatorDelay) -> None:
        self.delay = delay
        self.times: list[datetime] = []
        self.moves: list[int] = []
        self.ended = 0
        """The last version of the latest finish: shown to all even if an undo reopens the game,
        so a spectator's version never goes back."""

    @property
    def version(self) -> int:
        return len(self.times)

    def add(self, version: int, type_: str, at: datetime) -> None:
        """Note the event stored at ``version`` (the next one; others are ignored)."""
        if version != len(self.times) + 1:
            return
        self.times.append(max(at, self.times[-1]) if self.times else at)
        if type_ == "MovePlayed":
            self.moves.append(version)
        elif type_ in FINISH:
            self.ended = version

    def shown(self, now: datetime, finished: bool) -> int:
        """The last version a spectator may see at ``now``."""
        if self.delay.seconds is not None:
            cutoff = now - timedelta(seconds=self.delay.seconds)
            return max(1, bisect_right(self.times, cutoff))
        if finished or not self.moves:
            return self.version
        hidden = self.delay.moves or 1
        return max(1, self.ended, self.moves[-min(hidden, len(self.moves))] - 1)

    def due(self, shown: int) -> datetime | None:
        """When the event after ``shown`` becomes visible by time alone (None: never by time,
        or nothing is hidden)."""
        if self.delay.seconds is None or shown >= len(self.times):
            return None
        return self.times[shown] + timedelta(seconds=self.delay.seconds)

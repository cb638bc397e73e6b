"""What a bot knows of each board: how far a piece still has to go, and how likely an opponent
piece a given number of squares behind is to land on it next turn.

The geometry is the public one of the rule files (positions ``start``, ``track:N``,
``lane:K``, ``home``); nothing here reads a rule set's internals.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any


@dataclass(frozen=True)
class Board:
    """One rule set's track as a bot sees it, for a number of players.

    ``exits[seat]`` is the track number where the seat's path starts (its relative 0),
    ``loop`` the squares of the shared track, ``track_steps`` how many of them a piece walks
    before its lane, ``lane`` the lane's squares, ``to_start`` the steps from ``start`` to the
    path's first square. ``reach[d]`` is the chance that an opponent piece ``d`` squares behind
    one (negative: ahead, for backward moves) lands on it on its next turn; ``enter`` the
    chance that a seat with a piece in start brings one onto its first square (capturing what
    stands there) on its next turn, when that square is open to capture. ``lane_wins``: a
    piece in its lane counts as home (``ludo``'s default ``win_condition``, ``home_column``).
    """

    loop: int
    first: int
    exits: tuple[int, ...]
    track_steps: int
    lane: int
    to_start: int
    reach: dict[int, float]
    safe: frozenset[str] = frozenset()
    enter: float = 0.0
    lane_wins: bool = False

    @property
    def length(self) -> int:
        """Steps from ``start`` to ``home``."""
        return self.to_start + self.track_steps + self.lane

    def to_home(self, seat: int, position: str) -> int:
        """Steps a piece of ``seat`` at ``position`` still has to go (0 at home)."""
        if position == "home":
            return 0
        if position == "start":
            return self.length
        kind, _, number = position.partition(":")
        if kind == "lane":
            return self.lane + 1 - int(number)
        relative = (int(number) - self.first - self.exits[seat]) % self.loop
        if relative >= self.track_steps:
            relative = relative - self.loop
        return self.lane + self.track_steps - relative

    def cell(self, position: str) -> int | None:
        """The loop index of a track position, None off the shared track."""
        if not position.startswith("track:"):
            return None
        return int(position[6:]) - self.first


def _dice(count: int, bonus: bool = False) -> dict[int, float]:
    """The chance that one throw of ``count`` dice offers a move of exactly ``d`` squares."""
    faces = range(1, 7)
    throws = [(a,) for a in faces] if count == 1 else [(a, b) for a in faces for b in faces]
    reach: dict[int, float] = {}
    for throw in throws:
        for d in {*throw, sum(throw)}:
            reach[d] = reach.get(d, 0.0) + 1 / len(throws)
    return reach


def _sixes() -> dict[int, float]:
    """The chance that one die, thrown again after each 6 (twice at most: the third 6 is not
    played), carries one piece exactly ``d`` squares."""
    return {d: (1 / 6) ** (1 + (d - 1) // 6) for d in range(1, 18)}


def _cards(
    forward: tuple[int, ...], backward: tuple[int, ...], hand: int, kinds: int
) -> dict[int, float]:
    """Roughly the chance that a hand of ``hand`` cards of ``kinds`` equally likely kinds
    holds one that moves exactly ``d`` squares."""
    one = 1 - (1 - 1 / kinds) ** hand
    reach = {d: one for d in forward}
    reach.update({-d: one for d in backward})
    return reach


SORRY_FORWARD = (1, 2, 3, 5, 7, 8, 10, 11, 12)
PARTNERS_FORWARD = (1, 2, 3, 5, 6, 8, 9, 10, 12, 13, 14)
PARCHIS_SAFE = frozenset(f"track:{n}" for n in (5, 12, 17, 22, 29, 34, 39, 46, 51, 56, 63, 68))


def _sorry(players: int, hand: int) -> Board:
    # Seat s's side starts at 15 s; its path leaves start onto relative 4 and turns into its
    # safety zone at relative 2, 58 squares on; then 5 safety squares and home.
    exits = tuple(15 * seat + 4 for seat in range(players))
    reach = _cards(SORRY_FORWARD, (1, 4), hand, 11)
    return Board(60, 0, exits, 59, 5, 1, reach)


def _partners(length: int) -> Board:
    exits = tuple(length * seat for seat in range(4))
    return Board(4 * length, 0, exits, 4 * length, 4, 1, _cards(PARTNERS_FORWARD, (4,), 4, 13))


def _seating(players: int) -> tuple[int, ...]:
    """The colours (board sides) of the seats: two players sit opposite."""
    return {2: (0, 2), 3: (0, 1, 2)}.get(players, (0, 1, 2, 3))


@lru_cache(maxsize=64)
def _board(
    ruleset: str, players: int, length: int, dice: int, lane_wins: bool = False
) -> Board | None:
    sides = _seating(players)
    if ruleset == "sorry":
        return _sorry(players, 1)
    if ruleset == "sorry-hand":
        return _sorry(players, 5)
    if ruleset == "partners":
        return _partners(length)
    if ruleset in ("parchis", "parchis-2dice"):
        exits = tuple((4, 21, 38, 55)[side] for side in sides)
        return Board(68, 1, exits, 64, 7, 1, _dice(dice), PARCHIS_SAFE)
    if ruleset == "ludo":
        exits = tuple((0, 13, 26, 39)[side] for side in sides)
        return Board(52, 0, exits, 51, 5, 1, _sixes(), enter=1 / 6, lane_wins=lane_wins)
    return None


def board(ruleset: str, players: int, options: dict[str, Any]) -> Board | None:
    """The board of ``ruleset`` for ``players`` seats with ``options`` (None: race35)."""
    length = int(options.get("section_length", 15))
    dice = 2 if ruleset == "parchis-2dice" else 1
    lane_wins = ruleset == "ludo" and options.get("win_condition", "home_column") == "home_column"
    return _board(ruleset, players, length, dice, lane_wins)

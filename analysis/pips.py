"""How many squares each piece still has to travel, read off the board by its colour.

A piece's squares to go depend on its colour's path on the board, never on its seat number:
the seats' colours follow from the table size (two players sit opposite in ``ludo`` and
``parchis``), and the bots' boards (``bots.boards``) know each seating's paths. In ``race35``
every pawn walks the same 35 squares. A piece in start has the whole path to go, one step
more than on its path's first square; in ``ludo`` with ``home_column`` a piece in its home
column has finished, and in ``partners`` a pawn in its finish zone.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from bots.boards import Board, board
from domain.model import View

GOAL = 35
"""``race35``'s goal square."""
BOARD_OPTIONS = ("section_length", "win_condition")
"""The options that shape a board."""
LANE_ENDS = frozenset({"partners"})
"""Rule sets whose pawns arrive on entering their lane (``partners`` has no ``home``: a pawn
in its finish zone is there for good)."""

ToGo = Callable[[int, str], int]
"""A piece's squares still to travel, from its seat and its place."""


def seat_count(shown: View) -> int:
    """How many seats play the game a view shows."""
    return len({piece.seat for piece in shown.pieces})


def options_of(shown: View) -> tuple[tuple[str, Any], ...]:
    """The options of a view that shape its board."""
    return tuple((key, shown.options[key]) for key in BOARD_OPTIONS if key in shown.options)


def to_go(ruleset: str, shown: View) -> ToGo:
    """The squares-to-go of the pieces of the game ``shown`` shows."""
    return _to_go(ruleset, seat_count(shown), options_of(shown))


@lru_cache(maxsize=64)
def _to_go(ruleset: str, players: int, options: tuple[tuple[str, Any], ...]) -> ToGo:
    layout = board(ruleset, players, dict(options))
    if layout is None:
        return _race
    return _on_board(layout, layout.lane_wins or ruleset in LANE_ENDS)


def _race(seat: int, at: str) -> int:
    """A ``race35`` pawn's squares to the goal."""
    return 0 if at == "home" else GOAL - int(at.partition(":")[2] or 1)


def _on_board(layout: Board, lane_ends: bool) -> ToGo:
    finish = layout.lane if lane_ends else 0
    known: dict[tuple[int, str], int] = {}

    def squares(seat: int, at: str) -> int:
        key = (seat, at)
        found = known.get(key)
        if found is None:
            found = known[key] = max(layout.to_home(seat, at) - finish, 0)
        return found

    return squares


def length(ruleset: str, shown: View) -> int:
    """The squares from start to finished of the game ``shown`` shows."""
    return to_go(ruleset, shown)(0, "start")


def pip_counts(ruleset: str, shown: View) -> dict[int, int]:
    """Each seat's pip count: its pieces' squares still to travel, summed."""
    squares = to_go(ruleset, shown)
    counts: dict[int, int] = {}
    for piece in shown.pieces:
        counts[piece.seat] = counts.get(piece.seat, 0) + squares(piece.seat, piece.at)
    return dict(sorted(counts.items()))

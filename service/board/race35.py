"""The race35 board: squares 1 to 35 in a snake of rows, special squares in their colours."""

from __future__ import annotations

from typing import Any

from domain import race35
from service.board.shapes import GOAL, Layout, Note, Square, note

COLUMNS = 7
SQUARE_FILLS: dict[str, tuple[str, ...]] = {
    "": ("#ffffff",),
    "green": ("#8fd694",),
    "blue": ("#8fb8f0",),
    "red": ("#f08f8f",),
    "tricolour": ("#8fd694", "#8fb8f0", "#f08f8f"),
}
"""Fills of each square type (a tricolour square is striped)."""
NOTES: dict[str, tuple[Note, ...]] = {
    kind: (note("svg.note.race35", kind=kind),) if kind else () for kind in SQUARE_FILLS
}
"""Each square type in words, for screen readers."""


def layout(options: dict[str, Any]) -> Layout:
    """Every square, its type from the ``special_squares`` option (the defaults without it)."""
    kinds = race35.parse_layout(options.get("special_squares", race35.DEFAULT_SQUARES))
    squares = tuple(square(n, kinds[n]) for n in range(1, race35.GOAL + 1))
    rows = -(-race35.GOAL // COLUMNS)
    return Layout(COLUMNS, rows, squares)


def square(n: int, kind: str) -> Square:
    """Square ``n`` of the snake: left to right on even rows, right to left on odd ones."""
    row, column = divmod(n - 1, COLUMNS)
    if row % 2:
        column = COLUMNS - 1 - column
    key = race35.position(n)
    fills = (GOAL,) if n == race35.GOAL else SQUARE_FILLS[kind]
    sign = kind[:1].upper()
    return Square(key, column + 0.5, row + 0.5, 0.92, fills, mark=kind, note=NOTES[kind], sign=sign)

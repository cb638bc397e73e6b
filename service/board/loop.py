"""The square loop of Sorry!-style boards: a track around the edge of an (length + 1)-cell square.

Places are given as on the top side (``along`` the edge, ``depth`` cells inward) and turned
a quarter clockwise per side, so each colour's lane, start and home are drawn once.
"""

from __future__ import annotations

from service.board.shapes import Point, turn


def on_side(side: int, length: int, along: float, depth: float) -> Point:
    """The centre of a place ``along`` cells into the top edge, ``depth`` inward, on ``side``."""
    half = (length + 1) / 2
    return turn((along + 0.5, depth + 0.5), (half, half), side)


def track_point(p: int, length: int) -> Point:
    """The centre of perimeter square ``p`` (0 = top left corner, clockwise)."""
    return on_side(p // length, length, p % length, 0)

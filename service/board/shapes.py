"""Board layouts as data: squares where pieces stand, bands for slides, and the palette."""

from __future__ import annotations

import math
from typing import NamedTuple

INK: dict[str, str] = {
    "red": "#d62728",
    "blue": "#1f5fbf",
    "yellow": "#e6b800",
    "green": "#2a9d3a",
    "orange": "#f07f0e",
    "purple": "#8e44ad",
}
"""The colour each piece colour is drawn in."""

PALE: dict[str, str] = {
    "red": "#f6c4c4",
    "blue": "#c4d6f6",
    "yellow": "#f7e08a",
    "green": "#c4e8c8",
    "orange": "#fbd9b5",
    "purple": "#e3cdef",
}
"""The fill of a colour's own squares (lanes, start areas, start spaces)."""

Note = tuple[str, tuple[tuple[str, str], ...]]
"""Something said about a square, for screen readers: a message key of the catalogues
(``service/static/i18n``) and its arguments."""


def note(key: str, **params: object) -> Note:
    """A square's note: message ``key`` with ``params``."""
    return key, tuple((name, str(value)) for name, value in params.items())


CELL = 40.0
"""User units per board cell."""

PLAIN = "#ffffff"
SAFE = "#d9d9d9"
GOAL = "#f5d76e"


def ink_on(colour: str) -> str:
    """The text colour readable on a disc of piece colour ``colour``."""
    return "#111111" if colour in ("yellow", "orange") else "#ffffff"


class Square(NamedTuple):
    """A place pieces stand on; ``key`` is ``track:N``, ``lane:<colour>:K``, ``start:<colour>``,
    ``home:<colour>`` or ``home``; ``x``, ``y`` its centre and ``size`` its side, in cells;
    ``mark`` a class naming what is special about it, ``note`` the same in words (messages),
    ``sign`` a letter drawn in its corner where its colour says something (colour is never the
    only cue)."""

    key: str
    x: float
    y: float
    size: float = 1.0
    fills: tuple[str, ...] = (PLAIN,)
    round: bool = False
    mark: str = ""
    note: tuple[Note, ...] = ()
    sign: str = ""


class Band(NamedTuple):
    """A slide: a coloured band from one square's centre to another's."""

    x1: float
    y1: float
    x2: float
    y2: float
    colour: str


class Layout(NamedTuple):
    """A whole board: its size in cells, its squares and its slides."""

    width: float
    height: float
    squares: tuple[Square, ...]
    bands: tuple[Band, ...] = ()

    def by_key(self) -> dict[str, Square]:
        """The squares by key."""
        return {square.key: square for square in self.squares}


def spot(squares: dict[str, Square], at: str, colour: str) -> Square | None:
    """The square a piece of ``colour`` at public position ``at`` stands on, if drawn."""
    kind, _, number = at.partition(":")
    own = {"lane": f"lane:{colour}:{number}", "start": f"start:{colour}", "home": f"home:{colour}"}
    return squares.get(own.get(kind, at)) or squares.get(at)


Point = tuple[float, float]


def turn(point: Point, centre: Point, quarters: int) -> Point:
    """``point`` turned clockwise on screen by ``quarters`` right angles around ``centre``."""
    angle = math.pi / 2 * quarters
    dx, dy = point[0] - centre[0], point[1] - centre[1]
    cos, sin = round(math.cos(angle)), round(math.sin(angle))
    return (centre[0] + dx * cos - dy * sin, centre[1] + dx * sin + dy * cos)

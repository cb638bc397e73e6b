"""The Sorry! board (``sorry``, ``sorry-hand``): 60 squares, slides, safety zones, start, home."""

from __future__ import annotations

from typing import Any

from domain import sorry
from domain.model import COLOURS
from service.board.labels import letter
from service.board.loop import on_side, track_point
from service.board.shapes import INK, PALE, Band, Layout, Square, note

COLOUR_NAMES = COLOURS[: sorry.MAX_PLAYERS]
AREA = 2.2
"""The width of a start or home circle, in cells: room for a word above four pieces."""


def layout(options: dict[str, Any]) -> Layout:
    """The whole board; every colour's slides, lane, start and home are drawn."""
    squares = [track(n) for n in range(sorry.TRACK)]
    for side, colour in enumerate(COLOUR_NAMES):
        squares += own_places(side, colour)
    bands = tuple(slide(n) for n in range(sorry.TRACK) if sorry.SLIDE_AT[n] is not None)
    size = sorry.SIDE + 1
    return Layout(size, size, tuple(squares), bands)


def track(n: int) -> Square:
    """Track square ``n``; a slide's first square is marked."""
    x, y = track_point(n, sorry.SIDE)
    found = sorry.SLIDE_AT[n]
    if found is None:
        return Square(f"track:{n}", x, y)
    colour = COLOUR_NAMES[found.colour]
    said = (note("svg.note.slide", colour=colour, end=found.end),)
    return Square(f"track:{n}", x, y, mark="slide-start", note=said, sign=letter(colour))


def own_places(side: int, colour: str) -> list[Square]:
    """A colour's safety zone (from its turn square inward), start circle and home."""
    lane = [
        Square(
            f"lane:{colour}:{k}",
            *on_side(side, sorry.SIDE, sorry.TURN_REL, k),
            fills=(PALE[colour],),
        )
        for k in range(1, sorry.LANE + 1)
    ]
    home_at = on_side(side, sorry.SIDE, sorry.TURN_REL, sorry.LANE + 1.6)
    start_at = on_side(side, sorry.SIDE, sorry.CIRCLE_REL + 0.5, 1.9)
    return [
        *lane,
        Square(f"home:{colour}", *home_at, AREA, (PALE[colour],), round=True),
        Square(f"start:{colour}", *start_at, AREA, (PALE[colour],), round=True),
    ]


def slide(n: int) -> Band:
    """The band of the slide starting at track square ``n``."""
    found = sorry.SLIDE_AT[n]
    assert found is not None
    (x1, y1), (x2, y2) = track_point(n, sorry.SIDE), track_point(found.end, sorry.SIDE)
    return Band(x1, y1, x2, y2, INK[COLOUR_NAMES[found.colour]])

"""The Partners board: four sections of ``section_length`` squares, start spaces, finish zones."""

from __future__ import annotations

from typing import Any, NamedTuple

from domain import partners
from service.board.labels import letter
from service.board.loop import on_side
from service.board.shapes import PALE, Layout, Point, Square, note

ROOM = 11
"""The fewest cells a side spans, so lanes and circles fit inside short sections."""


class Sides(NamedTuple):
    """How a section is laid along a side: its squares, their pitch and the side's span."""

    length: int
    pitch: float
    span: int

    def at(self, side: int, square: int, depth: float, beyond: float = 0.0) -> Point:
        """The centre of a place ``depth`` cells inside ``square`` of ``side`` (+ ``beyond``)."""
        along = (square % self.length + 0.5) * self.pitch - 0.5 + beyond
        return on_side(side, self.span, along, depth)


def layout(options: dict[str, Any]) -> Layout:
    """The whole board; each seat's start space sits mid-side with its finish zone just before."""
    length = int(options.get("section_length", partners.OPTIONS["section_length"]))
    span = max(length, ROOM)
    sides, shift = Sides(length, span / length, span), length // 2
    squares = [track(n, sides, shift) for n in range(partners.SEATS * length)]
    for seat, colour in enumerate(partners.COLOURS):
        squares += [
            Square(
                f"lane:{colour}:{k}",
                *sides.at(seat, shift - 1, k),
                fills=(PALE[colour],),
            )
            for k in range(1, partners.LANE + 1)
        ]
        circle = sides.at(seat, shift, 2, beyond=1.5)
        squares.append(Square(f"start:{colour}", *circle, 2.2, (PALE[colour],), round=True))
    return Layout(span + 1, span + 1, tuple(squares))


def track(n: int, sides: Sides, shift: int) -> Square:
    """Track square ``n``; a seat's start space is in its colour."""
    side, along = divmod((n + shift) % (partners.SEATS * sides.length), sides.length)
    place = sides.at(side, along, 0)
    if n % sides.length:
        return Square(f"track:{n}", *place)
    colour = partners.COLOURS[n // sides.length]
    said, sign = (note("svg.note.startSpace", colour=colour),), letter(colour)
    return Square(f"track:{n}", *place, fills=(PALE[colour],), mark="start", note=said, sign=sign)

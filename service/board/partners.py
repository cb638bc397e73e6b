"""The Partners board: four sections of ``section_length`` squares, start spaces, finish zones."""

from __future__ import annotations

from typing import Any

from domain import partners
from service.board.loop import on_side
from service.board.shapes import PALE, PLAIN, Layout, Square


def layout(options: dict[str, Any]) -> Layout:
    """The whole board; each seat's start space sits mid-side with its finish zone just before."""
    length = int(options.get("section_length", partners.OPTIONS["section_length"]))
    shift = length // 2
    squares = [track(n, length, shift) for n in range(partners.SEATS * length)]
    for seat, colour in enumerate(partners.COLOURS):
        lane = [
            Square(
                f"lane:{colour}:{k}",
                *on_side(seat, length, shift - 1, k),
                fills=(PALE[colour],),
                label=f"F{k}",
            )
            for k in range(1, partners.LANE + 1)
        ]
        circle = on_side(seat, length, shift + 1.5, 2)
        squares += [
            *lane,
            Square(f"start:{colour}", *circle, 2.2, (PALE[colour],), "circle", round=True),
        ]
    return Layout(length + 1, length + 1, tuple(squares))


def track(n: int, length: int, shift: int) -> Square:
    """Track square ``n``; a seat's start space is in its colour."""
    side, along = divmod((n + shift) % (partners.SEATS * length), length)
    start = n % length == 0
    fills = (PALE[partners.COLOURS[n // length]],) if start else (PLAIN,)
    return Square(
        f"track:{n}",
        *on_side(side, length, along, 0),
        fills=fills,
        label=str(n),
        mark="start" if start else "",
    )

"""The legend under a board: each seat's name beside a disc in its colour with its letter."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from service.board import labels
from service.board.primitives import disc, text, text_width
from service.board.shapes import INK, ink_on
from service.words import Say

LONGEST = 24
"""The most characters of a seat's name the legend shows (the titles keep it whole)."""


def entry(seat: dict[str, Any], say: Say) -> str:
    """A seat's line in the legend: ``Ann · red`` (in English)."""
    name = labels.owner(seat)
    if len(name) > LONGEST:
        name = name[: LONGEST - 1] + "…"
    return say("svg.legend", name=name, colour=seat["colour"])


def draw_legend(
    parent: ET.Element,
    seats: list[dict[str, Any]],
    top: float,
    font: float,
    room: float,
    say: Say,
) -> tuple[float, float]:
    """The seats in rows ``room`` wide (an entry wider than that gets a row of its own) from
    ``top`` down; the width of the widest row and the legend's bottom edge."""
    radius, gap = font * 0.75, font
    x, y, widest = 0.0, top + radius, 0.0
    for seat in seats:
        words = entry(seat, say)
        wide = 2 * radius + font * 0.4 + text_width(words, font)
        if x > 0 and x + wide > room:
            x, y = 0.0, y + radius * 2 + font * 0.5
        colour = str(seat["colour"])
        group = ET.SubElement(parent, "g", attrib={"class": "legend-seat"})
        group.set("data-legend-seat", str(seat["seat"]))
        disc(group, x + radius, y, radius, fill=INK.get(colour, "#888888"), stroke="#111111")
        mark, ink = labels.letter(colour), ink_on(colour)
        text(group, mark, x + radius, y + font * 0.35, font, fill=ink, text_anchor="middle")
        text(group, words, x + 2 * radius + font * 0.4, y + font * 0.35, font, fill="#111111")
        widest = max(widest, x + wide)
        x += wide + gap
    return widest, y + radius

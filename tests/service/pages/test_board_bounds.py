"""Nothing of a board is drawn outside its view box: each shape's extent is computed from its
attributes (stroke included; text from a generous width per character)."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from litestar.testing import TestClient

from domain.registry import RULESETS
from tests.service.pages.test_board import board, play_randomly
from tests.service.pages.test_board_labels import EM, NAMES, SVG, create_named

Api = TestClient[Any]
Box = tuple[float, float, float, float]
LONG_NAMES = tuple(f"{letter * 3} " * 16 for letter in "WMQOGD")
"""Seat names of 64 characters of wide letters (the longest the API takes)."""


def stroke(element: ET.Element) -> float:
    """Half the stroke's width (0 without a stroke)."""
    if element.get("stroke", "none") == "none":
        return 0.0
    return float(element.get("stroke-width", "1")) / 2


def text_box(element: ET.Element) -> Box:
    """A line of text: from its baseline up a font size and down a quarter, a generous width."""
    size, x, y = (float(element.attrib[name]) for name in ("font-size", "x", "y"))
    width = len(element.text or "") * EM * size
    left = x - {"middle": width / 2, "end": width}.get(element.get("text-anchor", ""), 0.0)
    return left, y - size, left + width, y + size * 0.25


def extent(element: ET.Element) -> Box | None:
    """Where a shape reaches, or None for what is not a drawn shape."""
    tag, pad = element.tag.removeprefix(SVG), stroke(element)

    def value(name: str) -> float:
        return float(element.attrib[name])

    if tag == "rect":
        x, y = value("x"), value("y")
        return x - pad, y - pad, x + value("width") + pad, y + value("height") + pad
    if tag == "circle":
        cx, cy, r = value("cx"), value("cy"), value("r") + pad
        return cx - r, cy - r, cx + r, cy + r
    if tag == "line":
        xs, ys = (value("x1"), value("x2")), (value("y1"), value("y2"))
        return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad
    if tag == "polygon":
        points = [tuple(map(float, p.split(","))) for p in element.attrib["points"].split()]
        return (
            min(p[0] for p in points),
            min(p[1] for p in points),
            max(p[0] for p in points),
            max(p[1] for p in points),
        )
    if tag == "text":
        return text_box(element)
    return None


def shapes(svg: ET.Element) -> list[tuple[ET.Element, Box]]:
    """Every drawn shape with its extent (a marker's path, drawn in its own box, is left out)."""
    found = []
    for element in svg.iter():
        reach = extent(element)
        if reach is not None:
            found.append((element, reach))
    return found


def assert_inside(svg: ET.Element) -> None:
    """Every shape within the view box; the document's size in the view box's proportions."""
    x, y, w, h = (float(v) for v in svg.attrib["viewBox"].split())
    for element, (left, top, right, bottom) in shapes(svg):
        inside = left >= x - 0.01 and top >= y - 0.01
        assert inside and right <= x + w + 0.01 and bottom <= y + h + 0.01, (
            element.tag,
            element.attrib,
            element.text,
            (x, y, w, h),
        )
    ratio = float(svg.attrib["height"]) / float(svg.attrib["width"])
    assert ratio == pytest.approx(h / w, rel=0.01)


@pytest.mark.parametrize("names", [NAMES, LONG_NAMES], ids=["short", "long"])
@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_nothing_is_drawn_outside_the_view_box(
    api: Api, ruleset: str, names: tuple[str, ...]
) -> None:
    created = create_named(api, ruleset, RULESETS[ruleset].MAX_PLAYERS, names)
    last = play_randomly(api, created, 80, random.Random(ruleset))
    for at in sorted({1, 2, last // 2, last - 1, last} - {0}):
        assert_inside(board(api, created["id"], at))

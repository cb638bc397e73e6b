"""SVG primitives: rectangles, circles and text written with short coordinates."""

from __future__ import annotations

import xml.etree.ElementTree as ET

EM = 0.8
"""The width of a character of the sans-serif font, in font sizes: generous (DejaVu Sans,
Chromium's usual sans-serif, draws capitals up to about 0.8 and lower case about 0.6)."""


def num(value: float) -> str:
    """A coordinate, short."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def dashed(attrs: dict[str, str]) -> dict[str, str]:
    """Attribute names with dashes, written in Python with underscores (``class_`` for class)."""
    return {name.rstrip("_").replace("_", "-"): value for name, value in attrs.items()}


def box(parent: ET.Element, x: float, y: float, w: float, h: float, **attrs: str) -> ET.Element:
    """A rectangle."""
    node = ET.SubElement(parent, "rect", x=num(x), y=num(y), width=num(w), height=num(h))
    node.attrib.update(dashed(attrs))
    return node


def disc(parent: ET.Element, x: float, y: float, r: float, **attrs: str) -> ET.Element:
    """A circle."""
    node = ET.SubElement(parent, "circle", cx=num(x), cy=num(y), r=num(r))
    node.attrib.update(dashed(attrs))
    return node


def text(parent: ET.Element, words: str, x: float, y: float, size: float, **attrs: str) -> None:
    """A line of text, ``y`` its baseline."""
    node = ET.SubElement(parent, "text", x=num(x), y=num(y))
    node.attrib.update({"font-size": num(size), "font-family": "sans-serif"})
    node.attrib.update(dashed(attrs))
    node.text = words


def text_width(words: str, size: float) -> float:
    """How wide ``words`` are drawn at ``size``, at most (estimated: no font metrics here)."""
    return len(words) * EM * size


def titled(parent: ET.Element, tag: str, title: str, **attrs: str) -> ET.Element:
    """A child element named for screen readers by its ``<title>``."""
    node = ET.SubElement(parent, tag, attrib=dashed(attrs))
    ET.SubElement(node, "title").text = title
    return node

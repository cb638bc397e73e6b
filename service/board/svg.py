"""Drawing a layout with its pieces and the last move as an SVG document."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from typing import Any, NamedTuple

from service.board.shapes import INK, Band, Layout, Square, spot

CELL = 40.0
"""User units per board cell."""
WIDTH = 600
"""The width the document asks to be shown at, in pixels."""
HIGHLIGHT = "#ff6a00"
LINE = "#333333"
BACKGROUND = "#fbf8ef"
SVG_NS = "http://www.w3.org/2000/svg"


class Mover(NamedTuple):
    """One piece's displacement in the last move (a step or an effect)."""

    piece: str
    start: str
    end: str


def render(layout: Layout, pieces: list[dict[str, Any]], moved: list[Mover], caption: str) -> str:
    """The SVG document of the board with ``pieces`` on it and ``moved`` highlighted."""
    header = layout.width * CELL / 14
    width, height = layout.width * CELL, layout.height * CELL + header
    root = ET.Element("svg", xmlns=SVG_NS, role="img")
    root.attrib.update(
        viewBox=f"0 {num(-header)} {num(width)} {num(height)}",
        width=str(WIDTH),
        height=num(WIDTH * height / width),
    )
    ET.SubElement(root, "title").text = caption
    box(root, 0, -header, width, height, fill=BACKGROUND)
    text(root, caption, CELL * 0.2, -header * 0.35, header * 0.45, id="caption")
    squares = layout.by_key()
    draw_squares(ET.SubElement(root, "g", id="squares"), layout.squares)
    draw_bands(ET.SubElement(root, "g", id="slides"), layout.bands)
    draw_last_move(ET.SubElement(root, "g", id="last-move"), squares, moved)
    draw_pieces(ET.SubElement(root, "g", id="pieces"), squares, pieces, {m.piece for m in moved})
    return ET.tostring(root, encoding="unicode")


def num(value: float) -> str:
    """A coordinate, short."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def box(parent: ET.Element, x: float, y: float, w: float, h: float, **attrs: str) -> ET.Element:
    """A rectangle."""
    node = ET.SubElement(parent, "rect", x=num(x), y=num(y), width=num(w), height=num(h))
    node.attrib.update(attrs)
    return node


def disc(parent: ET.Element, x: float, y: float, r: float, **attrs: str) -> ET.Element:
    """A circle (attribute names with dashes are written with underscores)."""
    node = ET.SubElement(parent, "circle", cx=num(x), cy=num(y), r=num(r))
    node.attrib.update({name.replace("_", "-"): value for name, value in attrs.items()})
    return node


def text(parent: ET.Element, words: str, x: float, y: float, size: float, **attrs: str) -> None:
    """A line of text (attribute names with dashes are written with underscores)."""
    node = ET.SubElement(parent, "text", x=num(x), y=num(y))
    node.attrib.update({"font-size": num(size), "font-family": "sans-serif"})
    node.attrib.update({name.replace("_", "-"): value for name, value in attrs.items()})
    node.text = words


def draw_squares(parent: ET.Element, squares: Iterable[Square]) -> None:
    """Every square: its fill (stripes when several), outline, mark and label."""
    for square in squares:
        group = ET.SubElement(parent, "g", attrib={"class": f"square {square.mark}".strip()})
        group.set("data-key", square.key)
        x, y = square.x * CELL, square.y * CELL
        if square.round:
            disc(group, x, y, square.size * CELL / 2, fill=square.fills[0], stroke=LINE)
        else:
            stripes(group, square)
        if square.mark == "safe":
            disc(group, x, y, CELL * 0.3, fill="none", stroke="#777777", stroke_width="2")
        if square.label:
            left, top = corner(square)
            text(group, square.label, left + 2, top + CELL * 0.3, CELL * 0.28, fill="#555555")


def corner(square: Square) -> tuple[float, float]:
    """The top left corner of a square, in user units."""
    return (square.x - square.size / 2) * CELL, (square.y - square.size / 2) * CELL


def stripes(parent: ET.Element, square: Square) -> None:
    """A square's fill as vertical stripes, then its outline."""
    left, top = corner(square)
    side = square.size * CELL
    width = side / len(square.fills)
    for i, fill in enumerate(square.fills):
        box(parent, left + i * width, top, width, side, fill=fill)
    box(parent, left, top, side, side, fill="none", stroke=LINE)


def draw_bands(parent: ET.Element, bands: Iterable[Band]) -> None:
    """Slides: a translucent band, a triangle where it starts and a disc where it ends."""
    for band in bands:
        x1, y1, x2, y2 = band.x1 * CELL, band.y1 * CELL, band.x2 * CELL, band.y2 * CELL
        group = ET.SubElement(parent, "g", attrib={"class": "slide", "opacity": "0.7"})
        line = ET.SubElement(group, "line", x1=num(x1), y1=num(y1), x2=num(x2), y2=num(y2))
        line.attrib.update({"stroke": band.colour, "stroke-width": num(CELL * 0.3)})
        disc(group, x2, y2, CELL * 0.25, fill=band.colour)
        ET.SubElement(group, "polygon", points=triangle(x1, y1, x2, y2), fill=band.colour)


def triangle(x1: float, y1: float, x2: float, y2: float) -> str:
    """A triangle at (x1, y1) pointing towards (x2, y2)."""
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    dx, dy = (x2 - x1) / length * CELL * 0.35, (y2 - y1) / length * CELL * 0.35
    corners = [(x1 + dx, y1 + dy), (x1 - dx - dy, y1 - dy + dx), (x1 - dx + dy, y1 - dy - dx)]
    return " ".join(f"{num(x)},{num(y)}" for x, y in corners)


def colour_of(piece: str) -> str:
    """A piece's colour: its id before the last dash."""
    return piece.rsplit("-", 1)[0]


def draw_last_move(parent: ET.Element, squares: dict[str, Square], moved: list[Mover]) -> None:
    """The squares each moved piece left and reached, outlined, with an arrow between."""
    marker = ET.SubElement(ET.SubElement(parent, "defs"), "marker", id="arrow")
    marker.attrib.update(viewBox="0 0 10 10", refX="9", refY="5", orient="auto")
    marker.attrib.update(markerWidth="5", markerHeight="5")
    ET.SubElement(marker, "path", d="M0,0 L10,5 L0,10 z", fill=HIGHLIGHT)
    for mover in moved:
        colour = colour_of(mover.piece)
        start, end = spot(squares, mover.start, colour), spot(squares, mover.end, colour)
        if start is not None:
            outline(parent, start, "last-from", mover.piece, mover.start)
        if end is not None:
            outline(parent, end, "last-to", mover.piece, mover.end)
        if start is not None and end is not None and start != end:
            arrow(parent, start, end)


def outline(parent: ET.Element, square: Square, role: str, piece: str, at: str) -> None:
    """A thick outline around ``square``, saying which piece left or reached it."""
    half = square.size * CELL / 2 + CELL * 0.04
    x, y = square.x * CELL, square.y * CELL
    if square.round:
        node = disc(parent, x, y, half)
    else:
        node = box(parent, x - half, y - half, 2 * half, 2 * half)
    node.attrib.update({"class": role, "data-piece": piece, "data-at": at, "fill": "none"})
    node.attrib.update({"stroke": HIGHLIGHT, "stroke-width": num(CELL * 0.12)})


def arrow(parent: ET.Element, start: Square, end: Square) -> None:
    """A dashed arrow from one square's centre to another's."""
    line = ET.SubElement(parent, "line", attrib={"class": "last-path"})
    line.attrib.update(x1=num(start.x * CELL), y1=num(start.y * CELL))
    line.attrib.update(x2=num(end.x * CELL), y2=num(end.y * CELL), stroke=HIGHLIGHT)
    line.attrib.update({"stroke-width": num(CELL * 0.08), "stroke-dasharray": "6 4"})
    line.set("marker-end", "url(#arrow)")


def draw_pieces(
    parent: ET.Element, squares: dict[str, Square], pieces: list[dict[str, Any]], moved: set[str]
) -> None:
    """Every piece in its colour with its number, sharing its square with the others there."""
    fallback = Square("elsewhere", 0.5, 0.5)
    by_square: dict[Square, list[dict[str, Any]]] = {}
    for piece in pieces:
        square = spot(squares, piece["at"], colour_of(piece["id"])) or fallback
        by_square.setdefault(square, []).append(piece)
    for square, here in by_square.items():
        for (x, y, r), piece in zip(slots(square, len(here)), here, strict=True):
            draw_piece(parent, piece, (x, y, r), piece["id"] in moved)


def slots(square: Square, count: int) -> list[tuple[float, float, float]]:
    """Centres and radius (user units) of ``count`` pieces sharing ``square``, in a grid."""
    columns = math.ceil(math.sqrt(count))
    rows = math.ceil(count / columns)
    pitch = min(square.size * CELL / max(columns, rows), CELL * 0.9)
    radius = pitch * (0.42 if count > 1 else 0.4)
    left = square.x * CELL - pitch * (columns - 1) / 2
    top = square.y * CELL - pitch * (rows - 1) / 2
    return [
        (left + (i % columns) * pitch, top + (i // columns) * pitch, radius) for i in range(count)
    ]


def draw_piece(
    parent: ET.Element, piece: dict[str, Any], where: tuple[float, float, float], moved: bool
) -> None:
    """One piece: a disc in its colour with its number; its id and position as data."""
    (x, y, r), name, at = where, str(piece["id"]), str(piece["at"])
    colour = colour_of(name)
    group = ET.SubElement(parent, "g", id=f"piece-{name}")
    group.attrib.update({"class": "piece moved" if moved else "piece", "data-piece": name})
    group.attrib.update({"data-seat": str(piece["seat"]), "data-at": at})
    ET.SubElement(group, "title").text = f"{name} at {at}"
    edge = num(max(1.5, r * (0.25 if moved else 0.12)))
    fill = INK.get(colour, "#888888")
    disc(group, x, y, r, fill=fill, stroke=HIGHLIGHT if moved else "#111111", stroke_width=edge)
    ink = "#111111" if colour == "yellow" else "#ffffff"
    number = name.rsplit("-", 1)[1]
    text(group, number, x, y + r * 0.4, r * 1.1, fill=ink, text_anchor="middle", font_weight="bold")

"""Drawing a layout with its pieces, the last move and the seats' legend as an SVG document."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from typing import Any, NamedTuple

from service.board import labels
from service.board.legend import draw_legend
from service.board.primitives import box, disc, num, text, text_width, titled
from service.board.shapes import CELL, INK, Band, Layout, Square, ink_on, spot
from service.words import Say

WIDTH = 600
"""The width the document asks to be shown at, in pixels."""
MARGIN = CELL * 0.3
"""Room around the board for the last move's outlines of edge squares."""
NUDGE = CELL * 0.12
"""How far pieces move down and right, where there is room, to leave a square's number seen."""
HIGHLIGHT = "#ff6a00"
LINE = "#333333"
LABEL = "#333333"
BACKGROUND = "#fbf8ef"
SVG_NS = "http://www.w3.org/2000/svg"


class Mover(NamedTuple):
    """One piece's displacement in the last move (a step or an effect)."""

    piece: str
    start: str
    end: str


def render(
    layout: Layout,
    pieces: list[dict[str, Any]],
    moved: list[Mover],
    caption: str,
    seats: list[dict[str, Any]],
    say: Say,
) -> str:
    """The SVG document of the board with ``pieces`` on it, ``moved`` highlighted and a legend
    of ``seats`` (the state view's) below, its words said by ``say``; the view box holds
    everything drawn."""
    width, height = layout.width * CELL, layout.height * CELL
    font = width / 14 * 0.45
    header = font * 2.2
    legend = ET.Element("g", id="legend", attrib={"class": "legend"})
    legend_width, legend_bottom = draw_legend(legend, seats, height + font * 0.6, font, width, say)
    left, top = -MARGIN, -header - MARGIN
    right, bottom = max(width, legend_width) + MARGIN, max(height, legend_bottom) + MARGIN
    root = ET.Element("svg", xmlns=SVG_NS, role="img")
    root.attrib.update(
        viewBox=" ".join(num(v) for v in (left, top, right - left, bottom - top)),
        width=str(WIDTH),
        height=num(WIDTH * (bottom - top) / (right - left)),
    )
    whole = say("svg.title", caption=caption, seats=seat_list(seats, say))
    ET.SubElement(root, "title").text = whole
    box(root, left, top, right - left, bottom - top, fill=BACKGROUND)
    fitted = min(font, width / text_width(caption, 1.0))
    text(root, caption, 0, -header * 0.35, fitted, id="caption")
    squares = layout.by_key()
    draw_squares(ET.SubElement(root, "g", id="squares"), layout.squares, say)
    draw_bands(ET.SubElement(root, "g", id="slides"), layout.bands)
    draw_last_move(ET.SubElement(root, "g", id="last-move"), squares, moved)
    owners = {int(seat["seat"]): labels.owner(seat) for seat in seats}
    draw_pieces(ET.SubElement(root, "g", id="pieces"), squares, pieces, moved, (owners, say))
    root.append(legend)
    return ET.tostring(root, encoding="unicode")


def seat_list(seats: list[dict[str, Any]], say: Say) -> str:
    """Who plays which colour, in words."""
    return ", ".join(say("svg.plays", name=labels.owner(s), colour=s["colour"]) for s in seats)


def draw_squares(parent: ET.Element, squares: Iterable[Square], say: Say) -> None:
    """Every square: its fill (stripes when several), outline, mark, label and spoken name."""
    for square in squares:
        group = titled(parent, "g", labels.square_words(square, say), class_=classes(square))
        group.set("data-key", square.key)
        x, y = square.x * CELL, square.y * CELL
        if square.round:
            disc(group, x, y, square.size * CELL / 2, fill=square.fills[0], stroke=LINE)
        else:
            stripes(group, square)
        if square.mark == "safe":
            disc(group, x, y, CELL * 0.3, fill="none", stroke="#777777", stroke_width="2")
        draw_label(group, square, say)
        if square.sign:
            right, bottom = (square.x + square.size / 2) * CELL, (square.y + square.size / 2) * CELL
            size = CELL * 0.24
            text(
                group,
                square.sign,
                right - 2,
                bottom - 3,
                size,
                fill=LABEL,
                text_anchor="end",
                class_="sign",
            )


def classes(square: Square) -> str:
    """A square's classes: ``square`` and its mark."""
    return f"square {square.mark}".strip()


def draw_label(parent: ET.Element, square: Square, say: Say) -> None:
    """The square's label: a word across the top of a start or home, a number in the corner."""
    words = labels.label(square.key, say)
    if not words:
        return
    left, top = corner(square)
    if labels.is_banner(square):
        size, baseline = banner(square)
        x = square.x * CELL
        text(parent, words, x, baseline, size, fill=LABEL, text_anchor="middle", class_="label")
    else:
        text(parent, words, left + 2, top + CELL * 0.27, CELL * 0.25, fill=LABEL, class_="label")


def banner(square: Square) -> tuple[float, float]:
    """Font size and baseline of the word across the top of a start or home."""
    side = square.size * CELL
    size = min(CELL * 0.3, side * 0.24)
    pad = side * (0.1 if square.round else 0.04)
    return size, corner(square)[1] + pad + size * 0.85


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
    parent: ET.Element,
    squares: dict[str, Square],
    pieces: list[dict[str, Any]],
    moved: list[Mover],
    said: tuple[dict[int, str], Say],
) -> None:
    """Every piece where it stands, sharing its square with the others there; ``said`` the
    seats' owners and the words."""
    owners, say = said
    fallback = Square("elsewhere", 0.5, 0.5)
    by_square: dict[Square, list[dict[str, Any]]] = {}
    for piece in pieces:
        square = spot(squares, piece["at"], colour_of(piece["id"])) or fallback
        by_square.setdefault(square, []).append(piece)
    movers = {m.piece for m in moved}
    for square, here in by_square.items():
        for where, piece in zip(slots(square, len(here)), here, strict=True):
            words = labels.piece_words(piece, owners, say)
            draw_piece(parent, piece, where, piece["id"] in movers, words)


def piece_area(square: Square) -> tuple[float, float, float, float]:
    """Left, top, width and height of where pieces stand on ``square``: below a start's or
    home's word, inside a round area's rim."""
    left, top = corner(square)
    side = square.size * CELL
    inset = side * 0.09 if square.round else 0.0
    upper = top + inset
    if labels.is_banner(square):
        size, baseline = banner(square)
        upper = baseline + size * 0.3
    return left + inset, upper, side - 2 * inset, top + side - inset - upper


def slots(square: Square, count: int) -> list[tuple[float, float, float]]:
    """Centres and radius (user units) of ``count`` pieces sharing ``square``, in a grid."""
    left, top, width, height = piece_area(square)
    columns = math.ceil(math.sqrt(count))
    rows = math.ceil(count / columns)
    pitch = min(width / columns, height / rows, CELL * 0.9)
    corner = not labels.is_banner(square)
    radius = pitch * (0.42 if count > 1 else 0.36 if corner else 0.4)
    x0 = left + width / 2 - pitch * (columns - 1) / 2
    y0 = top + height / 2 - pitch * (rows - 1) / 2
    if corner:  # clear of the number in the top left corner, where there is room
        x0 += max(0.0, min(NUDGE, (width - pitch * (columns - 1)) / 2 - radius))
        y0 += max(0.0, min(NUDGE, (height - pitch * (rows - 1)) / 2 - radius))
    return [(x0 + (i % columns) * pitch, y0 + (i // columns) * pitch, radius) for i in range(count)]


def draw_piece(
    parent: ET.Element,
    piece: dict[str, Any],
    where: tuple[float, float, float],
    moved: bool,
    words: str,
) -> None:
    """One piece: a disc in its colour with its colour's letter and its number; its id, seat and
    position as data, its owner and square in words."""
    (x, y, r), name, at = where, str(piece["id"]), str(piece["at"])
    colour = colour_of(name)
    group = titled(parent, "g", words, id=f"piece-{name}")
    group.attrib.update({"class": "piece moved" if moved else "piece", "data-piece": name})
    group.attrib.update({"data-seat": str(piece["seat"]), "data-at": at})
    edge = num(max(1.5, r * (0.25 if moved else 0.12)))
    fill = INK.get(colour, "#888888")
    disc(group, x, y, r, fill=fill, stroke=HIGHLIGHT if moved else "#111111", stroke_width=edge)
    mark = labels.letter(colour) + name.rsplit("-", 1)[1]
    ink = ink_on(colour)
    text(group, mark, x, y + r * 0.33, r * 0.95, fill=ink, text_anchor="middle", font_weight="bold")

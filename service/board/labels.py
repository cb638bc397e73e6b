"""What squares and pieces are called: the short label drawn on a square, which names the
move-id position it stands for, and the words a screen reader says for squares and pieces."""

from __future__ import annotations

from typing import Any

from service.board.shapes import Square


def letter(colour: str) -> str:
    """The letter drawn with a colour, so colour is never the only cue: ``R`` for red."""
    return colour[:1].upper()


def owner(seat: dict[str, Any]) -> str:
    """A seat's name (the service names a seat created without one ``Player N``)."""
    return str(seat["name"])


def label(key: str) -> str:
    """The text drawn on square ``key``: ``12`` on ``track:12``, ``L4`` on a lane's square 4,
    ``R start`` / ``R home`` on red's start and home, ``home`` on race35's goal."""
    kind, _, rest = key.partition(":")
    if kind == "track":
        return rest
    if kind == "lane":
        return "L" + rest.rpartition(":")[2]
    if kind in ("start", "home"):
        return f"{letter(rest)} {kind}".strip()
    return ""


def is_banner(square: Square) -> bool:
    """Whether a square's label is a word drawn across its top, pieces kept below it."""
    return square.key.partition(":")[0] in ("start", "home")


def square_words(square: Square) -> str:
    """A square for screen readers: ``track 12, safe square``, ``red lane 4``, ``red start``."""
    kind, _, rest = square.key.partition(":")
    if kind == "track":
        words = f"track {rest}"
    elif kind == "lane":
        colour, _, number = rest.partition(":")
        words = f"{colour} lane {number}"
    elif kind in ("start", "home"):
        words = f"{rest} {kind}".strip()
    else:
        words = kind
    return ", ".join(part for part in (words, square.note) if part)


def position_words(at: str) -> str:
    """A public position in words: ``on track 12``, ``on lane 4``, ``in start``, ``at home``."""
    kind, _, number = at.partition(":")
    if number:
        return f"on {kind} {number}"
    return {"start": "in start", "home": "at home"}.get(kind, f"at {at}")


def piece_words(piece: dict[str, Any], owners: dict[int, str]) -> str:
    """A piece for screen readers: ``Ann's red piece 2 on track 12``."""
    colour, _, number = str(piece["id"]).rpartition("-")
    where = position_words(str(piece["at"]))
    return f"{owners[int(piece['seat'])]}'s {colour} piece {number} {where}"

"""What squares and pieces are called: the short label drawn on a square, which names the
move-id position it stands for, and the words a screen reader says for squares and pieces."""

from __future__ import annotations

from typing import Any

from service.board.shapes import Square
from service.words import Say


def letter(colour: str) -> str:
    """The letter drawn with a colour, so colour is never the only cue: ``R`` for red."""
    return colour[:1].upper()


def owner(seat: dict[str, Any]) -> str:
    """A seat's name as the game has it."""
    return str(seat["name"])


def label(key: str, say: Say) -> str:
    """The text drawn on square ``key``: ``12`` on ``track:12``, ``L4`` on a lane's square 4,
    ``R start`` / ``R home`` on red's start and home, ``home`` on race35's goal (in English)."""
    kind, _, rest = key.partition(":")
    if kind == "track":
        return rest
    if kind == "lane":
        return say("svg.laneLabel", number=rest.rpartition(":")[2])
    if kind in ("start", "home"):
        return say("svg.label", kind=kind, letter=letter(rest)).strip()
    return ""


def is_banner(square: Square) -> bool:
    """Whether a square's label is a word drawn across its top, pieces kept below it."""
    return square.key.partition(":")[0] in ("start", "home")


def square_words(square: Square, say: Say) -> str:
    """A square for screen readers: ``square 12, safe square``, ``red lane 4``, ``red start``
    (in English)."""
    kind, _, rest = square.key.partition(":")
    colour, _, number = rest.partition(":") if kind == "lane" else (rest, "", rest)
    words = say("svg.square", kind=kind, colour=colour or "none", number=number)
    notes = [say(key, **dict(params)) for key, params in square.note]
    return ", ".join([words, *notes])


def position_words(at: str, say: Say) -> str:
    """A public position in words: ``on square 12``, ``on lane 4``, ``in start``, ``at home``
    (in English)."""
    kind, _, number = at.partition(":")
    known = kind in ("track", "lane") if number else kind in ("start", "home")
    return say("svg.at", kind=kind if known else "other", number=number, at=at)


def piece_words(piece: dict[str, Any], owners: dict[int, str], say: Say) -> str:
    """A piece for screen readers: ``Ann's red piece 2 on square 12`` (in English)."""
    colour, _, number = str(piece["id"]).rpartition("-")
    where = position_words(str(piece["at"]), say)
    owner = owners[int(piece["seat"])]
    return say("svg.piece", owner=owner, colour=colour, number=number, where=where)

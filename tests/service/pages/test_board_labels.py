"""What the board says in text: square labels that name the positions of move ids, a title in
words on every square and piece, pieces marked by letter and number, a legend of the seats,
and the words on starts and homes never under a piece."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from litestar.testing import TestClient

from domain.registry import RULESETS
from tests.service.conftest import auth, play_to_end, seed_for_test
from tests.service.pages.test_board import board, play_randomly, with_class

Api = TestClient[Any]
SVG = "{http://www.w3.org/2000/svg}"
NAMES = ("Ann", "Bob", "Cleo", "Dan", "Eve", "Fay")
EM = 0.8
"""A generous width of one character, in font sizes (DejaVu Sans capitals are about 0.8)."""


def create_named(api: Api, ruleset: str, players: int, names: tuple[str, ...] = NAMES) -> Any:
    """A game with server chance whose seats are named."""
    seats = [{"name": name} for name in names[:players]]
    body = {"ruleset": ruleset, "seats": seats, "auto_chance": True, "seed": seed_for_test()}
    reply = api.post("/games", json=body)
    assert reply.status_code == 201, reply.text
    return reply.json()


def square_key(ruleset: str, at: str, colour: str) -> str:
    """The ``data-key`` of the square a piece of ``colour`` at position ``at`` stands on."""
    kind, _, number = at.partition(":")
    if kind == "lane":
        return f"lane:{colour}:{number}"
    if kind == "start" or (kind == "home" and ruleset != "race35"):
        return f"{kind}:{colour}"
    return at


def expected_label(key: str) -> str:
    """The label docs/reference/boards.md promises on a square: N, LK, a colour's letter and
    start/home."""
    kind, _, rest = key.partition(":")
    if kind == "track":
        return rest
    if kind == "lane":
        return "L" + rest.split(":")[1]
    if kind in ("start", "home"):
        return f"{rest[:1].upper()} {kind}".strip()
    return ""


def expected_words(key: str) -> str:
    """How a square's title starts: ``square 12``, ``red lane 4``, ``red start``."""
    kind, _, rest = key.partition(":")
    if kind == "lane":
        colour, number = rest.split(":")
        return f"{colour} lane {number}"
    if kind == "track":
        return f"square {rest}"
    return f"{rest} {kind}".strip()


def squares(svg: ET.Element) -> dict[str, ET.Element]:
    """The square groups by key."""
    return {e.attrib["data-key"]: e for e in with_class(svg, "square")}


def title(element: ET.Element) -> str:
    """The text of an element's own ``<title>``."""
    found = element.find(f"{SVG}title")
    assert found is not None and found.text, f"no title on {element.attrib}"
    return found.text


def label_of(square: ET.Element) -> str:
    """The visible label of a square ('' when it has none)."""
    labels = [e.text or "" for e in square.iter(f"{SVG}text") if e.get("class") == "label"]
    assert len(labels) <= 1
    return labels[0] if labels else ""


def colour_of(piece: str) -> str:
    return piece.rsplit("-", 1)[0]


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_square_shows_the_position_its_move_ids_name(api: Api, ruleset: str) -> None:
    created = create_named(api, ruleset, RULESETS[ruleset].MAX_PLAYERS)
    drawn = squares(board(api, created["id"]))
    for key, square in drawn.items():
        assert label_of(square) == expected_label(key), key
        assert title(square).startswith(expected_words(key)), (key, title(square))
    shown = [label_of(square) for key, square in drawn.items() if key.startswith("track:")]
    assert len(shown) == len(set(shown)), "two track squares show the same number"


def named_positions(ruleset: str, drawn: dict[str, ET.Element], move: dict[str, Any]) -> set[str]:
    """Assert each position a move's steps and effects name is drawn with its label; their
    kinds (``track``, ``lane``, ...)."""
    kinds = set()
    for part in [*move["steps"], *move["effects"]]:
        for at in (part["from"], part["to"]):
            if at:
                key = square_key(ruleset, at, colour_of(part["piece"]))
                assert key in drawn, (move.get("id"), key)
                assert label_of(drawn[key]) == expected_label(key), (move.get("id"), key)
                kinds.add(at.partition(":")[0])
    return kinds


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_square_a_legal_move_names_is_drawn_with_that_label(api: Api, ruleset: str) -> None:
    created = create_named(api, ruleset, RULESETS[ruleset].MIN_PLAYERS)
    game, tokens, rng = created["id"], created["tokens"]["seats"], random.Random(ruleset)
    kinds: set[str] = set()
    for _ in range(12):
        state = api.get(f"/games/{game}").json()
        if state["status"] == "finished":
            break
        drawn = squares(board(api, game))
        for pending in state["to_act"]:
            reply = api.get(f"/games/{game}/legal-moves", headers=auth(tokens[pending["seat"]]))
            for move in reply.json()["moves"]:
                kinds |= named_positions(ruleset, drawn, move)
        play_randomly(api, created, 8, rng)
    drawn = squares(board(api, game))
    for event in api.get(f"/games/{game}/events").json()["events"]:
        if (
            event["type"] == "MovePlayed"
        ):  # race35's throws play themselves: no legal move names them
            kinds |= named_positions(ruleset, drawn, event["data"])
    assert "track" in kinds, "no move named a track square"


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_piece_says_whose_it_is_and_where_in_words_and_letters(
    api: Api, ruleset: str
) -> None:
    created = create_named(api, ruleset, RULESETS[ruleset].MAX_PLAYERS)
    play_randomly(api, created, 40, random.Random(ruleset))
    state = api.get(f"/games/{created['id']}").json()
    names = {seat["seat"]: seat["name"] for seat in state["seats"]}
    pieces = {e.attrib["data-piece"]: e for e in with_class(board(api, created["id"]), "piece")}
    assert pieces.keys() == {p["id"] for p in state["pieces"]}
    for piece in state["pieces"]:
        colour, number = piece["id"].rsplit("-", 1)
        kind, _, square = piece["at"].partition(":")
        named = "square" if kind == "track" else kind
        where = f"on {named} {square}" if square else {"start": "in start", "home": "at home"}[kind]
        drawn = pieces[piece["id"]]
        assert title(drawn) == f"{names[piece['seat']]}'s {colour} piece {number} {where}"
        marks = [e.text for e in drawn.iter(f"{SVG}text")]
        assert marks == [colour[0].upper() + number]


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_the_legend_names_every_seat_with_its_colour_and_letter(api: Api, ruleset: str) -> None:
    created = create_named(api, ruleset, RULESETS[ruleset].MAX_PLAYERS)
    state = api.get(f"/games/{created['id']}").json()
    svg = board(api, created["id"])
    assert svg.get("role") == "img"
    whole = title(svg)
    entries = {e.attrib["data-legend-seat"]: e for e in with_class(svg, "legend-seat")}
    assert len(entries) == len(state["seats"])
    for seat in state["seats"]:
        words = [e.text for e in entries[str(seat["seat"])].iter(f"{SVG}text")]
        assert words == [seat["colour"][0].upper(), f"{seat['name']} · {seat['colour']}"]
        assert f"{seat['name']} plays {seat['colour']}" in whole


def overlaps(box: tuple[float, float, float, float], circle: ET.Element) -> bool:
    """Whether a piece's disc reaches into a box (x0, y0, x1, y1)."""
    cx, cy, r = (float(circle.attrib[name]) for name in ("cx", "cy", "r"))
    nearest_x, nearest_y = min(max(cx, box[0]), box[2]), min(max(cy, box[1]), box[3])
    return (cx - nearest_x) ** 2 + (cy - nearest_y) ** 2 < r * r


def banners_clear_of_pieces(svg: ET.Element) -> int:
    """Assert no piece covers the word on a start or home; how many such squares hold pieces."""
    discs = [e for piece in with_class(svg, "piece") for e in piece.iter(f"{SVG}circle")]
    occupied = 0
    for key, square in squares(svg).items():
        if not key.startswith(("start", "home")):
            continue
        for word in (e for e in square.iter(f"{SVG}text") if e.get("class") == "label"):
            size, x, y = (
                float(word.attrib["font-size"]),
                float(word.attrib["x"]),
                float(word.attrib["y"]),
            )
            half = len(word.text or "") * EM * size / 2
            box = (x - half, y - size * 0.8, x + half, y + size * 0.25)
            assert not [d for d in discs if overlaps(box, d)], f"a piece covers {word.text!r}"
        occupied += bool(pieces_on(svg, key))
    return occupied


def pieces_on(svg: ET.Element, key: str) -> list[str]:
    """The pieces standing on square ``key``."""
    kind, _, colour = key.partition(":")
    return [
        e.attrib["data-piece"]
        for e in with_class(svg, "piece")
        if e.attrib["data-at"] == kind
        and (not colour or colour_of(e.attrib["data-piece"]) == colour)
    ]


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_no_piece_covers_the_word_on_a_start_or_home(api: Api, ruleset: str) -> None:
    created = create_named(api, ruleset, RULESETS[ruleset].MAX_PLAYERS)
    play_randomly(api, created, 1, random.Random(ruleset))
    occupied = banners_clear_of_pieces(board(api, created["id"]))
    assert occupied or ruleset == "race35", "no start holds a piece at the start of the game"


@pytest.mark.parametrize("ruleset", ["race35", "sorry"])
def test_no_piece_covers_the_word_on_a_home_at_the_end(api: Api, ruleset: str) -> None:
    created = create_named(api, ruleset, 2)
    play_to_end(api, created)
    assert banners_clear_of_pieces(board(api, created["id"])), "no piece reached home"


@pytest.mark.parametrize(
    ("ruleset", "signs"),
    [("race35", 10), ("sorry", 8), ("partners", 4), ("parchis", 4), ("ludo", 4)],
)
def test_squares_whose_colour_means_something_carry_its_letter(
    api: Api, ruleset: str, signs: int
) -> None:
    svg = board(api, create_named(api, ruleset, RULESETS[ruleset].MIN_PLAYERS)["id"])
    found = 0
    for key, square in squares(svg).items():
        for sign in (e.text or "" for e in square.iter(f"{SVG}text") if e.get("class") == "sign"):
            colour_word = title(square).split(", ")[1]  # "green square", "red slide", ...
            colour_word = colour_word.removeprefix("start of a ")
            assert sign == colour_word[0].upper(), (key, title(square))
            found += 1
    assert found == signs

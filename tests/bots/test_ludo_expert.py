"""The expert's ludo terms, in constructed positions: a piece in its home column counts as
home, and a piece a 6 and more ahead of an opponent is still within its reach."""

from __future__ import annotations

import random

from bots import expert
from bots.boards import board
from domain import ludo
from domain.registry import find_ruleset

RULES = find_ruleset("ludo")
START = ludo.START


def position(pos: dict[int, int], die: int) -> ludo.State:
    """Seat 0 (Red) to play ``die``; ``pos`` gives the relative number of the pieces not in
    the yard (piece index seat * 4 + n)."""
    places = tuple(pos.get(piece, START) for piece in range(16))
    state = ludo.setup({}, 4)
    return ludo.State(
        state.rules, state.colours, places, (True,) * 4, turn=0, die=die, tries=0, trying=False
    )


def judge() -> expert.Judge:
    pieces = RULES.view(ludo.setup({}, 4), 0).pieces
    owner = {piece.id: piece.seat for piece in pieces}
    layout = board("ludo", 4, {})
    assert layout is not None
    return expert.Judge(layout, owner, [[seat] for seat in range(4)], expert.WEIGHTS["ludo"])


def choose(state: ludo.State) -> str:
    at = {piece.id: piece.at for piece in RULES.view(state, 0).pieces}
    moves = RULES.legal_moves(state, 0)
    return expert.choose(RULES, state, judge(), at, 0, moves, random.Random(1)).id


def test_ludo_expert_moves_a_track_piece_rather_than_one_already_in_its_home_column() -> None:
    """With ``home_column`` (the default) a piece in its lane has already counted: walking it
    home is a wasted throw when a piece on the track can gain the squares."""
    state = position({0: ludo.LANE, 1: 10}, die=5)
    assert {move.id for move in RULES.legal_moves(state, 0)} == {
        "5:lane:1>home",
        "5:track:10>track:15",
    }
    assert choose(state) == "5:track:10>track:15"


def test_ludo_expert_counts_a_six_and_a_throw_again_as_within_reach() -> None:
    """A piece eight squares ahead of an opponent piece can be hit by a 6 and then a 2: it
    stands worse than the same piece with the opponent ahead of it."""
    places = {piece.id: piece.at for piece in RULES.view(ludo.setup({}, 4), 0).pieces}
    behind = dict(places, **{"red-1": "track:20", "blue-1": "track:12"})
    ahead = dict(places, **{"red-1": "track:20", "blue-1": "track:25"})
    assert judge().scores(behind)[(0,)] < judge().scores(ahead)[(0,)]

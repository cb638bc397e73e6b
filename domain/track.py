"""The track engine of the card race games (``sorry``, ``sorry-hand``, ``partners``).

What the three share, each keeping its own cards and rules:

- ``Loop``: a loop of squares with one lane per colour after it, as location codes (the loop
  ``0 .. track - 1``, then the lane squares, then whatever the rule set puts after them), and
  its one-step walks: forward from the colour's lane entry into its lane, backward never into
  a lane (lane 1 leads back to the entry square).
- ``walks``: how far ``n`` single steps lead, as tables.
- ``Scratch``: the scratch board a move is worked out on (locations, and the steps and effects
  made so far), never part of a state; each rule set subclasses it with what its rules need.
- ``card_moves``: a card's plays (kinds of move with a number of squares) dispatched to the
  generators of their moves.
- ``listed``, ``hand_view`` and ``sorted_by``: the pieces of the explanations and views that
  read alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple, TypeVar

from domain.model import Effect, Hand, Move, Step, Viewer

NOWHERE = -1
"""No location: a walk that leads nowhere, an empty square."""

Plays = Mapping[str, tuple[tuple[str, int], ...]]
"""What each card allows: (kind of move, number of squares), in the order they are listed."""


class Loop(NamedTuple):
    """A loop of ``track`` squares and the squares after it: ``ahead`` reached by walking on
    from the lane entry (the lane, and a home square where there is one), of which a pawn may
    step back from the first ``behind``."""

    track: int
    ahead: int
    behind: int

    def forward_step(self, entry: int, loc: int) -> int:
        """One forward step of a colour whose lane entry is ``entry``."""
        if loc < self.track:
            return self.track if loc == entry else (loc + 1) % self.track
        return loc + 1 if loc < self.track + self.ahead - 1 else NOWHERE

    def backward_step(self, entry: int, loc: int) -> int:
        """One backward step: never into a lane; lane 1 leads out to ``entry``."""
        if loc < self.track:
            return (loc - 1) % self.track
        if loc == self.track:
            return entry
        return loc - 1 if loc < self.track + self.behind else NOWHERE

    def steps(self, entry: int, size: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The one-step tables (forward, backward) over the locations ``0 .. size - 1``."""
        locs = range(size)
        return (
            tuple(self.forward_step(entry, loc) for loc in locs),
            tuple(self.backward_step(entry, loc) for loc in locs),
        )


def walks(step: tuple[int, ...], most: int) -> tuple[tuple[int, ...], ...]:
    """``walks[n][loc]``: where ``n`` single steps of the one-step table ``step`` lead from
    ``loc`` (``n`` from 0 to ``most``), or NOWHERE."""
    table = [tuple(range(len(step)))]
    for _ in range(most):
        table.append(tuple(NOWHERE if at == NOWHERE else step[at] for at in table[-1]))
    return tuple(table)


Board = TypeVar("Board", bound="Scratch")


class Scratch:
    """A scratch copy of the pieces' locations while a move is worked out, with the steps
    and effects made so far; subclasses add what their rules look at (``copy_into``)."""

    __slots__ = ("effects", "locs", "steps")

    def __init__(self, locs: list[int]) -> None:
        self.locs = locs
        self.steps: list[Step] = []
        self.effects: list[Effect] = []

    def copy(self: Board) -> Board:
        """An independent copy."""
        board = object.__new__(type(self))
        board.locs, board.steps, board.effects = (
            self.locs.copy(),
            self.steps.copy(),
            self.effects.copy(),
        )
        self.copy_into(board)
        return board

    def copy_into(self: Board, board: Board) -> None:
        """Copy the subclass's own fields into ``board`` (nothing here)."""

    def move(self, move_id: str, seat: int, card: str) -> Move:
        """The move made on this board."""
        return Move(move_id, seat, card, tuple(self.steps), tuple(self.effects))


Generator = Callable[[Board, int, str, int], list[Move]]
"""The moves of one kind a card allows ``seat`` on a board: (board, seat, card, squares)."""


def card_moves(
    board: Board, seat: int, card: str, plays: Plays, generators: Mapping[str, Generator[Board]]
) -> list[Move]:
    """Every move ``card`` allows ``seat`` on ``board``, play by play in ``plays`` order."""
    moves: list[Move] = []
    for kind, squares in plays[card]:
        moves.extend(generators[kind](board, seat, card, squares))
    return moves


def listed(ids: Iterable[str]) -> str:
    """Move ids as an explanation lists them: ``'a', 'b'``, or ``none``."""
    return ", ".join(repr(move_id) for move_id in ids) or "none"


def sorted_by(rank: Mapping[str, int], cards: Iterable[str]) -> tuple[str, ...]:
    """``cards`` in card order (hands and piles are multisets kept sorted)."""
    return tuple(sorted(cards, key=rank.__getitem__))


def hand_view(hand: tuple[str, ...], seat: int, viewer: Viewer) -> Hand:
    """A hand as ``viewer`` may see it: its cards for the owner and the referee, else only
    how many it holds."""
    if viewer == "referee" or viewer == seat:
        return Hand(seat, cards=list(hand))
    return Hand(seat, count=len(hand))

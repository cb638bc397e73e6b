"""Whether a race35 layout makes a game that can end, and about how long it takes.

A race35 game has no decisions; with server chance it plays itself whole when it is created.
Three layouts would make it play forever (or for millions of throws), so ``check`` refuses
them before the first throw:

- no sequence of throws takes a pawn from square 1 to 35 without stopping on a red square;
- there are at least as many blue squares as seats: every pawn can end up waiting on its own
  blue square, and then every turn passes by itself for ever;
- the estimated mean length is over ``MAX_MEAN_THROWS`` throws.

The estimate follows the pawns as if alone (no displacements, no green or blue squares): each
pawn's walk from square 1 ends at the goal or on a red square; with ``restart_game`` the first
walk to end closes an attempt (a win, or a restart of everybody), with ``restart_player`` each
pawn restarts alone. It is within a factor of two of played games' means."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from domain.model import BadSetup

GOAL = 35
FORWARD_THROWS = frozenset({2, 3, 4, 6})
RED = 0
"""The walk's end on a red square (square 0 does not exist)."""
MAX_MEAN_THROWS = 2000
"""About three times the mean of a six-seat game on the default layout (about 650)."""
HORIZON = 400
"""Throws of one pawn the estimate follows; what is still walking then counts as no win."""


def travel(square: int, throw: int, forward: bool) -> int:
    """One travel: forward with bounce off 35, or backward no lower than 1."""
    if not forward:
        return max(1, square - throw)
    target = square + throw
    return target if target <= GOAL else 2 * GOAL - target


def landing(layout: Sequence[str], square: int, throw: int) -> int:
    """Where one throw from ``square`` ends for a pawn alone: a square, GOAL or RED."""
    forward = throw in FORWARD_THROWS
    final = travel(square, throw, forward)
    if final != GOAL and layout[final] == "tricolour":
        final = travel(final, throw, forward)
    return RED if final != GOAL and layout[final] == "red" else final


def check(layout: tuple[str, ...], seats: int, restart_game: bool) -> None:
    """BadSetup, saying why, for a layout whose game cannot end or would take too long."""
    if GOAL not in reachable(layout):
        raise BadSetup(
            "special_squares: no throws take a pawn from square 1 to 35 without stopping on a "
            "red square, so the game could never end"
        )
    blue = [str(square) for square, kind in enumerate(layout) if kind == "blue"]
    if len(blue) >= seats:
        raise BadSetup(
            f"special_squares: {len(blue)} blue squares ({', '.join(blue)}) for {seats} seats: "
            "every pawn could wait on one and the game would never end (at most "
            f"{seats - 1} with {seats} seats)"
        )
    mean = mean_throws(layout, seats, restart_game)
    if mean > MAX_MEAN_THROWS:
        raise BadSetup(
            f"special_squares: with these red squares a game of {seats} would take about "
            f"{mean:,.0f} throws on average; race35 takes layouts under {MAX_MEAN_THROWS:,}"
        )


def reachable(layout: tuple[str, ...]) -> set[int]:
    """Every square (and GOAL) a pawn reaches from square 1 without a red square."""
    seen, todo = {1}, [1]
    while todo:
        square = todo.pop()
        for throw in range(1, 7):
            final = landing(layout, square, throw)
            if final not in seen and final != RED:
                seen.add(final)
                if final != GOAL:
                    todo.append(final)
    return seen


@lru_cache(maxsize=256)
def mean_throws(layout: tuple[str, ...], seats: int, restart_game: bool) -> float:
    """The estimated mean number of throws of a game (see the module's docstring)."""
    if restart_game:
        won, stopped, alive = walks(layout, restart=False)
        wins = length = 0.0
        for k in range(1, len(alive)):
            for i in range(1, seats + 1):
                first = alive[k] ** (i - 1) * alive[k - 1] ** (seats - i)
                wins += won[k - 1] * first
                length += ((k - 1) * seats + i) * stopped[k - 1] * first
        length += len(alive) * seats * alive[-1] ** seats
        return length / wins if wins else float("inf")
    _, _, alive = walks(layout, restart=True)
    lasts = 1.0 + sum(
        alive[k] ** i * alive[k - 1] ** (seats - i)
        for k in range(1, len(alive))
        for i in range(1, seats + 1)
    )
    rate = (alive[-1] / alive[-2]) ** seats if alive[-2] else 0.0
    return lasts + seats * alive[-1] ** seats * rate / (1 - rate) if rate < 1 else float("inf")


def walks(layout: tuple[str, ...], restart: bool) -> tuple[list[float], list[float], list[float]]:
    """A lone pawn's walk from square 1, throw by throw: the chance it ends at the goal at
    throw k, ends at all at throw k (goal or red), and is still walking after k throws
    (``restart``: a red square sends it back to square 1 and the walk goes on)."""
    ends = [[landing(layout, square, throw) for throw in range(1, 7)] for square in range(GOAL)]
    mass, alive = [0.0] * (GOAL + 1), [1.0]
    mass[1] = 1.0
    won, stopped = [], []
    for _ in range(HORIZON):
        after = [0.0] * (GOAL + 1)
        for square in range(1, GOAL):
            if mass[square]:
                for final in ends[square]:
                    after[final] += mass[square] / 6
        won.append(after[GOAL])
        stopped.append(after[GOAL] + (0.0 if restart else after[RED]))
        after[1] += after[RED] if restart else 0.0
        after[GOAL] = after[RED] = 0.0
        mass = after
        alive.append(sum(mass))
        if alive[-1] < 1e-12:
            break
    return won, stopped, alive

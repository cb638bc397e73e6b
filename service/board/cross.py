"""The cross boards of ``parchis``, ``parchis-2dice`` and ``ludo``: four arms of three columns.

An arm is ``reach`` squares long: its outer columns and end square are track, its middle
column the owner's home column, leading to the goal in the centre; jails and yards fill the
corners. Places are given for the bottom arm (colour 0) and turned a quarter per colour.
"""

from __future__ import annotations

from typing import Any

from domain.parchis_board import LUDO, LUDO_SAFE, PARCHIS, Board
from service.board.labels import letter
from service.board.shapes import GOAL, PALE, PLAIN, SAFE, Layout, Point, Square, note, turn


def parchis_layout(options: dict[str, Any]) -> Layout:
    """The 68-square Parchís board with its twelve safe squares."""
    return layout(PARCHIS, PARCHIS.safe)


def ludo_layout(options: dict[str, Any]) -> Layout:
    """The 52-square Ludo board; safe squares as the ``safe_squares`` option says."""
    return layout(LUDO, LUDO_SAFE[str(options.get("safe_squares", "none"))])


def layout(board: Board, safe: frozenset[int]) -> Layout:
    """Track, home columns, goals and jails of every colour of ``board``."""
    reach = board.lane + 1
    size = 2 * reach + 3
    exits = {cells[0]: colour for colour, cells in enumerate(board.cells)}
    squares = [track(board, cell, point, safe, exits) for cell, point in track_points(board, reach)]
    for colour, name in enumerate(board.colours):
        squares += own_places(board, colour, name, reach)
    centre = size / 2
    squares.append(Square("goal", centre, centre, 1.0, (GOAL,), note=(note("svg.note.goal"),)))
    return Layout(size, size, tuple(squares))


def track_points(board: Board, reach: int) -> list[tuple[int, Point]]:
    """Each track cell with its centre: arm by arm, the end of colour 0's arm is its entrada."""
    size = 2 * reach + 3
    middle = reach + 1
    arm = [
        *((middle - 1, reach + 3 + j) for j in range(reach)),
        (middle, size - 1),
        *((middle + 1, size - 1 - j) for j in range(reach)),
    ]
    path = [place(point, size, -quarter) for quarter in range(4) for point in arm]
    entrada = board.cells[0][board.track_steps - 1]
    return [((entrada + i - reach) % board.track, point) for i, point in enumerate(path)]


def place(cell: Point, size: int, quarters: int) -> Point:
    """The centre of grid cell ``cell`` of the bottom arm, turned to another arm."""
    half = size / 2
    return turn((cell[0] + 0.5, cell[1] + 0.5), (half, half), quarters)


def track(
    board: Board, cell: int, point: Point, safe: frozenset[int], exits: dict[int, int]
) -> Square:
    """One track square: an exit square in its colour, a safe square grey and marked."""
    fills = (PALE[board.colours[exits[cell]]],) if cell in exits else (PLAIN,)
    if cell in safe and cell not in exits:
        fills = (SAFE,)
    mark = "safe" if cell in safe else ""
    colour = board.colours[exits[cell]] if cell in exits else ""
    exit_note = (note("svg.note.exit", colour=colour),) if colour else ()
    said = exit_note + ((note("svg.note.safe"),) if mark else ())
    sign = letter(colour)
    return Square(board.cell_name(cell), *point, fills=fills, mark=mark, note=said, sign=sign)


def own_places(board: Board, colour: int, name: str, reach: int) -> list[Square]:
    """A colour's home column, its goal triangle in the centre and its jail in a corner."""
    size = 2 * reach + 3
    middle = reach + 1
    lane = [
        Square(
            f"lane:{name}:{k}",
            *place((middle, size - 1 - k), size, -colour),
            fills=(PALE[name],),
        )
        for k in range(1, board.lane + 1)
    ]
    goal = place((middle, middle + 1), size, -colour)
    corner = reach + 3 + (reach - 1) / 2
    jail = place((corner, corner), size, -colour)
    return [
        *lane,
        Square(f"home:{name}", *goal, 1.0, (PALE[name],)),
        Square(f"start:{name}", *jail, reach - 1.0, (PALE[name],), round=True),
    ]

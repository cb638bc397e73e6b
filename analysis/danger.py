"""How much each seat stands to lose to capture before its next turn, as the bots reckon it.

A piece on an open track square can be sent back to start by an opponent piece behind it
within reach (or entering from start onto it). The chance of that in the opponents' next
turns comes from the board the bots use (``bots.boards``: the chance that a piece ``d``
squares behind lands on one, by dice or cards); what the seat would lose is the piece's
moves gone, in the distance table's moves: its start distance less its distance now.
"""

from __future__ import annotations

from functools import lru_cache

from bots.boards import Board, board
from domain.model import View


@lru_cache(maxsize=64)
def _layout(ruleset: str, players: int, length: int) -> tuple[Board | None, tuple[float, ...]]:
    """The bots' board and, by squares behind (the loop round), the chance of a landing."""
    layout = board(ruleset, players, {"section_length": length})
    if layout is None:
        return None, ()
    loop = layout.loop
    reach = tuple(layout.reach.get(g if g <= loop // 2 else g - loop, 0.0) for g in range(loop))
    return layout, reach


def dangers(
    ruleset: str, shown: View, table: dict[int, dict[str, float]], start: float
) -> dict[int, float]:
    """Each seat's expected moves lost to capture on the others' next turns (0 for every seat
    where the bots know no board)."""
    seats = sorted({piece.seat for piece in shown.pieces})
    lost = dict.fromkeys(seats, 0.0)
    length = int(shown.options.get("section_length", 15))
    layout, reach = _layout(ruleset, len(seats), length)
    if layout is None:
        return lost
    teams = getattr(shown, "teams", None) or [[seat] for seat in seats]
    team_of = {seat: i for i, team in enumerate(teams) for seat in team}
    loop = layout.loop
    hunters: list[tuple[int, int, int]] = []
    exposed: list[tuple[int, int, float]] = []
    waiting: dict[int, int] = {}
    for piece in shown.pieces:
        seat, where = piece.seat, piece.at
        cell = layout.cell(where)
        if cell is None:
            if where == "start" and layout.enter:
                waiting[(layout.exits[seat] - layout.first) % loop] = team_of[seat]
            continue
        hunters.append((team_of[seat], cell, layout.to_home(seat, where) - layout.lane - 1))
        if where not in layout.safe:
            gone = start - table.get(seat, {}).get(where, start)
            exposed.append((seat, cell, max(gone, 0.0)))
    for seat, cell, gone in exposed:
        team = team_of[seat]
        chance = sum(
            reach[gap]
            for side, other, ahead in hunters
            if side != team and ((gap := (cell - other) % loop) <= ahead or gap > loop // 2)
        )
        if waiting.get(cell, team) != team:
            chance += layout.enter
        lost[seat] += min(chance, 1.0) * gone
    return lost

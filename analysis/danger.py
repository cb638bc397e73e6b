"""How much each seat stands to lose to capture before its next turn, as the bots reckon it.

The chance that a piece is sent back on the others' next turns is the expert bot's
(``bots.expert.Judge.exposure``: an opponent piece behind it within reach of dice or cards, or
one entering from start onto its square); what the seat would lose is the piece's moves gone,
in the distance table's moves: its start distance less its distance now.
"""

from __future__ import annotations

from bots.boards import board
from bots.expert import Judge
from domain.model import View


def dangers(
    ruleset: str, shown: View, table: dict[int, dict[str, float]], start: float
) -> dict[int, float]:
    """Each seat's expected moves lost to capture on the others' next turns (0 for every seat
    where the bots know no board)."""
    seats = sorted({piece.seat for piece in shown.pieces})
    lost = dict.fromkeys(seats, 0.0)
    layout = board(ruleset, len(seats), dict(shown.options))
    if layout is None:
        return lost
    teams = getattr(shown, "teams", None) or [[seat] for seat in seats]
    owner = {piece.id: piece.seat for piece in shown.pieces}
    at = {piece.id: piece.at for piece in shown.pieces}
    for piece, chance in Judge(layout, owner, teams).exposure(at):
        seat = owner[piece]
        gone = start - table.get(seat, {}).get(at[piece], start)
        lost[seat] += chance * max(gone, 0.0)
    return lost

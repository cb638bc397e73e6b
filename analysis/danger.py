"""How much each seat stands to lose to capture before its next turn, as the bots reckon it.

The chance that a piece is sent back on the others' next turns is the expert bot's
(``bots.expert.Judge.exposure``: an opponent piece behind it within reach of dice or cards, or
one entering from start onto its square); what the seat would lose is the piece's moves gone,
in the distance table's moves (``moves``, by colour): its start distance less its distance
now.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from bots.boards import board
from bots.expert import Judge
from domain.model import View

BOARD_OPTIONS = ("section_length", "win_condition")
"""The options that shape the bots' board."""

Pieces = tuple[tuple[str, int], ...]
Teams = tuple[tuple[int, ...], ...]


def dangers(
    ruleset: str, shown: View, moves: Callable[[int, str], float], start: float
) -> dict[int, float]:
    """Each seat's expected moves lost to capture on the others' next turns (0 for every seat
    where the bots know no board)."""
    at: dict[str, str] = {}
    owners: list[tuple[str, int]] = []
    for one in shown.pieces:
        at[one.id] = one.at
        owners.append((one.id, one.seat))
    seats = sorted({seat for _, seat in owners})
    lost = dict.fromkeys(seats, 0.0)
    options = tuple((key, shown.options[key]) for key in BOARD_OPTIONS if key in shown.options)
    teams = tuple(map(tuple, getattr(shown, "teams", None) or [[seat] for seat in seats]))
    judge = board_judge(ruleset, options, teams, tuple(owners))
    if judge is None:
        return lost
    owner = judge.owner
    for piece, chance in judge.exposure(at):
        seat = owner[piece]
        gone = start - moves(seat, at[piece])
        lost[seat] += chance * max(gone, 0.0)
    return lost


@lru_cache(maxsize=64)
def board_judge(
    ruleset: str, options: tuple[tuple[str, object], ...], teams: Teams, owners: Pieces
) -> Judge | None:
    """The expert's judge of one game's board, kept while its positions are scored (what it
    remembers grows with the squares its pieces stand on: a few hundred at most)."""
    seats = len({seat for _, seat in owners})
    layout = board(ruleset, seats, dict(options))
    return None if layout is None else Judge(layout, dict(owners), [list(t) for t in teams])

"""Version 1 of ``ludo``, kept so that games recorded under it replay unchanged.

Under version 1 a 6 that could not be used during the three tries gave another throw without
using up a try (so a seat could throw more than three times), and every 6 of the turn counted
towards the three 6s, consecutive or not. Version 2 (``domain/ludo.py``) ends the tries after
the third throw and counts only 6s in a row. Only games whose ``GameCreated`` says
``ruleset_version`` 1 (or says none: every game before version 2) are played by this module.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain import ludo
from domain.ludo import SIX, State

NAME = ludo.NAME
VERSION = 1
MIN_PLAYERS = ludo.MIN_PLAYERS
MAX_PLAYERS = ludo.MAX_PLAYERS
STACKING = ludo.STACKING
Options = ludo.Options
OPTIONS = ludo.OPTIONS
BOARD = ludo.BOARD
setup = ludo.setup


class LudoV1(ludo.Ludo):
    """Version 1's throws: every 6 of the turn counts, and an unusable 6 during the tries throws
    again without using a try."""

    def sixes_after(self, state: State, die: int) -> int:
        """Every 6 of the turn, consecutive or not."""
        return state.sixes + (die == SIX)

    def passed(self, state: State) -> State:
        """After an unusable throw: a 6 throws again, anything else uses up a try."""
        if state.sixes == ludo.PENALTY or (state.die != SIX and not state.tries):
            return ludo.end_turn(state)
        return replace(state, die=0, tries=state.tries - (state.die != SIX))

    def unused_reason(self, state: State) -> str:
        """Why an unusable throw passes under version 1."""
        reason = f"no legal move for a {state.die}"
        if state.die == SIX:
            return reason + "; throws again"
        if state.tries:
            return reason + f"; {state.tries} more {'try' if state.tries == 1 else 'tries'}"
        return reason


RULES = LudoV1()
"""The rule set's one instance: the module's protocol functions are its bound methods."""
to_act = RULES.to_act
legal_moves = RULES.legal_moves
chance = RULES.chance
automatic = RULES.automatic
decide = RULES.decide
apply = RULES.apply
view = RULES.view
finished = ludo.finished
redact = ludo.redact

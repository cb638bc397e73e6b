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
from domain.events import Event
from domain.ludo import SIX, State

NAME = ludo.NAME
VERSION = 1
MIN_PLAYERS = ludo.MIN_PLAYERS
MAX_PLAYERS = ludo.MAX_PLAYERS
STACKING = ludo.STACKING
Options = ludo.Options
OPTIONS = ludo.OPTIONS
BOARD = ludo.BOARD


def _sixes_after(state: State, die: int) -> int:
    return state.sixes + (die == SIX)


def _passed(state: State) -> State:
    if state.sixes == ludo.PENALTY or (state.die != SIX and not state.tries):
        return ludo.end_turn(state)
    return replace(state, die=0, tries=state.tries - (state.die != SIX))


def _unused_reason(state: State) -> str:
    reason = f"no legal move for a {state.die}"
    if state.die == SIX:
        return reason + "; throws again"
    if state.tries:
        return reason + f"; {state.tries} more {'try' if state.tries == 1 else 'tries'}"
    return reason


THROWS = ludo.Throws(_sixes_after, _passed, _unused_reason)
setup = ludo.setup


def automatic(state: State) -> list[Event]:
    """The three-6 penalty, and throws that cannot be used (version 1's tries)."""
    return ludo.throw_events(state, THROWS)


def apply(state: State, event: Event) -> State:
    """The reducer (version 1's tries and 6s)."""
    return ludo.reduce(state, event, THROWS)


to_act = ludo.to_act
legal_moves = ludo.legal_moves
chance = ludo.chance
decide = ludo.decide
view = ludo.view
finished = ludo.finished
redact = ludo.redact

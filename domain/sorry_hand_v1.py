"""Version 1 of ``sorry-hand``, kept so that games recorded under it replay unchanged.

Under version 1 the discards were shuffled back (``DeckShuffled``, automatic) as soon as a seat
that had played was to draw from an empty pile: with the play, so the state while that seat's
draw was pending showed the new pile and no discards. Version 2 (``domain/sorry_hand.py``)
shuffles at the draw (sorry-hand.md section 4 step 5, tricky case 10). Only games whose
``GameCreated`` says ``ruleset_version`` 1 (or says none: every game before version 2) are
played by this module.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain import sorry_hand
from domain.events import DeckShuffled, Event
from domain.model import ChanceNeed, Move, Pending, Viewer
from domain.sorry_hand import State

NAME = sorry_hand.NAME
VERSION = 1
MIN_PLAYERS = sorry_hand.MIN_PLAYERS
MAX_PLAYERS = sorry_hand.MAX_PLAYERS
Options = sorry_hand.Options
OPTIONS = sorry_hand.OPTIONS
setup = sorry_hand.setup
decide = sorry_hand.decide
apply = sorry_hand.apply
finished = sorry_hand.finished
redact = sorry_hand.redact


def _shuffle_due(state: State) -> bool:
    return not state.finished and state.phase == "draw" and not state.pile


def automatic(state: State) -> list[Event]:
    """Reshuffle the discards when a draw is due on an empty pile; pass an extra play after a
    2 that has no legal move."""
    if _shuffle_due(state):
        return [DeckShuffled(cards=len(state.discard))]
    return sorry_hand.automatic(state)


def to_act(state: State) -> list[Pending]:
    """As version 2, but nobody while the reshuffle is due."""
    return [] if _shuffle_due(state) else sorry_hand.to_act(state)


def legal_moves(state: State, seat: int) -> list[Move]:
    """As version 2, but none while the reshuffle is due."""
    return [] if _shuffle_due(state) else sorry_hand.legal_moves(state, seat)


def chance(state: State) -> ChanceNeed | None:
    """The deal, or one card from the draw pile, never from an empty one."""
    return None if _shuffle_due(state) else sorry_hand.chance(state)


def view(state: State, viewer: Viewer) -> sorry_hand.SorryHandView:
    """As version 2, with version 1's pending seats."""
    return replace(sorry_hand.view(state, viewer), to_act=to_act(state))

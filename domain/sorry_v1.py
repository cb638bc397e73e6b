"""Version 1 of ``sorry``, kept so that games recorded under it replay unchanged.

Under version 1 the discards were shuffled back (``DeckShuffled``, automatic) as soon as the
draw pile was empty and no card was held: with the move that used the last card, so the state
after it showed the new pile, not the empty one. Version 2 (``domain/sorry.py``) shuffles at
the draw that finds the pile empty (sorry.md section 4, step 1). Only games whose
``GameCreated`` says ``ruleset_version`` 1 (or says none: every game before version 2) are
played by this module.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain import sorry
from domain.events import DeckShuffled, Event
from domain.model import ChanceNeed, Move, Pending, Viewer
from domain.sorry import State

NAME = sorry.NAME
VERSION = 1
MIN_PLAYERS = sorry.MIN_PLAYERS
MAX_PLAYERS = sorry.MAX_PLAYERS
Options = sorry.Options
OPTIONS = sorry.OPTIONS
setup = sorry.setup
decide = sorry.decide
apply = sorry.apply
finished = sorry.finished
redact = sorry.redact


def _shuffle_due(state: State) -> bool:
    return not state.finished and state.card is None and not state.pile


def automatic(state: State) -> list[Event]:
    """Reshuffle an empty draw pile when no card is held; forfeit a card with no legal move."""
    if _shuffle_due(state):
        return [DeckShuffled(cards=len(state.discard))]
    return sorry.automatic(state)


def to_act(state: State) -> list[Pending]:
    """As version 2, but nobody while the reshuffle is due."""
    return [] if _shuffle_due(state) else sorry.to_act(state)


def legal_moves(state: State, seat: int) -> list[Move]:
    """As version 2, but none while the reshuffle is due."""
    return [] if _shuffle_due(state) else sorry.legal_moves(state, seat)


def chance(state: State) -> ChanceNeed | None:
    """One card from the draw pile, never from an empty one."""
    return None if _shuffle_due(state) else sorry.chance(state)


def view(state: State, viewer: Viewer) -> sorry.SorryView:
    """As version 2, with version 1's pending seats."""
    return replace(sorry.view(state, viewer), to_act=to_act(state))

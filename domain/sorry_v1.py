"""Version 1 of ``sorry``, kept so that games recorded under it replay unchanged.

Under version 1 the discards were shuffled back (``DeckShuffled``, automatic) as soon as the
draw pile was empty and no card was held: with the move that used the last card, so the state
after it showed the new pile, not the empty one. Version 2 (``domain/sorry.py``) shuffles at
the draw that finds the pile empty (sorry.md section 4, step 1). Only games whose
``GameCreated`` says ``ruleset_version`` 1 (or says none: every game before version 2) are
played by this module.
"""

from __future__ import annotations

from domain import sorry
from domain.events import DeckShuffled, Event
from domain.model import ChanceNeed, Move, Pending
from domain.sorry import State

NAME = sorry.NAME
VERSION = 1
MIN_PLAYERS = sorry.MIN_PLAYERS
MAX_PLAYERS = sorry.MAX_PLAYERS
Options = sorry.Options
OPTIONS = sorry.OPTIONS
setup = sorry.setup
finished = sorry.finished
redact = sorry.redact


def _shuffle_due(state: State) -> bool:
    return not state.finished and state.card is None and not state.pile


class SorryV1(sorry.Sorry):
    """Version 1's reshuffle: an automatic ``DeckShuffled`` as soon as it is due, during which
    nobody acts."""

    def automatic(self, state: State) -> list[Event]:
        """Reshuffle an empty draw pile when no card is held; forfeit a card with no legal
        move."""
        if _shuffle_due(state):
            return [DeckShuffled(cards=len(state.discard))]
        return super().automatic(state)

    def to_act(self, state: State) -> list[Pending]:
        """As version 2, but nobody while the reshuffle is due."""
        return [] if _shuffle_due(state) else super().to_act(state)

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """As version 2, but none while the reshuffle is due."""
        return [] if _shuffle_due(state) else super().legal_moves(state, seat)

    def chance(self, state: State) -> ChanceNeed | None:
        """One card from the draw pile, never from an empty one."""
        return None if _shuffle_due(state) else super().chance(state)


RULES = SorryV1()
"""The rule set's one instance: the module's protocol functions are its bound methods."""
to_act = RULES.to_act
legal_moves = RULES.legal_moves
chance = RULES.chance
automatic = RULES.automatic
decide = RULES.decide
apply = RULES.apply
view = RULES.view

"""Version 1 of ``sorry-hand``, kept so that games recorded under it replay unchanged.

Under version 1 the discards were shuffled back (``DeckShuffled``, automatic) as soon as a seat
that had played was to draw from an empty pile: with the play, so the state while that seat's
draw was pending showed the new pile and no discards. Version 2 (``domain/sorry_hand.py``)
shuffles at the draw (sorry-hand.md section 4 step 5, tricky case 10). Only games whose
``GameCreated`` says ``ruleset_version`` 1 (or says none: every game before version 2) are
played by this module.
"""

from __future__ import annotations

from domain import sorry_hand
from domain.events import DeckShuffled, Event
from domain.model import ChanceNeed, Move, Pending
from domain.sorry_hand import State

NAME = sorry_hand.NAME
VERSION = 1
MIN_PLAYERS = sorry_hand.MIN_PLAYERS
MAX_PLAYERS = sorry_hand.MAX_PLAYERS
Options = sorry_hand.Options
OPTIONS = sorry_hand.OPTIONS
setup = sorry_hand.setup
finished = sorry_hand.finished
redact = sorry_hand.redact


def _shuffle_due(state: State) -> bool:
    return not state.finished and state.phase == "draw" and not state.pile


class SorryHandV1(sorry_hand.SorryHand):
    """Version 1's reshuffle: an automatic ``DeckShuffled`` as soon as it is due, during which
    nobody acts."""

    def automatic(self, state: State) -> list[Event]:
        """Reshuffle the discards when a draw is due on an empty pile; pass an extra play
        after a 2 that has no legal move."""
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
        """The deal, or one card from the draw pile, never from an empty one."""
        return None if _shuffle_due(state) else super().chance(state)


RULES = SorryHandV1()
"""The rule set's one instance: the module's protocol functions are its bound methods."""
to_act = RULES.to_act
legal_moves = RULES.legal_moves
chance = RULES.chance
automatic = RULES.automatic
decide = RULES.decide
apply = RULES.apply
view = RULES.view

"""Parchís with two dice (rule set ``parchis-2dice``, rules/parchis.md §8).

The board, seats, positions, options and move ids are those of ``parchis``, whose engine this
rule set shares; only the throw differs: two dice, exits on each 5 or on a sum of 5, doubles
throw again, impose the barrier duty and count towards the three-doubles penalty. A play is the
ordered list of its sub-moves, e.g. ``5:start>track:5,3:track:5>track:8`` or
``2:track:30>track:32,4:track:32>track:36``; plays ending in the same position are one play.

This is version 3: each throw is decided as one unit, bonus counts and wins included
(``parchis_throw.WholeThrow``, whose docstring holds the readings it chose), with the barrier
duty judged once the exits are made, before an exit's bonus. Earlier versions are kept so that
games recorded under them replay as they were played: version 2 (``parchis_2dice_v2``) judged
the duty after that bonus; version 1 (``parchis_2dice_v1``) ended the play at a die move that
earned a bonus or won, the dice left making a new throw.
"""

from __future__ import annotations

from typing import Any

from domain import parchis
from domain.parchis import State
from domain.parchis_throw import WholeThrow

NAME = "parchis-2dice"
VERSION = 3
MIN_PLAYERS = parchis.MIN_PLAYERS
MAX_PLAYERS = parchis.MAX_PLAYERS
STACKING = True
"""Two pieces of one colour may share a square (a barrier)."""
Options = parchis.Options
OPTIONS: dict[str, Any] = dict(parchis.OPTIONS)
BOARD = parchis.BOARD


def setup(options: dict[str, Any], seats: int) -> State:
    """All pieces in jail, Yellow (seat 0) to throw two dice, each throw one unit."""
    return parchis.new_state(NAME, options, seats, dice=2)


RULES = WholeThrow(exits_set_duty=True)
"""The rule set's one instance: the module's protocol functions are its bound methods."""
to_act = RULES.to_act
legal_moves = RULES.legal_moves
chance = RULES.chance
automatic = RULES.automatic
decide = RULES.decide
apply = RULES.apply
view = RULES.view
finished = parchis.finished
redact = parchis.redact

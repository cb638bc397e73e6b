"""Parchís with two dice (rule set ``parchis-2dice``, rules/parchis.md §8).

The board, seats, positions, options and move ids are those of ``parchis``, whose engine this
rule set shares; only the throw differs: two dice, exits on each 5 or on a sum of 5, doubles
throw again, impose the barrier duty and count towards the three-doubles penalty. A play is the
ordered list of its sub-moves, e.g. ``5:start>track:5,3:track:5>track:8`` or
``2:track:30>track:32,4:track:32>track:36``; plays ending in the same position are one play.

Version 2 (issue 21) decides each throw as one unit, bonus counts and wins included
(``domain/parchis_throw.py`` holds the readings it chose); version 1, where a die move that
earned a bonus or won ended the play and the dice left made a new throw, is
``domain/parchis_2dice_v1.py``, kept so games recorded under it replay as they were played.
"""

from __future__ import annotations

from typing import Any

from domain import parchis
from domain.parchis import State

NAME = "parchis-2dice"
VERSION = 2
MIN_PLAYERS = parchis.MIN_PLAYERS
MAX_PLAYERS = parchis.MAX_PLAYERS
STACKING = True
"""Two pieces of one colour may share a square (a barrier)."""
Options = parchis.Options
OPTIONS: dict[str, Any] = dict(parchis.OPTIONS)
BOARD = parchis.BOARD


def setup(options: dict[str, Any], seats: int) -> State:
    """All pieces in jail, Yellow (seat 0) to throw two dice, each throw one unit."""
    return parchis.new_state(NAME, options, seats, dice=2, whole_throw=True)


to_act = parchis.to_act
legal_moves = parchis.legal_moves
chance = parchis.chance
automatic = parchis.automatic
decide = parchis.decide
apply = parchis.apply
view = parchis.view
finished = parchis.finished

redact = parchis.redact

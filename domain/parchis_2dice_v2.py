"""Version 2 of ``parchis-2dice``, kept so that games recorded under it replay unchanged.

Version 2 decided each throw as one unit, as version 3 (``domain/parchis_2dice.py``) does, but
judged the barrier duty once the bonus of an exit's capture was played: a bonus count that
opened the barrier lifted the duty, so the die left could move any piece. Only games whose
``GameCreated`` says ``ruleset_version`` 2 are played by this module.
"""

from __future__ import annotations

from domain import parchis, parchis_2dice
from domain.parchis_throw import WholeThrow

NAME = parchis_2dice.NAME
VERSION = 2
MIN_PLAYERS = parchis_2dice.MIN_PLAYERS
MAX_PLAYERS = parchis_2dice.MAX_PLAYERS
STACKING = parchis_2dice.STACKING
Options = parchis_2dice.Options
OPTIONS = parchis_2dice.OPTIONS
BOARD = parchis_2dice.BOARD
setup = parchis_2dice.setup

RULES = WholeThrow(exits_set_duty=False)
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

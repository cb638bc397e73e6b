"""Version 1 of ``parchis-2dice``, kept so that games recorded under it replay unchanged.

Under version 1 a die move that earned a bonus count (or won) ended the play, as if it had used
the whole throw, and the dice left after the bonus were played as a new throw (exits and the
barrier duty judged again): ``parchis.Parchis``, which plays a throw a part at a time. Version 2
(``domain/parchis_2dice_v2.py``) and version 3 (``domain/parchis_2dice.py``) decide the throw
as one unit. Only games whose ``GameCreated`` says ``ruleset_version`` 1 (or says none: every
game before version 2) are played by this module.
"""

from __future__ import annotations

from domain import parchis, parchis_2dice

NAME = parchis_2dice.NAME
VERSION = 1
MIN_PLAYERS = parchis_2dice.MIN_PLAYERS
MAX_PLAYERS = parchis_2dice.MAX_PLAYERS
STACKING = parchis_2dice.STACKING
Options = parchis_2dice.Options
OPTIONS = parchis_2dice.OPTIONS
BOARD = parchis_2dice.BOARD
setup = parchis_2dice.setup

RULES = parchis.Parchis()
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

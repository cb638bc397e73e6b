"""Who acts on a game, and who may look at it."""

from __future__ import annotations

from enum import Enum
from typing import Literal

import msgspec

from domain.model import Viewer

Actor = int | Literal["referee", "server", "bot"]
"""Who caused an event (its ``by``): a seat for its own act, the referee (for itself or for a
seat, which the event names), the bot playing a seat (which the event names; the log's
``GameCreated`` and ``SeatHandedOver`` say which bot), or the server (automatic moves,
automatic chance, clocks)."""

Role = Viewer
"""What a bearer token makes its holder in one game: a seat, the referee, or (no token) a
spectator."""


class ServerBot(Enum):
    """The caller of a server-side bot's write: it holds no token, acts as ``"bot"`` (the
    events' ``by``) and its Idempotency-Keys are scoped to the bots (the value), as a seat's
    are to its token."""

    CALLER = "bot"


SERVER_BOT = ServerBot.CALLER
"""The one server-side bot caller (``Commands.play(game_id, SERVER_BOT, ...)``)."""
BOT: Actor = "bot"
"""The actor of a bot's moves: their ``by``."""


class Player(msgspec.Struct, frozen=True):
    """A caller who showed a registered player's key, checked (``service/api/identity.py``):
    the player's handle as registered. In a game it is the seat that belongs to that player."""

    handle: str


class App(msgspec.Struct, frozen=True):
    """A caller who showed a registered app's key, checked (``service/api/identity.py``): a
    frontend that registers players in its namespace (``<name>:<handle>``) and mints their
    keys. It never acts in a game itself."""

    name: str


Caller = str | None | ServerBot | Player
"""Who asks for a write: a bearer token (None: none, refused with 401), a registered player
(its key checked), or ``SERVER_BOT``."""

GameCaller = str | Player | None
"""Who asks a game's route: a game's token as it came (``Game.role`` judges it), a registered
player whose key was checked (the seat that belongs to them), or None (no token)."""

Bearer = str | Player | App | None
"""Who a request's ``Authorization: Bearer`` makes its caller (``service/api/identity.py``):
a game's or a tournament's token as it came, a registered player or app whose key was
checked, or None (no header)."""

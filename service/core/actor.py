"""Who acts on a game, and who may look at it."""

from __future__ import annotations

from typing import Literal

from domain.model import Viewer

Actor = int | Literal["referee", "server", "bot"]
"""Who caused an event (its ``by``): a seat for its own act, the referee (for itself or for a
seat, which the event names), the bot playing a seat (which the event names; the log's
``GameCreated`` and ``SeatHandedOver`` say which bot), or the server (automatic moves,
automatic chance, clocks)."""

Role = Viewer
"""What a bearer token makes its holder in one game: a seat, the referee, or (no token) a
spectator."""

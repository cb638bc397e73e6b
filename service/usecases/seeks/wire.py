"""The seeks' routes' request bodies and replies."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from domain.registry import RULESETS
from service.core.commands import RulesetName, SeatName

PlayerCount = Annotated[
    int,
    msgspec.Meta(
        ge=min(r.MIN_PLAYERS for r in RULESETS.values()),
        le=max(r.MAX_PLAYERS for r in RULESETS.values()),
    ),
]
Seconds = Annotated[float, msgspec.Meta(ge=0, le=3600)]


class BotsAfter(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A seek still waiting ``seconds`` after it was posted is seated with bots of ``level``
    (``GET /bots``) in the seats nobody took."""

    seconds: Seconds
    level: str = "greedy"


class PostSeek(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /seeks``: a table of ``ruleset`` for ``players`` seats, ``rated`` or not (a
    rated seek is a registered player's), with ``options`` (the rule set's, as ``POST
    /games`` takes them); ``bots_after``: bots fill the table after a wait; ``name``: a
    guest's seat name (a player's seat is named for her handle)."""

    ruleset: RulesetName
    players: PlayerCount
    rated: bool = False
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    bots_after: BotsAfter | None = None
    name: SeatName = ""


class NewSeek(msgspec.Struct, frozen=True):
    """A seek posted: its ``id`` and, for a guest, the ``secret`` that shows the seek is hers
    (``GET /seeks/{id}``, ``DELETE /seeks/{id}``) and becomes her seat's token once matched:
    shown only here (null for a registered player, whose key does both)."""

    id: str
    secret: str | None = None


SeekStatus = Literal["waiting", "matched", "expired", "cancelled"]


class SeekView(msgspec.Struct, frozen=True):
    """A seek as its owner sees it: ``waiting`` (until ``expires_at``), ``matched`` (its
    table ``game_id`` and ``seat``), ``expired`` or ``cancelled``."""

    id: str
    status: SeekStatus
    ruleset: str
    players: int
    rated: bool
    game_id: str | None = None
    seat: int | None = None
    expires_at: str | None = None

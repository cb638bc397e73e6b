"""The client's wire types: those generated from openapi.json (``wire``), under the names the
client has always used, plus the few the client adds (a record kept whole, a problem's extra
members).

Every game view is a ``GameView`` variant told apart by ``ruleset`` (``Race35View`` has
``statuses``, ``SorryHandView`` ``hands``, ...), every event a ``StoredEvent`` variant told
apart by ``type`` (``MovePlayedEvent.data`` is a ``MovePlayedData``). Unknown members are
ignored, so a newer server's additions do not break an older client.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tabula_client.wire import (
    Archive,
    Audit,
    BatchCreated,
    Created,
    Effect,
    EventOut,
    EventPage,
    GameList,
    GameSummary,
    GameView,
    Health,
    Leaderboard,
    LegalMoves,
    Me,
    Move,
    MyRating,
    NewKey,
    Pending,
    Piece,
    Played,
    Player,
    PlayerRuleset,
    RatedGame,
    Rating,
    Registered,
    RuleSetInfo,
    SeatView,
    Standing,
    Standings,
    Step,
    Tokens,
    Verification,
)
from tabula_client.wire import GameRecord as WireRecord

CreatedGame = Created
"""``POST /games`` and ``POST /games/import``: the id, version and tokens (shown once)."""
PlayResult = Played
"""A write's reply: the events appended, the state after them, the caller's legal moves now."""
StoredEvent = EventOut
"""One event of a game's log, a variant per ``type``."""
Seat = SeatView
"""A seat of a game view."""
Uses = str | list[int] | None
"""What a move uses: a card (``"7"``), the dice (``[3, 5]``) or nothing (a draw or roll)."""


class GameRecord(WireRecord, frozen=True, kw_only=True):
    """``GET /games/{id}/export``: a self-contained game record.

    ``raw`` holds the record exactly as the server sent it (decoded JSON); ``import_game``
    sends ``raw``, so an exported record is re-imported member for member (events are hashed
    as sent, so re-encoding the typed record could break their chain).
    """

    raw: dict[str, Any] = msgspec.field(default_factory=dict)


class Problem(msgspec.Struct, frozen=True):
    """An RFC 9457 problem; ``extra`` holds members beyond the standard ones."""

    type: str = "about:blank"
    title: str = ""
    status: int = 0
    detail: str = ""
    instance: str | None = None
    extra: dict[str, Any] = {}

    @property
    def slug(self) -> str:
        """The last segment of ``type``: ``illegal-move`` for ``.../problems/illegal-move``."""
        return self.type.rstrip("/").rsplit("/", 1)[-1]


__all__ = [
    "Archive",
    "Audit",
    "BatchCreated",
    "CreatedGame",
    "Effect",
    "EventPage",
    "GameList",
    "GameRecord",
    "GameSummary",
    "GameView",
    "Health",
    "Leaderboard",
    "LegalMoves",
    "Me",
    "Move",
    "MyRating",
    "NewKey",
    "Pending",
    "Piece",
    "PlayResult",
    "Player",
    "PlayerRuleset",
    "Problem",
    "RatedGame",
    "Rating",
    "Registered",
    "RuleSetInfo",
    "Seat",
    "Standing",
    "Standings",
    "Step",
    "StoredEvent",
    "Tokens",
    "Uses",
    "Verification",
]

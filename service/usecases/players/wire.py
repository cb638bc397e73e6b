"""The players' routes' request bodies and replies, and a player's record."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from eventstore import StoredEvent
from service.usecases.replies import GameSummary

PLAYER_FORMAT = "tabula-player-record"
MAX_TEXT = 200  # characters a handle's request may have (the rules allow at most 32)


class Register(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /players``: the handle wanted (an app's key registers it in the app's
    namespace, ``<app>:<handle>``)."""

    handle: Annotated[str, msgspec.Meta(max_length=MAX_TEXT)]


class KeyRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /me/keys``, ``POST /players/{handle}/keys``: no field (the body may be left
    out, or be ``{}``)."""


class Registered(msgspec.Struct, frozen=True):
    """A handle as registered and the player's key: the only copy, shown once."""

    handle: str
    key: str


class NewKey(msgspec.Struct, frozen=True):
    """A new key (the only copy): the one before it no longer works."""

    key: str


class MyRating(msgspec.Struct, frozen=True):
    """A player's rating in one rule set (``GET /players/{name}`` has its games)."""

    ruleset: str
    rank: int
    mu: float
    sigma: float
    ordinal: float
    games: int
    wins: int


class Invitation(msgspec.Struct, frozen=True):
    """A seat kept for the player at a table that gathers: accepted by joining it (``POST
    /games/{game_id}/join``), refused by declining (``POST /games/{game_id}/decline``);
    ``rematch_of`` names the finished game it is the rematch of."""

    game_id: str
    seat: int
    ruleset: str
    rated: bool
    created_at: str
    rematch_of: str | None = None


class Me(msgspec.Struct, frozen=True):
    """``GET /me``: the player's handle, ratings, latest games (running and finished, newest
    first), latest tournaments (those she was entered in by handle, newest first, each as
    ``GET /tournaments`` lists it: ``id``, ``name``, ``status``, ...) and the invitations
    waiting for her (oldest first)."""

    handle: str
    ratings: list[MyRating]
    games: list[GameSummary]
    tournaments: list[dict[str, Any]]
    invitations: list[Invitation]


class PlayerEventOut(StoredEvent, frozen=True):
    """A stored event of a player's stream, as chained in the store (``hash`` over its
    ``stream_id``, ``player-<id>``)."""


class PlayerRecord(msgspec.Struct, frozen=True):
    """A player's log, hash-chained like a game's: registration, every key issued (its
    sha256 digest only) and the retirement, if any. ``python -m service verify`` checks it
    offline."""

    handle: str
    events: list[PlayerEventOut]
    format: str = PLAYER_FORMAT
    format_version: int = 1

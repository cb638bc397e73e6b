"""What use cases answer: the HTTP API's reply bodies (msgspec Structs)."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from domain.model import Move
from domain.registry import GameView
from eventstore import StoredEvent


class Health(msgspec.Struct, frozen=True):
    """``GET /health``: the service answers."""

    status: str = "ok"


class Tokens(msgspec.Struct, frozen=True):
    """A new game's tokens, shown only here: the referee's and each seat's (null for a seat
    that belongs to a registered player, which only the player's key plays)."""

    referee: str
    seats: list[str | None]


class Created(msgspec.Struct, frozen=True):
    id: str
    version: int
    seed_commitment: str
    tokens: Tokens


class LegalMoves(msgspec.Struct, frozen=True):
    version: int
    moves: list[Move]


class EventOut(StoredEvent, frozen=True):
    """A stored event as the API shows it."""

    stream_id: str = msgspec.field(name="game_id")


class TournamentEventOut(StoredEvent, frozen=True):
    """A stored tournament event, as chained in the store (``hash`` over ``tournament_id``
    as the stream id)."""

    stream_id: str = msgspec.field(name="tournament_id")


Wire = TypeVar("Wire", EventOut, TournamentEventOut)


def wire(shape: type[Wire], stored: StoredEvent) -> Wire:
    """``stored`` on the wire with every field, its stream id named as the shape names it
    (``game_id`` or ``tournament_id``, as records have always named it): the one converter
    of a stored event."""
    return shape(*msgspec.structs.astuple(stored))


class EventPage(msgspec.Struct, frozen=True):
    version: int
    events: list[EventOut]


class Played(msgspec.Struct, frozen=True, omit_defaults=True):
    """A write's reply; ``legal_moves`` saves the caller a GET /legal-moves before its next move.
    ``state`` is left out when the caller asked for ``Prefer: return=minimal``."""

    version: int
    events: list[EventOut]
    legal_moves: list[Move]
    state: GameView | msgspec.UnsetType = msgspec.UNSET


class GameSummary(msgspec.Struct, frozen=True):
    """A game in lists and results: who played, who won, how many pieces each got home (a
    running game has no winners and no pieces home yet), when it finished, whether its
    result counts towards ratings, and the rematches it follows and led to."""

    id: str
    ruleset: str
    status: str
    version: int
    seats: list[str]
    created_at: str
    tags: dict[str, str]
    winners: list[str]
    pieces_home: dict[str, int]
    finished_at: str | None = None
    rated: bool = True
    rematch_of: str | None = None
    """The finished game this one is the rematch of (null for none)."""
    rematch: str | None = None
    """The table a rematch of this finished game created (null until one is asked for)."""


class GameList(msgspec.Struct, frozen=True):
    """A page of games; ``next`` is the path and query of the next page (null on the last)."""

    games: list[GameSummary]
    next: str | None = None


class RuleSetInfo(msgspec.Struct, frozen=True):
    name: str
    version: int
    min_players: int
    max_players: int
    options: dict[str, Any]


class RuleSetList(msgspec.Struct, frozen=True):
    rulesets: list[RuleSetInfo]


class BotInfo(msgspec.Struct, frozen=True):
    """A bot level: its name (what a seat's ``bot`` names), a one-line description, the
    version of its play and the rule sets it plays."""

    name: str
    description: str
    version: int
    rulesets: list[str]


class BotList(msgspec.Struct, frozen=True):
    """``GET /bots``: the levels, weakest first."""

    bots: list[BotInfo]


class RuleSetDetail(RuleSetInfo, frozen=True):
    """``GET /rulesets/{name}``: a rule set's player counts, its options' defaults and JSON
    Schema (allowed values, defaults, meanings), and its rules text as markdown."""

    options_schema: dict[str, Any]
    rules: str


class BatchCreated(msgspec.Struct, frozen=True):
    games: list[Created]

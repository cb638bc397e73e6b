"""Request and response bodies of the HTTP API (msgspec Structs, validated at the edge)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from domain.model import Move, Step
from domain.registry import RULESETS
from service.clocks import Clock

# Documented, not enforced here: the use case answers other values with their own problems
# (unknown-ruleset, bad-setup). Litestar reads schema additions from ``extra_json_schema["extra"]``.
RulesetName = Annotated[str, msgspec.Meta(extra_json_schema={"extra": {"enum": sorted(RULESETS)}})]
SeatList = Annotated[
    list["SeatSpec"],
    msgspec.Meta(
        extra_json_schema={
            "extra": {
                "minItems": min(r.MIN_PLAYERS for r in RULESETS.values()),
                "maxItems": max(r.MAX_PLAYERS for r in RULESETS.values()),
            }
        }
    ),
]


class SeatSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str = msgspec.field(default="")


class CreateGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games``; ``auto_chance`` and ``allow_undo`` may also be given in ``options``."""

    ruleset: RulesetName
    seats: SeatList
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    chance: Literal["server", "external"] = "server"
    seed: str | None = None
    auto_chance: bool = False
    allow_undo: bool = False
    tags: dict[str, str] = msgspec.field(default_factory=dict)
    clock: Clock | None = None


class Tokens(msgspec.Struct, frozen=True):
    referee: str
    seats: list[str]


class Created(msgspec.Struct, frozen=True):
    id: str
    version: int
    seed_commitment: str
    tokens: Tokens


class PlayMove(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games/{id}/moves``: a move id from legal-moves, or its steps."""

    move: str | None = None
    steps: list[Step] | None = None
    expected_version: int | None = None
    seat: int | None = None


class Undo(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games/{id}/undo``."""

    reason: str = ""
    expected_version: int | None = None


class PostChance(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games/{id}/chance``: the card drawn, the dice thrown or the hands dealt."""

    card: str | None = None
    dice: list[int] | None = None
    hands: list[list[str]] | None = None
    expected_version: int | None = None


class Adjudicate(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games/{id}/adjudicate``: a referee's decision with its reason."""

    kind: Literal["forfeit", "penalty", "agreement"]
    reason: str
    seat: int | None = None
    winners: list[int] | None = None
    expected_version: int | None = None


class LegalMoves(msgspec.Struct, frozen=True):
    version: int
    moves: list[Move]


class EventOut(msgspec.Struct, frozen=True):
    """A stored event as the API shows it."""

    game_id: str
    version: int
    type: str
    data: dict[str, Any]
    by: int | str
    at: str
    prev_hash: str
    hash: str


class EventPage(msgspec.Struct, frozen=True):
    version: int
    events: list[EventOut]


class Played(msgspec.Struct, frozen=True):
    """A write's reply; ``legal_moves`` saves the caller a GET /legal-moves before its next move."""

    version: int
    events: list[EventOut]
    state: dict[str, Any]
    legal_moves: list[Move]


class GameSummary(msgspec.Struct, frozen=True):
    """A game in lists and results: who played, who won, how many pieces each got home."""

    id: str
    ruleset: str
    status: str
    version: int
    seats: list[str]
    created_at: str
    tags: dict[str, str]
    winners: list[str]
    pieces_home: dict[str, int]


class GameList(msgspec.Struct, frozen=True):
    games: list[GameSummary]


class RuleSetInfo(msgspec.Struct, frozen=True):
    name: str
    version: int
    min_players: int
    max_players: int
    options: dict[str, Any]


class RuleSetList(msgspec.Struct, frozen=True):
    rulesets: list[RuleSetInfo]

"""The commands a game takes: what callers ask for, as the HTTP API's request bodies.

msgspec Structs, validated at the edge; the referee judges them against the game."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from domain.model import Step
from domain.registry import RULESETS
from service.core.clocks import Absence, Clock
from service.core.delay import SpectatorDelay
from service.core.fields import PRINTABLE

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


MAX_NAME = 64
"""The longest seat name, in characters (a name is shown on boards, standings and views)."""
SeatName = Annotated[str, msgspec.Meta(max_length=MAX_NAME, pattern=PRINTABLE)]


class SeatSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A seat: its player's name (``Player <n>`` when empty), at most ``MAX_NAME`` characters,
    none of them a control character; ``bot``: the level of the bot (``GET /bots``) that plays
    it, or null for a person; ``player``: the handle of the registered player the seat
    belongs to (its name is the handle; only that player's key acts for it). ``open``: the
    seat is left for anyone to join (``POST /games/{id}/join``); ``invite``: it is kept for
    the registered player of that handle, who joins or declines it. A game with an open or
    invited seat gathers until they are taken: nobody acts before."""

    name: SeatName = ""
    bot: str | None = None
    player: SeatName | None = None
    open: bool = False
    invite: SeatName | None = None


class CreateGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games``; ``auto_chance`` and ``allow_undo`` may also be given in ``options``;
    ``rated`` says whether the result counts towards the players' ratings; ``allow_hints``
    lets each seat ask for its moves ranked (``GET /games/{id}/hints``: only in unrated games
    outside tournaments); ``absent`` says what happens to a seat that must act and has been
    away for ``after`` seconds (``then``: ``bot:<level>``, ``forfeit`` or ``pass``)."""

    ruleset: RulesetName
    seats: SeatList
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    chance: Literal["server", "external"] = "server"
    seed: str | None = None
    auto_chance: bool = False
    allow_undo: bool = False
    tags: dict[str, str] = msgspec.field(default_factory=dict)
    clock: Clock | None = None
    rated: bool = True
    spectator_delay: SpectatorDelay | None = None
    allow_hints: bool = False
    absent: Absence | None = None
    unlisted: bool = False
    """A table with open seats that ``GET /lobby`` does not list: joined by its link only."""


class CreateBatch(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games/batch``: the tables of a round."""

    games: list[CreateGame]


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


class SeatToBot(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games/{id}/seats/{n}/bot``: the level of the bot (``GET /bots``) the referee
    hands the seat to, and why."""

    bot: str
    reason: str = ""
    expected_version: int | None = None


class HandOver(msgspec.Struct, frozen=True):
    """The referee hands ``seat`` to a bot (``bot``: a level, ``version``: the level's) or,
    with ``bot`` null, back to its player (``DELETE /games/{id}/seats/{n}/bot``)."""

    bot: str | None = None
    reason: str = ""
    expected_version: int | None = None
    seat: int = -1
    version: int = 0


class Timeout(msgspec.Struct, frozen=True):
    """The server's: ``seat`` ran out of time (the use case has checked its clock) or, with
    ``absent``, was away too long (the table's absence rule; the use case has checked its
    presence); ``version``: that of the bot level the seat is handed to, if it is."""

    seat: int
    version: int = 0
    absent: bool = False


class ShowHints(msgspec.Struct, frozen=True):
    """A seat is shown hints at ``expected_version`` by the analysis ``method`` (recorded
    as ``HintsShown``)."""

    seat: int
    method: str
    expected_version: int | None = None


class JoinTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games/{id}/join``: the seat wanted (null: the caller's invited seat, else the
    first open one) and, for a guest (no player's key), the name to sit under (``Player
    <n>`` when empty)."""

    seat: int | None = None
    name: SeatName = ""


class TakeSeat(msgspec.Struct, frozen=True):
    """A seat taken by joining: by the registered player ``player`` (her handle, as her key
    says), else by a guest named ``name`` who holds the token whose sha256 hex is
    ``digest``; ``seat`` null: the joiner's invited seat, else the first open one."""

    seat: int | None = None
    name: str = ""
    player: str = ""
    digest: str = ""


class LeaveTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games/{id}/leave``: the caller's seat, taken by joining, is open again (before
    the table starts)."""

    expected_version: int | None = None


class DeclineInvitation(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games/{id}/decline``: the invited player declines her seat, which opens."""

    expected_version: int | None = None


class StartTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games/{id}/start``: the referee starts a gathering table now, bots of the
    level ``bots`` (``GET /bots``) in its open seats (refused while an invitation waits)."""

    bots: str | None = None
    expected_version: int | None = None


class StartWithBots(msgspec.Struct, frozen=True):
    """The referee starts a gathering table, a bot of ``level`` (of that level's
    ``version``) in each seat still open then."""

    level: str
    version: int = 0
    expected_version: int | None = None


class CancelTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games/{id}/cancel``: the referee closes a gathering table (no result)."""

    expected_version: int | None = None


class ExpireInvitations(msgspec.Struct, frozen=True):
    """The server's: the table's invitations ran out of time (the use case has checked)."""


class ExpireTable(msgspec.Struct, frozen=True):
    """The server's: the gathering table ran out of time (the use case has checked)."""


TableCommand = (
    TakeSeat
    | LeaveTable
    | DeclineInvitation
    | StartWithBots
    | CancelTable
    | ExpireInvitations
    | ExpireTable
)
"""What changes who sits at a gathering table (``service.core.tables``)."""
TABLE_COMMANDS = (
    TakeSeat,
    LeaveTable,
    DeclineInvitation,
    StartWithBots,
    CancelTable,
    ExpireInvitations,
    ExpireTable,
)

Command = PlayMove | Undo | PostChance | Adjudicate | HandOver | Timeout | ShowHints | TableCommand

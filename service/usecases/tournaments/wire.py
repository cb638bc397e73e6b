"""What the tournament routes take and answer (msgspec Structs): the request bodies, which
refuse unknown fields, and the replies."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from domain.tournament.standings import PlayerStanding
from service.core.clocks import Clock
from service.core.commands import RulesetName, SeatName
from service.core.delay import SpectatorDelay
from service.usecases.games.records import GameRecord
from service.usecases.replies import TournamentEventOut

MAX_PLAYERS = 256
"""The most players a tournament registers: pairing a round of 256 takes about 2 s."""
MAX_ROUNDS = 100
MAX_POINTS = 1000
"""The most points a place at a table (or a bye) may score: standings stay small numbers."""
Points = Annotated[int, msgspec.Meta(ge=0, le=MAX_POINTS)]
PlayerName = Annotated[SeatName, msgspec.Meta(min_length=1)]


class PlayerSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A player of the tournament: a guest by ``name``, unique in the tournament (at most 64
    characters), or a registered player by ``player``, the handle (``POST /players``) whose
    key plays the player's tables (named for the handle as registered; a ``name`` beside it
    must be that handle). ``bot``: the level of the bot (``GET /bots``) that plays a guest's
    seat at every table, or null for a person."""

    name: SeatName = ""
    bot: str | None = None
    player: SeatName | None = None


class CreateTournament(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /tournaments``. ``options``, ``chance`` and ``clock`` are every table's (as
    ``POST /games`` takes them). ``rounds`` defaults to the fewest in which every two players
    could meet; ``points[k]`` is what place k + 1 at a table scores (by default
    ``seats_per_table - 1`` down to 0), ``bye_points`` what a round sitting out scores (by
    default the middle place's points). ``rated`` and ``spectator_delay`` are kept with the
    tournament and handed to its games."""

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    ruleset: RulesetName
    players: Annotated[list[PlayerSpec], msgspec.Meta(min_length=2, max_length=MAX_PLAYERS)]
    format: Literal["swiss", "round-robin"] = "swiss"
    rounds: Annotated[int, msgspec.Meta(ge=1, le=MAX_ROUNDS)] | None = None
    seats_per_table: Annotated[int, msgspec.Meta(ge=2, le=6)] = 4
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    chance: Literal["server", "external"] = "server"
    clock: Clock | None = None
    points: Annotated[list[Points], msgspec.Meta(max_length=6)] = msgspec.field(
        default_factory=list
    )
    bye_points: Points | None = None
    rated: bool = True
    spectator_delay: SpectatorDelay | None = None


class PairRound(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /tournaments/{id}/rounds``: with ``expected_version``, 409 unless the tournament
    is at that version (a retried request never pairs two rounds)."""

    expected_version: int | None = None


class Withdraw(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /tournaments/{id}/withdrawals``: the player paired no more, and why."""

    player: PlayerName
    reason: Annotated[str, msgspec.Meta(max_length=500)] = ""


class PlayerToken(msgspec.Struct, frozen=True):
    """A player's link: their token, or null for a registered player (her key plays her
    tables and reads ``/me``; nobody else holds a token for her)."""

    name: str
    token: str | None


class TournamentTokens(msgspec.Struct, frozen=True):
    """The director's token (the referee of every table) and each guest's (their seat at
    every table they play; null for a registered player), shown only in the creation's
    reply."""

    director: str
    players: list[PlayerToken]


class TournamentCreatedReply(msgspec.Struct, frozen=True):
    id: str
    version: int
    tokens: TournamentTokens


class TableOut(msgspec.Struct, frozen=True):
    """A table of a round: its game, players in seat order and, once finished, the result
    and the points each scored."""

    table: int
    game_id: str
    seats: list[str]
    status: Literal["active", "finished"]
    winners: list[str]
    pieces_home: dict[str, int]
    points: dict[str, int]


class RoundOut(msgspec.Struct, frozen=True):
    round: int
    closed: bool
    tables: list[TableOut]
    byes: list[str]


class PlayerOut(msgspec.Struct, frozen=True):
    """A player of the tournament; ``player``: a registered player, whose name is her handle
    (her key plays her tables), rather than a guest."""

    name: str
    withdrawn: bool
    player: bool


class TournamentView(msgspec.Struct, frozen=True):
    """``GET /tournaments/{id}``: settings, players, and every round's tables and results
    (``teams``: players play in teams of two, formed in registration order)."""

    id: str
    version: int
    name: str
    ruleset: str
    options: dict[str, Any]
    format: str
    status: TournamentStatus
    round_count: int
    seats_per_table: int
    points: list[int]
    bye_points: int
    rated: bool
    spectator_delay: dict[str, int] | None
    teams: bool
    players: list[PlayerOut]
    rounds: list[RoundOut]


TournamentStatus = Literal["registering", "active", "finished"]


class TournamentListed(msgspec.Struct, frozen=True):
    """A tournament in ``GET /tournaments``: its settings' gist and how far it has got
    (``status`` as of the last change anyone caused or read: a round whose last game just
    finished closes when the tournament is next read)."""

    id: str
    name: str
    ruleset: str
    format: str
    status: TournamentStatus
    players: int
    seats_per_table: int
    round_count: int
    rounds_paired: int
    created_at: str


class TournamentList(msgspec.Struct, frozen=True):
    """A page of tournaments, oldest first; ``next`` is the path and query of the next page
    (null on the last)."""

    tournaments: list[TournamentListed]
    next: str | None = None


class RoundPairedReply(msgspec.Struct, frozen=True):
    """``POST /tournaments/{id}/rounds``: the new round (its games created) and the
    tournament's version after it."""

    version: int
    round: RoundOut


class MyTable(msgspec.Struct, frozen=True):
    """``GET /tournaments/{id}/me``: where the player sits in the latest round. ``seat_token``
    is the token to play that game with (the player's own token: one link for the whole
    event), null for a registered player, who plays it with her key; ``bye`` when the player
    sits this round out."""

    tournament_id: str
    name: str
    status: str
    withdrawn: bool
    round: int
    bye: bool
    table: int | None = None
    game_id: str | None = None
    seat: int | None = None
    seat_token: str | None = None
    game_status: str | None = None


class TournamentStandings(msgspec.Struct, frozen=True):
    """Points per place as configured, best first; ties by opponents' points, then pieces
    home, then name."""

    tournament_id: str
    status: str
    rounds_closed: int
    standings: list[PlayerStanding]


class TournamentRecordHead(msgspec.Struct, frozen=True):
    tournament_id: str
    events: list[TournamentEventOut]


TOURNAMENT_FORMAT = "tabula-tournament-record"


class TournamentRecord(TournamentRecordHead, frozen=True):
    """A tournament's log and the game records of its finished tables: ``python -m service
    verify`` checks both and that they agree."""

    games: list[GameRecord]
    format: str = TOURNAMENT_FORMAT
    format_version: int = 1


class TournamentRecordTail(msgspec.Struct, frozen=True):
    """A tournament record's fields after its games."""

    format: str = TOURNAMENT_FORMAT
    format_version: int = 1

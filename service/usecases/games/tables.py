"""Tables that gather: joining, leaving, declining, starting and cancelling (each a command
through ``Commands.write``, the one write path, with its Idempotency-Key as every write), and
the lobby that lists the tables waiting for players.

A guest who joins is given a fresh seat token, shown only in the reply; the event keeps its
sha256 (``SeatTaken.digest``). A join retried with the same Idempotency-Key gets the same
token back: it is made from the key and the game's secret seed, so the key stands for the
guest until she holds her token (give an unguessable one: a UUID). A registered player
joins with her key and is given no token: her key plays her seat.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

import msgspec

from eventstore import StoredEvent, Summarised, SummaryQuery
from service.core.actor import GameCaller, Player
from service.core.commands import (
    CancelTable,
    DeclineInvitation,
    JoinTable,
    LeaveTable,
    StartTable,
    StartWithBots,
    TakeSeat,
)
from service.core.names import normal as normal_name
from service.core.refusal import refuse
from service.core.seating import seated
from service.usecases import tokens
from service.usecases.cursors import Cursors
from service.usecases.games import summaries
from service.usecases.games.commands import Commands


class Joined(msgspec.Struct, frozen=True):
    """``POST /games/{id}/join``: the seat taken, its token (null for a registered player,
    whose key plays it; shown only here) and the game's version after the join."""

    seat: int
    token: str | None
    version: int


class LobbySeat(msgspec.Struct, frozen=True):
    """A seat of a table in the lobby: its name ("" while open), whether anyone may join it,
    and the handle of the invited player it is kept for."""

    seat: int
    name: str
    open: bool
    invite: str | None


class LobbyTable(msgspec.Struct, frozen=True):
    """A gathering table: its rule set, how many seats (``players``), each seat, its options,
    whether it is rated, and when it was created."""

    id: str
    ruleset: str
    players: int
    seats: list[LobbySeat]
    options: dict[str, Any]
    rated: bool
    created_at: str


class Lobby(msgspec.Struct, frozen=True):
    """``GET /lobby``: a page of tables waiting for players, the longest waiting first;
    ``next`` is the path and query of the next page (null on the last)."""

    tables: list[LobbyTable]
    next: str | None = None


class Tables:
    """The writes that seat a gathering table, and the lobby."""

    def __init__(self, commands: Commands, cursors: Cursors) -> None:
        self.commands = commands
        self.games = commands.games
        self.cursors = cursors  # the seal of the lobby's page cursors

    def join(self, game_id: str, caller: GameCaller, body: JoinTable, key: str | None) -> Joined:
        """Take a seat: the caller's invited seat, the one asked, or the first open one; a
        registered player as herself, a guest (no token) under ``body.name`` with a new
        token."""
        token: str | None = None
        if isinstance(caller, Player):
            command = TakeSeat(body.seat, player=caller.handle)
        else:
            name = normal_name(body.name, ("name",))
            with self.games.game(game_id, fresh=False) as game:
                token = guest_token(game_id, game.secrets.seed, key)
            command = TakeSeat(body.seat, name, digest=tokens.token_hash(token))
        stored = self.commands.write(game_id, caller, "join", command, key)
        seat = next(int(e.data["seat"]) for e in stored if e.type == "SeatTaken")
        return Joined(seat, token, stored[-1].version)

    def leave(
        self, game_id: str, caller: GameCaller, body: LeaveTable, key: str | None
    ) -> list[StoredEvent]:
        """Leave the seat the caller took by joining (it opens again)."""
        return self.commands.write(game_id, caller, "leave", body, key)

    def decline(
        self, game_id: str, caller: GameCaller, body: DeclineInvitation, key: str | None
    ) -> list[StoredEvent]:
        """Decline the seat the caller (a registered player) is invited to (it opens)."""
        return self.commands.write(game_id, caller, "decline", body, key)

    def cancel(
        self, game_id: str, caller: GameCaller, body: CancelTable, key: str | None
    ) -> list[StoredEvent]:
        """Close a gathering table, with no result (the referee)."""
        return self.commands.write(game_id, caller, "cancel", body, key)

    def start(
        self,
        game_id: str,
        caller: GameCaller,
        body: StartTable,
        key: str | None,
        owner: str | None = None,
    ) -> list[StoredEvent]:
        """Start a gathering table now, bots of ``body.bots``' level in its open seats (the
        referee): the game becomes ``owner``'s, within its cap of games with bots."""
        with self.games.game(game_id, fresh=False) as game:
            ruleset = game.created.ruleset
        level = seated(("bots",), body.bots, ruleset) if body.bots is not None else None
        command = StartWithBots(
            level.name if level else "", level.version if level else 0, body.expected_version
        )
        share = self.commands.bots
        with share.seating(owner, 0 if game_id in share.owned() or level is None else 1):
            return self.commands.write(game_id, caller, "start", command, key)

    def lobby(
        self,
        ruleset: str | None,
        players: int | None,
        rated: bool | None,
        limit: int,
        cursor: str | None,
    ) -> tuple[list[LobbyTable], str | None]:
        """A page of the listed tables with an open seat, the longest waiting first, of
        ``ruleset``, with ``players`` seats, rated or not, as asked; and the cursor of the
        next page (None on the last). A page is filled past the tables it leaves out."""
        if ruleset is not None and "\x00" in ruleset:
            why = "`ruleset`: holds a NUL character"
            raise refuse("validation-failed", why, parameter="ruleset")
        after = self.cursors.read(cursor, tuple[str, str])
        listed: list[tuple[Summarised, LobbyTable]] = []
        while True:
            query = SummaryQuery(
                ruleset, summaries.GATHERING, None, None, after, limit + 1, summaries.TOURNAMENT
            )
            rows = self.games.store.summaries(query)
            for row in rows:
                table = lobby_table(row)
                if table is not None and wanted(table, players, rated):
                    listed.append((row, table))
            if len(listed) > limit or len(rows) <= limit:
                break
            after = (rows[-1].created_at, rows[-1].stream_id)
        more, listed = len(listed) > limit, listed[:limit]
        last = listed[-1][0] if listed else None
        following = self.cursors.make(last.created_at, last.stream_id) if more and last else None
        return [table for _, table in listed], following


def guest_token(game_id: str, seed: str, key: str | None) -> str:
    """A guest's new seat token: 256 random bits, or with an Idempotency-Key, 256 bits made
    from the key and the game's secret seed (the same key gets the same token back)."""
    if key is None:
        return tokens.new_token()
    made = hmac.new(seed.encode(), f"seat-token\n{game_id}\n{key}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(made.digest()).rstrip(b"=").decode()


def lobby_table(row: Summarised) -> LobbyTable | None:
    """A gathering table as the lobby lists it, from its summary; None when it is unlisted
    or has no open seat (a challenge: every seat kept for an invited player)."""
    document = row.summary.document
    table = document.get("table") or {}
    if not table.get("listed", True) or not table.get("open"):
        return None
    invites = {int(seat): handle for seat, handle in table.get("invites", [])}
    open_seats = set(table["open"])
    seats = [
        LobbySeat(seat, name, seat in open_seats, invites.get(seat))
        for seat, name in enumerate(document["seats"])
    ]
    return LobbyTable(
        id=row.stream_id,
        ruleset=row.summary.kind,
        players=len(seats),
        seats=seats,
        options=dict(table.get("options") or {}),
        rated=bool(document.get("rated", True)),
        created_at=row.created_at,
    )


def wanted(table: LobbyTable, players: int | None, rated: bool | None) -> bool:
    """Whether ``table`` passes the lobby's filters."""
    return (players is None or table.players == players) and (rated is None or table.rated == rated)

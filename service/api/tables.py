"""HTTP controllers of tables that gather: join, leave, decline, start and cancel a game
created with open or invited seats, a finished game's rematch, and the lobby that lists
those waiting for players. Thin handlers: the caller from ``service.api.identity``, one use
case each."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

from litestar import Controller, Response, get, post
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec
from litestar.params import FromQuery, JSONBody, QueryParameter

from service.api.apidoc import problems
from service.api.deps import AnyRequest, GameId, limits_of, written
from service.api.games import WRITE, next_page
from service.api.limits import client_of, write_limit
from service.api.writes import WRITES, Write, WriteDep
from service.core.commands import (
    CancelTable,
    DeclineInvitation,
    JoinTable,
    LeaveTable,
    StartTable,
)
from service.usecases.games.rematch import AskRematch, Rematched, Rematches
from service.usecases.games.tables import Joined, Lobby, Tables
from service.usecases.replies import Played

TablesDep = NamedDependency[Tables]
FOUND = "The rematch table existed already: its id, the asker's seat there and her token"


def spectators_reply(write: Write, stored: list[Any]) -> Response[Played]:
    """The reply to a write after which its caller holds no seat any more (she left, or
    declined): what it stored and the state, as a spectator sees them."""
    return written(write.prefer, partial(write.queries.played, write.game_id, None, stored))


class TablesController(Controller):
    """A gathering table's seats: taken, left, declined; the table started or cancelled."""

    path = "/games"
    dependencies = WRITES

    @post(
        "/{game_id:str}/join",
        operation_id="joinTable",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        responses=WRITE,
    )
    def join(
        self, game_id: GameId, data: JSONBody[JoinTable], tables: TablesDep, write: WriteDep
    ) -> Joined:
        """Take a seat of a gathering table: the seat asked (``seat``), else the one kept for
        the caller's invitation, else the first open one. With a player's key she sits as
        herself (no token: her key plays the seat); without a key a guest sits under
        ``name`` and is given the seat's token, shown only here. A seat kept for an invited
        player is hers alone (403); a seat taken is 409 ``seat-taken``, a full table 409
        ``table-full``. The last seat taken starts the table. Two callers joining one seat at
        once: one gets it, the other 409."""
        return tables.join(game_id, write.token, data, write.key)

    @post(
        "/{game_id:str}/leave",
        operation_id="leaveTable",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        responses=WRITE,
    )
    def leave(
        self, game_id: GameId, data: JSONBody[LeaveTable], tables: TablesDep, write: WriteDep
    ) -> Response[Played]:
        """Leave the seat taken by joining (with its token, or the player's key), before the
        table starts: it is open again. The reply shows the game as a spectator sees it."""
        return spectators_reply(write, tables.leave(game_id, write.token, data, write.key))

    @post(
        "/{game_id:str}/decline",
        operation_id="declineInvitation",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        responses=WRITE,
    )
    def decline(
        self, game_id: GameId, data: JSONBody[DeclineInvitation], tables: TablesDep, write: WriteDep
    ) -> Response[Played]:
        """Decline an invitation (the invited player's key): the seat is open to anyone.
        The reply shows the game as a spectator sees it."""
        return spectators_reply(write, tables.decline(game_id, write.token, data, write.key))

    @post(
        "/{game_id:str}/start",
        operation_id="startTable",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        responses=WRITE,
    )
    def start(
        self,
        game_id: GameId,
        data: JSONBody[StartTable],
        request: AnyRequest,
        tables: TablesDep,
        write: WriteDep,
    ) -> Response[Played]:
        """Start a gathering table now (the referee's token): bots of the level ``bots``
        (``GET /bots``) take its open seats, then the first chance and the clocks follow.
        409 ``invitations-pending`` while an invitation waits (it is declined, runs out, or
        the table is cancelled first). The game's bots count against the client's cap of
        games with bots (429)."""
        stored = tables.start(game_id, write.token, data, write.key, client_of(request))
        return write.reply(stored)

    @post(
        "/{game_id:str}/cancel",
        operation_id="cancelTable",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        responses=WRITE,
    )
    def cancel(
        self, game_id: GameId, data: JSONBody[CancelTable], tables: TablesDep, write: WriteDep
    ) -> Response[Played]:
        """Close a gathering table (the referee's token): it is over, with no result and no
        rating (``TableClosed``, reason ``cancelled``)."""
        return write.reply(tables.cancel(game_id, write.token, data, write.key))

    @post(
        "/{game_id:str}/rematch",
        operation_id="rematch",
        status_code=201,
        sync_to_thread=True,
        before_request=write_limit,
        responses={200: ResponseSpec(Rematched, description=FOUND), **WRITE},
    )
    def rematch(
        self,
        game_id: GameId,
        data: JSONBody[AskRematch],
        request: AnyRequest,
        tables: TablesDep,
        write: WriteDep,
    ) -> Response[Rematched]:
        """Ask for the next table of a finished game (a seat's token, or the key of the player
        a seat belongs to; body ``{}`` or none): the same rule set, options, rated flag, clock and
        absence rule, the seats turned by one so that another seat plays first. The asker
        sits down (a guest is given her seat's token, shown only to her), the other
        registered players are invited, the other guests' seats are open to whoever has
        the link; the table is unlisted, and starts when its last seat is taken. 201 when
        this request created it; 200 when it exists already (one rematch a game): the asker
        takes her seat there if it is still hers to take. 403 for the referee or a bot's
        seat, 409 ``game-not-finished`` for a game still played or a table that never
        started."""
        made, created = Rematches(tables.commands).ask(game_id, write.token, client_of(request))
        return Response(made, status_code=201 if created else 200)


class LobbyController(Controller):
    """The tables waiting for players."""

    @get("/lobby", operation_id="getLobby", sync_to_thread=True, responses=problems(400))
    def lobby(
        self,
        request: AnyRequest,
        tables: TablesDep,
        ruleset: FromQuery[str | None] = None,
        seats: Annotated[int | None, QueryParameter(ge=1, name="players")] = None,
        rated: FromQuery[bool | None] = None,
        limit: Annotated[int | None, QueryParameter(ge=1)] = None,
        cursor: FromQuery[str | None] = None,
    ) -> Response[Lobby]:
        """The listed tables with an open seat, the longest waiting first: each one's rule
        set, seats (open, kept for an invited player, or taken), options, whether it is
        rated and when it was created; of a rule set, a number of seats (``players``), rated
        or not. At most ``limit`` tables (the largest page by default); the next page is at
        ``next`` (and in the ``Link`` header, ``rel="next"``), whose ``cursor`` is opaque.
        An unlisted table is never here: it is joined by its link."""
        page = limits_of(request).check_page(limit)
        rows, after = tables.lobby(ruleset, seats, rated, page, cursor)
        link = None if after is None else next_page(request, after)
        headers = {} if link is None else {"Link": f'<{link}>; rel="next"'}
        return Response(Lobby(rows, link), headers=headers)

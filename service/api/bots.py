"""HTTP controllers of bots: the levels on offer, and the referee (or the player a seat
belongs to) handing a seat to a bot and back."""

from __future__ import annotations

from typing import Annotated

import anyio.to_thread
from litestar import Controller, Response, delete, get, post
from litestar.handlers import BaseRouteHandler
from litestar.params import FromPath, JSONBody, Parameter

from service.api.deps import AnyConnection, AnyRequest, CommandsDep, GameId, check_referee
from service.api.games import WRITE
from service.api.identity import game_caller_async
from service.api.limits import client_of, write_limit
from service.api.writes import WRITES, WriteDep
from service.core.actor import Player
from service.core.commands import HandOver, SeatToBot
from service.usecases.bots import driver
from service.usecases.replies import BotList, Played

Seat = Annotated[int, Parameter(description="the seat's number, from 0", ge=0, le=63)]


async def referee_or_player(connection: AnyConnection, _: BaseRouteHandler) -> None:
    """Guard: the referee's route, or a registered player's for her own seat (the referee core
    checks that the seat is hers, and that the referee's is no player's): 401 without a token
    of the game, 403 for a seat's token."""
    caller = await game_caller_async(connection)
    if isinstance(caller, Player):
        return
    queries = connection.app.state.queries
    game_id = connection.path_params["game_id"]
    await anyio.to_thread.run_sync(check_referee, queries, game_id, caller)


class BotsController(Controller):
    """Bot levels and bot seats."""

    dependencies = WRITES

    @get("/bots", operation_id="listBots")
    async def levels(self) -> BotList:
        """The bot levels, weakest first: what a seat's ``bot`` may name, and the rule sets
        each plays."""
        return driver.levels()

    @post(
        "/games/{game_id:str}/seats/{seat:int}/bot",
        operation_id="handSeatToBot",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        guards=[referee_or_player],
        responses=WRITE,
    )
    def hand_over(
        self,
        game_id: GameId,
        seat: FromPath[Seat],
        data: JSONBody[SeatToBot],
        request: AnyRequest,
        commands: CommandsDep,
        write: WriteDep,
    ) -> Response[Played]:
        """The referee hands a seat to a bot (``bot``: a level from ``GET /bots``), which plays
        it from then on; the seat's own token can no longer move until it is handed back. A
        seat that belongs to a registered player is handed over by that player alone, with her
        key (403 for the referee's token). A game with no bots yet counts against the client's
        cap on games with bots running at once (429 with Retry-After)."""
        command = HandOver(data.bot, data.reason, data.expected_version, seat)
        owner = client_of(request)
        return write.reply(
            driver.hand_over(commands, game_id, write.token, command, write.key, owner)
        )

    @delete(
        "/games/{game_id:str}/seats/{seat:int}/bot",
        operation_id="handSeatBack",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        guards=[referee_or_player],
        responses=WRITE,
    )
    def hand_back(
        self,
        game_id: GameId,
        seat: FromPath[Seat],
        commands: CommandsDep,
        write: WriteDep,
    ) -> Response[Played]:
        """The referee hands a seat a bot plays back to its player (whose token moves again); a
        seat that belongs to a registered player comes back with her key alone."""
        command = HandOver(None, "handed back", seat=seat)
        return write.reply(driver.hand_over(commands, game_id, write.token, command, write.key))

"""HTTP controllers of bots: the levels on offer, and the referee handing a seat to a bot and
back."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, Response, delete, get, post
from litestar.params import FromPath, JSONBody, Parameter

from service.api.deps import AnyRequest, CommandsDep, GameId, referee_only
from service.api.games import WRITE
from service.api.limits import client_of, write_limit
from service.api.writes import WRITES, WriteDep
from service.core.commands import HandOver, SeatToBot
from service.usecases.bots import driver
from service.usecases.replies import BotList, Played

Seat = Annotated[int, Parameter(description="the seat's number, from 0", ge=0, le=63)]


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
        guards=[referee_only],
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
        game with no bots yet counts against the client's cap on games with bots running at
        once (429 with Retry-After)."""
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
        guards=[referee_only],
        responses=WRITE,
    )
    def hand_back(
        self,
        game_id: GameId,
        seat: FromPath[Seat],
        commands: CommandsDep,
        write: WriteDep,
    ) -> Response[Played]:
        """The referee hands a seat a bot plays back to its player (whose token moves again)."""
        command = HandOver(None, "handed back", seat=seat)
        return write.reply(driver.hand_over(commands, game_id, write.token, command, write.key))

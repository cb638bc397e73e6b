"""HTTP controller of a round of tables: the tables created at once (a batch), and the
referee's decisions on them."""

from __future__ import annotations

from litestar import Controller, Response, post
from litestar.params import JSONBody

from service.api.apidoc import problems
from service.api.deps import (
    AnyRequest,
    CommandsDep,
    GameId,
    IdempotencyKey,
    limits_of,
    referee_only,
)
from service.api.games import WRITE
from service.api.limits import client_of, write_limit
from service.api.writes import WRITES, WriteDep, creation_key
from service.core.commands import Adjudicate, CreateBatch
from service.usecases.replies import BatchCreated, Played


class RoundsController(Controller):
    """A round of tables at once and the referee's decisions."""

    dependencies = WRITES

    @post(
        "/games/batch",
        operation_id="createBatch",
        sync_to_thread=True,
        before_request=write_limit,
        responses=problems(400, 413, 415, 422, 429),
    )
    def create_batch(
        self,
        data: JSONBody[CreateBatch],
        request: AnyRequest,
        commands: CommandsDep,
        idempotency_key: IdempotencyKey = None,
    ) -> BatchCreated:
        """Create a round of tables at once: every table is checked before any is created.
        Each table counts against the client's creation budget, and each with bots against its
        cap on games with bots running at once (429 with Retry-After)."""
        limits_of(request).check_create(client_of(request), max(len(data.games), 1))
        key = creation_key(request, idempotency_key, "games/batch", data)
        return commands.create_batch(data, owner=client_of(request), key=key)

    @post(
        "/games/{game_id:str}/adjudicate",
        operation_id="adjudicate",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        guards=[referee_only],
        responses=WRITE,
    )
    def adjudicate(
        self,
        game_id: GameId,
        data: JSONBody[Adjudicate],
        commands: CommandsDep,
        write: WriteDep,
    ) -> Response[Played]:
        """Record a referee's decision (forfeit, penalty, agreement) with its reason."""
        return write.reply(commands.adjudicate(game_id, write.token, data, write.key))

"""HTTP controllers of tournaments: a round of tables at once, adjudication, standings,
round archives."""

from __future__ import annotations

from functools import partial

from litestar import Controller, Response, get, post
from litestar.params import FromQuery, JSONBody
from litestar.response import Stream

from service.api.apidoc import problems
from service.api.deps import (
    AnyRequest,
    CommandsDep,
    GameId,
    IdempotencyKey,
    Prefer,
    QueriesDep,
    bearer,
    limits_of,
    referee_only,
    written,
)
from service.api.documents import document, json_stream
from service.api.games import WRITE
from service.api.limits import client_of, write_limit
from service.core.commands import Adjudicate, CreateBatch
from service.usecases import tournament
from service.usecases.replies import BatchCreated, Played


class TournamentController(Controller):
    """Rounds, referee decisions, standings and archives."""

    @post(
        "/games/batch",
        operation_id="createBatch",
        sync_to_thread=True,
        before_request=write_limit,
        responses=problems(400, 413, 415, 422, 429),
    )
    def create_batch(
        self, data: JSONBody[CreateBatch], request: AnyRequest, commands: CommandsDep
    ) -> BatchCreated:
        """Create a round of tables at once: every table is checked before any is created.
        Each table counts against the client's creation budget, and each with bots against its
        cap on games with bots running at once (429 with Retry-After)."""
        limits_of(request).check_create(client_of(request), max(len(data.games), 1))
        return commands.create_batch(data, owner=client_of(request))

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
        request: AnyRequest,
        commands: CommandsDep,
        queries: QueriesDep,
        idempotency_key: IdempotencyKey = None,
        prefer: Prefer = None,
    ) -> Response[Played]:
        """Record a referee's decision (forfeit, penalty, agreement) with its reason."""
        token = bearer(request)
        stored = commands.adjudicate(game_id, token, data, idempotency_key)
        return written(prefer, partial(queries.played, game_id, token, stored))

    @get("/standings", operation_id="standings", sync_to_thread=True, responses=problems(400))
    def standings(
        self, queries: QueriesDep, tag: FromQuery[str | None] = None
    ) -> tournament.Standings:
        """Wins per player name over the finished games with ``tag``, ties by pieces home."""
        return queries.standings(tag)

    @get(
        "/archive",
        operation_id="archive",
        sync_to_thread=True,
        responses=document(tournament.Archive) | problems(400),
    )
    def archive(self, queries: QueriesDep, tag: FromQuery[str | None] = None) -> Stream:
        """The records of the finished games with ``tag``, verifiable offline as one file;
        streamed."""
        return json_stream(queries.archive(tag))

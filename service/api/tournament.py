"""Tournament routes: a round of tables at once, adjudication, standings, round archives."""

from __future__ import annotations

from litestar import Controller, get, post
from litestar.params import FromQuery, JSONBody

from service import tournament
from service.apidoc import problems
from service.limits import write_limit
from service.routes import (
    WRITE,
    AnyRequest,
    GameId,
    GamesDep,
    IdempotencyKey,
    bearer,
    played,
)
from service.wire import Adjudicate, Played


class TournamentController(Controller):
    """Rounds, referee decisions, standings and archives."""

    @post(
        "/games/batch",
        operation_id="createBatch",
        sync_to_thread=True,
        before_request=write_limit,
        responses=problems(400, 413, 422),
    )
    def create_batch(
        self, data: JSONBody[tournament.Batch], games: GamesDep
    ) -> tournament.BatchCreated:
        """Create a round of tables at once: every table is checked before any is created."""
        return tournament.create_batch(games, data)

    @post(
        "/games/{game_id:str}/adjudicate",
        operation_id="adjudicate",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        responses=WRITE,
    )
    def adjudicate(
        self,
        game_id: GameId,
        data: JSONBody[Adjudicate],
        request: AnyRequest,
        games: GamesDep,
        idempotency_key: IdempotencyKey = None,
    ) -> Played:
        """Record a referee's decision (forfeit, penalty, agreement) with its reason."""
        stored = games.adjudicate(game_id, bearer(request), data, idempotency_key)
        return played(games, game_id, request, stored)

    @get("/standings", operation_id="standings", sync_to_thread=True, responses=problems(400))
    def standings(self, games: GamesDep, tag: FromQuery[str | None] = None) -> tournament.Standings:
        """Wins per player name over the finished games with ``tag``, ties by pieces home."""
        rows = list(tournament.results(games, games.list("finished", tag=tag)))
        return tournament.standings(tag, rows)

    @get("/archive", operation_id="archive", sync_to_thread=True, responses=problems(400))
    def archive(self, games: GamesDep, tag: FromQuery[str | None] = None) -> tournament.Archive:
        """The records of the finished games with ``tag``, verifiable offline as one file."""
        return tournament.archive(games, games.list("finished", tag=tag))

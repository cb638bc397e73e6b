"""HTTP controller of a game's analysis (200 with the analysis, or 202 with its progress while
it is computed off the event loop) and of a seat's hints."""

from __future__ import annotations

from litestar import Controller, Response, get
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec

from service.api.apidoc import problems
from service.api.deps import AnyRequest, GameId
from service.api.identity import game_caller
from service.api.limits import client_of, write_limit
from service.usecases.analysis.analyses import Analyses, Progress
from service.usecases.analysis.hints import HintGiver, Hints
from service.usecases.analysis.store import GameAnalysis

AnalysesDep = NamedDependency[Analyses]
HintsDep = NamedDependency[HintGiver]

UNDER_WAY = {
    202: ResponseSpec(Progress, description="The analysis is under way: ask again for it"),
}


class AnalysisController(Controller):
    """``GET /games/{id}/analysis`` and ``GET /games/{id}/hints``."""

    path = "/games"

    @get(
        "/{game_id:str}/analysis",
        operation_id="getAnalysis",
        sync_to_thread=True,
        responses=UNDER_WAY | problems(400, 401, 403, 404, 429),
    )
    def analysis(
        self, game_id: GameId, request: AnyRequest, analyses: AnalysesDep
    ) -> Response[GameAnalysis | Progress]:
        """Each seat's win chances at every decision and chance outcome, the luck of every
        outcome and the equity loss of every decision: anyone's once the game is finished, the
        referee's alone (up to now) while it runs. The first request starts the work and is
        answered 202 with its progress; a client may have one analysis under way at a time
        (``analyses_per_client``), more is 429."""
        found = analyses.read(game_id, game_caller(request), client_of(request))
        return Response(found, status_code=202 if isinstance(found, Progress) else 200)

    @get(
        "/{game_id:str}/hints",
        operation_id="getHints",
        sync_to_thread=True,
        before_request=write_limit,
        responses=problems(400, 401, 403, 404, 409, 429),
    )
    def hints(self, game_id: GameId, request: AnyRequest, hints: HintsDep) -> Hints:
        """The caller's seat's legal moves ranked by the chance of winning each keeps, judged
        from what that seat can see: only with a seat's token, in a game created with
        ``allow_hints: true``, while it runs. The log records that the seat was shown them
        (``HintsShown``), once per seat and position, so each request spends one of the
        caller's writes (``write_rate``)."""
        return hints.hints(game_id, game_caller(request))

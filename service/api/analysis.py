"""HTTP controller of a game's analysis: 200 with the analysis, or 202 with its progress while
it is computed off the event loop."""

from __future__ import annotations

from litestar import Controller, Response, get
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec

from service.api.apidoc import problems
from service.api.deps import AnyRequest, GameId, bearer
from service.usecases.analyses import Analyses, Progress
from service.usecases.analysis_store import GameAnalysis

AnalysesDep = NamedDependency[Analyses]

UNDER_WAY = {
    202: ResponseSpec(Progress, description="The analysis is under way: ask again for it"),
}


class AnalysisController(Controller):
    """``GET /games/{id}/analysis``."""

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
        answered 202 with its progress."""
        found = analyses.read(game_id, bearer(request))
        return Response(found, status_code=202 if isinstance(found, Progress) else 200)

"""HTTP controllers of ratings: a rule set's leaderboard, a player's ratings and games."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, Response, get
from litestar.params import FromPath, FromQuery, QueryParameter
from msgspec.structs import replace

from service.api.apidoc import problems
from service.api.deps import AnyRequest, QueriesDep, limits_of
from service.api.games import next_page
from service.usecases.ratings import Leaderboard, Player


class RatingsController(Controller):
    """openskill (Plackett-Luce) ratings per player name and rule set, from rated games."""

    @get("/ratings", operation_id="listRatings", sync_to_thread=True, responses=problems(400))
    def leaderboard(
        self,
        request: AnyRequest,
        queries: QueriesDep,
        ruleset: FromQuery[str],
        limit: Annotated[int | None, QueryParameter(ge=1)] = None,
        cursor: FromQuery[str | None] = None,
    ) -> Response[Leaderboard]:
        """A page of the rule set's ratings, best first (by ordinal, mu - 3 sigma, then name).
        At most ``limit`` (the largest page by default); the next page is at ``next`` (and in
        the ``Link`` header, ``rel="next"``), whose ``cursor`` is opaque."""
        page = limits_of(request).check_page(limit)
        board = queries.ratings.leaderboard(ruleset, page, cursor)
        if board.next is None:
            return Response(board)
        link = next_page(request, board.next)
        return Response(replace(board, next=link), headers={"Link": f'<{link}>; rel="next"'})

    @get(
        "/players/{name:path}",
        operation_id="getPlayer",
        sync_to_thread=True,
        responses=problems(404),
    )
    def player(self, name: FromPath[str], queries: QueriesDep) -> Player:
        """The player's rating in each rule set it played rated games of, with every such game
        (place, and the rating after it), oldest first; 404 when it has none. The name is the
        rest of the path, so one holding a ``/`` is found too (sent as ``%2F`` or as is)."""
        return queries.ratings.player(name.removeprefix("/"))

"""HTTP controllers of ratings: a rule set's leaderboard, a player's ratings and games."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from litestar import Controller, Response, get
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery, QueryParameter
from msgspec.structs import replace

from service.api.apidoc import problems
from service.api.deps import AnyRequest, limits_of
from service.api.games import next_page
from service.usecases.ratings.ratings import Leaderboard, Player, Ratings

RatingsDep = NamedDependency[Ratings]


class RatingsController(Controller):
    """openskill (Plackett-Luce) ratings per registered player (and bot level) and rule set,
    from the games that count: rated, every seat a registered player or a server-side bot,
    every player having played."""

    @get("/ratings", operation_id="listRatings", sync_to_thread=True, responses=problems(400))
    def leaderboard(
        self,
        request: AnyRequest,
        ratings: RatingsDep,
        ruleset: FromQuery[str],
        limit: Annotated[int | None, QueryParameter(ge=1)] = None,
        cursor: FromQuery[str | None] = None,
    ) -> Response[Leaderboard]:
        """A page of the rule set's ratings, best first (by ordinal, mu - 3 sigma, then name):
        registered players by handle and bots by ``bot:<level>``; a guest (a free name at a
        seat) is never rated, nor is a retired handle listed. At most ``limit`` (the largest
        page by default); the next page is at ``next`` (and in the ``Link`` header,
        ``rel="next"``), whose ``cursor`` is opaque."""
        page = limits_of(request).check_page(limit)
        board = ratings.leaderboard(ruleset, page, cursor)
        if board.next is None:
            return Response(board)
        link = next_page(request, board.next)
        return Response(replace(board, next=link), headers={"Link": f'<{link}>; rel="next"'})

    @get(
        "/players/{name:str}",
        operation_id="getPlayer",
        sync_to_thread=True,
        responses=problems(400, 404),
    )
    def player(
        self,
        request: AnyRequest,
        name: FromPath[str],
        ratings: RatingsDep,
        ruleset: FromQuery[str | None] = None,
        limit: Annotated[int | None, QueryParameter(ge=1)] = None,
        cursor: FromQuery[str | None] = None,
    ) -> Player:
        """A registered player's rating (by handle, matched as registration matches handles)
        or a bot level's (``bot:<level>``) in each rule set it played games that count of
        (or in ``ruleset``), with such games (place, and the rating after it), oldest first;
        404 when it has none, when the handle is no registered player's or was retired. At
        most ``limit`` games per rule set (the largest page by default); a rule set's next
        page is at its ``next`` (which names the rule set and an opaque ``cursor``)."""
        page = limits_of(request).check_page(limit)
        found = ratings.player(name, ruleset, page, cursor)
        return replace(
            found,
            rulesets=[
                replace(each, next=next_history(request, each.ruleset, each.next))
                for each in found.rulesets
            ],
        )


def next_history(request: AnyRequest, ruleset: str, cursor: str | None) -> str | None:
    """The path and query of a rule set's next page of a player's history (None: none)."""
    if cursor is None:
        return None
    query = [
        (k, v) for k, v in request.query_params.multi_items() if k not in ("cursor", "ruleset")
    ]
    return f"{request.url.path}?{urlencode([*query, ('ruleset', ruleset), ('cursor', cursor)])}"

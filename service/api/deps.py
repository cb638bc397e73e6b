"""What handlers are given: the use cases, common parameters, and the guard of referee-only
routes (the caller comes from ``service.api.identity``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import anyio.to_thread
from litestar import Request, Response
from litestar.connection import ASGIConnection
from litestar.di import NamedDependency
from litestar.handlers import BaseRouteHandler
from litestar.params import FromPath, HeaderParameter

from service.api.identity import game_caller_async
from service.api.limits import Limits
from service.core.actor import GameCaller
from service.core.refusal import refuse
from service.usecases.games.commands import Commands
from service.usecases.games.queries import Queries
from service.usecases.replies import Played

AnyRequest = Request[Any, Any, Any]
AnyConnection = ASGIConnection[Any, Any, Any, Any]
CommandsDep = NamedDependency[Commands]
QueriesDep = NamedDependency[Queries]
GameId = FromPath[str]
LastEventId = Annotated[str | None, HeaderParameter(name="Last-Event-ID", required=False)]
IdempotencyKey = Annotated[str | None, HeaderParameter(name="Idempotency-Key", required=False)]
Prefer = Annotated[
    str | None,
    HeaderParameter(
        name="Prefer",
        required=False,
        description="`return=minimal` (RFC 7240): the reply leaves out `state`",
    ),
]
MINIMAL = "return=minimal"


def minimal(prefer: str | None) -> bool:
    """Whether a ``Prefer`` header asks for ``return=minimal`` among its preferences."""
    if not prefer:
        return False
    return any(
        part.partition(";")[0].replace(" ", "").lower() == MINIMAL for part in prefer.split(",")
    )


def written(prefer: str | None, played: Callable[[bool], Played]) -> Response[Played]:
    """A write's reply, ``played(with_state)``: without the state, which is then not even
    built, when the caller preferred ``return=minimal`` (said in ``Preference-Applied``)."""
    if not minimal(prefer):
        return Response(played(True))
    return Response(played(False), headers={"Preference-Applied": MINIMAL})


def limits_of(connection: AnyConnection) -> Limits:
    """The app's limits."""
    limits: Limits = connection.app.state.limits
    return limits


async def referee_only(connection: AnyConnection, _: BaseRouteHandler) -> None:
    """Guard: the route is the referee's (401 without a token of the game, 403 for a seat's).
    Finding the role may load the game from the store: on a worker thread, as every wait for
    the store."""
    queries: Queries = connection.app.state.queries
    game_id, token = connection.path_params["game_id"], await game_caller_async(connection)
    await anyio.to_thread.run_sync(check_referee, queries, game_id, token)


def check_referee(queries: Queries, game_id: str, token: GameCaller) -> None:
    """Refuse anyone but the game's referee (401 without a token of the game, 403 a seat)."""
    role = queries.role(game_id, token)
    if role is None:
        raise refuse("unauthorized", "this route needs the referee's token")
    if role != "referee":
        raise refuse("forbidden", "this route is the referee's")

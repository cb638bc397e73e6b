"""What every write route takes besides its command: the caller (a token or a player's key:
``service.api.identity``), the
``Idempotency-Key``, the ``Prefer`` header, and the reply built from what the write stored."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from litestar import Response
from litestar.di import NamedDependency, Provide

from service.api.deps import AnyRequest, GameId, IdempotencyKey, Prefer, QueriesDep, written
from service.api.identity import game_caller_async
from service.api.limits import bearer_token, client_of
from service.core.actor import GameCaller
from service.usecases import tokens
from service.usecases.games.queries import Queries
from service.usecases.replies import Played


@dataclass(frozen=True, slots=True)
class Write:
    """A write to one game by one caller: ``token`` and ``key`` go to the use case, and
    ``reply`` answers with what it stored (without the state for ``return=minimal``)."""

    game_id: str
    token: GameCaller
    key: str | None
    prefer: str | None
    queries: Queries

    def reply(self, stored: list[Any]) -> Response[Played]:
        """The reply to the write that stored ``stored`` (the store's events, which the HTTP
        edge does not name)."""
        return written(self.prefer, partial(self.queries.played, self.game_id, self.token, stored))


async def write_of(
    game_id: GameId,
    request: AnyRequest,
    queries: QueriesDep,
    idempotency_key: IdempotencyKey = None,
    prefer: Prefer = None,
) -> Write:
    """The write a request asks for (its caller from its Authorization header: a player's key
    is checked on a worker thread, a token is taken as it came)."""
    caller = await game_caller_async(request)
    return Write(game_id, caller, idempotency_key, prefer, queries)


def creation_key(
    request: AnyRequest, key: str | None, route: str, command: object
) -> tokens.Keyed | None:
    """A creating write's Idempotency-Key as stored, with its command's fingerprint: scoped
    to the route and the caller's token (its ``Authorization: Bearer``), or for a caller
    without one to the client's address, so that two strangers never read each other's
    replies by guessing a key."""
    token = bearer_token(request.headers.get("authorization"))
    scope = f"token:{token}" if token is not None else f"address:{client_of(request)}"
    return tokens.keyed(key, scope, route, command)


WriteDep = NamedDependency[Write]
WRITES = {"write": Provide(write_of)}

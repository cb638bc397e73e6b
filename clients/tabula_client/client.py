"""``Client`` and ``AsyncClient``: the routes of ``Routes``, sent over httpx.

The two mirror each other name for name; every method builds its ``Call`` with the I/O-free
``Routes`` and only sends it here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

import httpx

from tabula_client.models import (
    CreatedGame,
    EventPage,
    GameSummary,
    GameView,
    Health,
    LegalMoves,
    Move,
    PlayResult,
    RuleSetInfo,
    Step,
)
from tabula_client.routes import DEFAULT_URL, Call, Chance, Routes

T = TypeVar("T")


class Client:
    """A synchronous Tabula client acting with one token (or none, as a spectator)."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        token: str | None = None,
        transport: httpx.BaseTransport | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.routes = Routes(base_url, token=token, timeout=timeout)
        self._http = httpx.Client(transport=transport, timeout=timeout)
        self._owns_http = True

    @property
    def token(self) -> str | None:
        """The bearer token this client acts with."""
        return self.routes.token

    def with_token(self, token: str | None) -> Client:
        """A client acting with ``token`` over the same connection pool (close the original)."""
        clone = object.__new__(Client)
        clone.routes = self.routes.with_token(token)
        clone._http = self._http
        clone._owns_http = False
        return clone

    def close(self) -> None:
        """Close the connection pool, if this client opened it."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def send(self, call: Call[T]) -> T:
        """Send one call and parse its response."""
        return call.parse(self._http.send(call.request))

    def health(self) -> Health:
        """Liveness."""
        return self.send(self.routes.health())

    def rulesets(self) -> list[RuleSetInfo]:
        """The rule sets offered, with player counts and option defaults."""
        return self.send(self.routes.rulesets())

    def create_game(
        self,
        ruleset: str,
        seats: Sequence[str],
        *,
        options: Mapping[str, Any] | None = None,
        chance: Chance = "server",
        seed: str | None = None,
        auto_chance: bool = False,
        allow_undo: bool = False,
        tags: Mapping[str, str] | None = None,
    ) -> CreatedGame:
        """Create a game; the reply holds the referee's and every seat's token."""
        call = self.routes.create_game(
            ruleset,
            seats,
            options=options,
            chance=chance,
            seed=seed,
            auto_chance=auto_chance,
            allow_undo=allow_undo,
            tags=tags,
        )
        return self.send(call)

    def list_games(
        self, *, status: str | None = None, ruleset: str | None = None, tag: str | None = None
    ) -> list[GameSummary]:
        """Games, filtered by status, rule set or ``key:value`` tag."""
        return self.send(self.routes.list_games(status=status, ruleset=ruleset, tag=tag))

    def game(self, game_id: str) -> GameView:
        """The current state view, as this client's token may see it."""
        return self.send(self.routes.game(game_id))

    def state(self, game_id: str, at: int) -> GameView:
        """The state view after event ``at``."""
        return self.send(self.routes.state(game_id, at))

    def legal_moves(self, game_id: str) -> LegalMoves:
        """The legal moves of this client's seat (of every pending seat for the referee)."""
        return self.send(self.routes.legal_moves(game_id))

    def play(
        self,
        game_id: str,
        move: str | Move | None = None,
        *,
        steps: Sequence[Step] | None = None,
        seat: int | None = None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> PlayResult:
        """Play a move (its id, or the ``Move`` itself) or its steps."""
        call = self.routes.play(
            game_id,
            move,
            steps=steps,
            seat=seat,
            expected_version=expected_version,
            idempotency_key=idempotency_key,
        )
        return self.send(call)

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> EventPage:
        """The game's log after version ``after``."""
        return self.send(self.routes.events(game_id, after, limit))


class AsyncClient:
    """An asynchronous Tabula client; the mirror of ``Client``."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        token: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.routes = Routes(base_url, token=token, timeout=timeout)
        self._http = httpx.AsyncClient(transport=transport, timeout=timeout)
        self._owns_http = True

    @property
    def token(self) -> str | None:
        """The bearer token this client acts with."""
        return self.routes.token

    def with_token(self, token: str | None) -> AsyncClient:
        """A client acting with ``token`` over the same connection pool (close the original)."""
        clone = object.__new__(AsyncClient)
        clone.routes = self.routes.with_token(token)
        clone._http = self._http
        clone._owns_http = False
        return clone

    async def close(self) -> None:
        """Close the connection pool, if this client opened it."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def send(self, call: Call[T]) -> T:
        """Send one call and parse its response."""
        return call.parse(await self._http.send(call.request))

    async def health(self) -> Health:
        """Liveness."""
        return await self.send(self.routes.health())

    async def rulesets(self) -> list[RuleSetInfo]:
        """The rule sets offered, with player counts and option defaults."""
        return await self.send(self.routes.rulesets())

    async def create_game(
        self,
        ruleset: str,
        seats: Sequence[str],
        *,
        options: Mapping[str, Any] | None = None,
        chance: Chance = "server",
        seed: str | None = None,
        auto_chance: bool = False,
        allow_undo: bool = False,
        tags: Mapping[str, str] | None = None,
    ) -> CreatedGame:
        """Create a game; the reply holds the referee's and every seat's token."""
        call = self.routes.create_game(
            ruleset,
            seats,
            options=options,
            chance=chance,
            seed=seed,
            auto_chance=auto_chance,
            allow_undo=allow_undo,
            tags=tags,
        )
        return await self.send(call)

    async def list_games(
        self, *, status: str | None = None, ruleset: str | None = None, tag: str | None = None
    ) -> list[GameSummary]:
        """Games, filtered by status, rule set or ``key:value`` tag."""
        return await self.send(self.routes.list_games(status=status, ruleset=ruleset, tag=tag))

    async def game(self, game_id: str) -> GameView:
        """The current state view, as this client's token may see it."""
        return await self.send(self.routes.game(game_id))

    async def state(self, game_id: str, at: int) -> GameView:
        """The state view after event ``at``."""
        return await self.send(self.routes.state(game_id, at))

    async def legal_moves(self, game_id: str) -> LegalMoves:
        """The legal moves of this client's seat (of every pending seat for the referee)."""
        return await self.send(self.routes.legal_moves(game_id))

    async def play(
        self,
        game_id: str,
        move: str | Move | None = None,
        *,
        steps: Sequence[Step] | None = None,
        seat: int | None = None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> PlayResult:
        """Play a move (its id, or the ``Move`` itself) or its steps."""
        call = self.routes.play(
            game_id,
            move,
            steps=steps,
            seat=seat,
            expected_version=expected_version,
            idempotency_key=idempotency_key,
        )
        return await self.send(call)

    async def events(self, game_id: str, after: int = 0, limit: int | None = None) -> EventPage:
        """The game's log after version ``after``."""
        return await self.send(self.routes.events(game_id, after, limit))

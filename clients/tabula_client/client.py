"""``Client`` and ``AsyncClient``: the routes of ``Routes``, sent over httpx.

The two mirror each other name for name; every method builds its ``Call`` with the I/O-free
``Routes`` and only sends it here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

import httpx

from tabula_client.models import (
    Audit,
    CreatedGame,
    EventPage,
    GameRecord,
    GameSummary,
    GameView,
    Health,
    LegalMoves,
    Move,
    PlayResult,
    RuleSetInfo,
    Step,
    StoredEvent,
)
from tabula_client.routes import DEFAULT_URL, Call, Chance, Routes, StreamCall
from tabula_client.sse import amessages, messages

T = TypeVar("T")
RECONNECTS = 5
"""How often ``follow`` reconnects in a row without receiving an event before giving up."""


def backoff(attempt: int) -> float:
    """Seconds to wait before reconnect number ``attempt`` (1, 2, ...)."""
    return float(min(0.1 * 2 ** (attempt - 1), 5.0))


def stream_ended_early(game_id: str) -> httpx.RemoteProtocolError:
    """The error for a stream that keeps ending while its game is still running."""
    return httpx.RemoteProtocolError(f"the event stream of game {game_id} ended before it finished")


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

    def undo(
        self,
        game_id: str,
        reason: str = "",
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> PlayResult:
        """Revert the latest decision and what followed it (the referee, or a seat where the
        game allows undo)."""
        call = self.routes.undo(
            game_id, reason, expected_version=expected_version, idempotency_key=idempotency_key
        )
        return self.send(call)

    def post_chance(
        self,
        game_id: str,
        *,
        card: str | None = None,
        dice: Sequence[int] | None = None,
        hands: Sequence[Sequence[str]] | None = None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> PlayResult:
        """Record the card drawn, dice thrown or hands dealt at the table (external chance)."""
        call = self.routes.post_chance(
            game_id,
            card=card,
            dice=dice,
            hands=hands,
            expected_version=expected_version,
            idempotency_key=idempotency_key,
        )
        return self.send(call)

    def audit(self, game_id: str) -> Audit:
        """The full log with hashes, the seed once revealed, and its verification."""
        return self.send(self.routes.audit(game_id))

    def export(self, game_id: str) -> GameRecord:
        """The game record; ``.raw`` is the record as sent, for ``import_game``."""
        return self.send(self.routes.export(game_id))

    def import_game(self, record: GameRecord | Mapping[str, Any]) -> CreatedGame:
        """Replay a record on the server and store it as a new game (new id and tokens)."""
        return self.send(self.routes.import_game(record))

    def follow(self, game_id: str, *, after: int = 0) -> Iterator[StoredEvent]:
        """The game's events after version ``after`` as they happen, until it has finished.

        A dropped connection is resumed after the last event received (``Last-Event-ID``),
        so each event comes once; ``RECONNECTS`` failures in a row raise the last one.
        """
        cursor, attempt = after, 0
        while True:
            try:
                for event in self._stream(self.routes.follow(game_id, after=cursor)):
                    if event.version > cursor:
                        cursor, attempt = event.version, 0
                        yield event
                view = self.game(game_id)
                if view.is_finished and view.version <= cursor:
                    return
                failure: Exception = stream_ended_early(game_id)
            except httpx.TransportError as error:
                failure = error
            attempt += 1
            if attempt > RECONNECTS:
                raise failure
            time.sleep(backoff(attempt))

    def _stream(self, call: StreamCall) -> Iterator[StoredEvent]:
        """The events of one streaming response, until the server ends it."""
        response = self._http.send(call.request, stream=True)
        try:
            if response.is_error:
                response.read()
            call.check(response)
            for message in messages(response.iter_lines()):
                event = call.parse(message)
                if event is not None:
                    yield event
        finally:
            response.close()


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

    async def undo(
        self,
        game_id: str,
        reason: str = "",
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> PlayResult:
        """Revert the latest decision and what followed it (the referee, or a seat where the
        game allows undo)."""
        call = self.routes.undo(
            game_id, reason, expected_version=expected_version, idempotency_key=idempotency_key
        )
        return await self.send(call)

    async def post_chance(
        self,
        game_id: str,
        *,
        card: str | None = None,
        dice: Sequence[int] | None = None,
        hands: Sequence[Sequence[str]] | None = None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> PlayResult:
        """Record the card drawn, dice thrown or hands dealt at the table (external chance)."""
        call = self.routes.post_chance(
            game_id,
            card=card,
            dice=dice,
            hands=hands,
            expected_version=expected_version,
            idempotency_key=idempotency_key,
        )
        return await self.send(call)

    async def audit(self, game_id: str) -> Audit:
        """The full log with hashes, the seed once revealed, and its verification."""
        return await self.send(self.routes.audit(game_id))

    async def export(self, game_id: str) -> GameRecord:
        """The game record; ``.raw`` is the record as sent, for ``import_game``."""
        return await self.send(self.routes.export(game_id))

    async def import_game(self, record: GameRecord | Mapping[str, Any]) -> CreatedGame:
        """Replay a record on the server and store it as a new game (new id and tokens)."""
        return await self.send(self.routes.import_game(record))

    async def follow(self, game_id: str, *, after: int = 0) -> AsyncIterator[StoredEvent]:
        """The game's events after version ``after`` as they happen, until it has finished.

        A dropped connection is resumed after the last event received (``Last-Event-ID``),
        so each event comes once; ``RECONNECTS`` failures in a row raise the last one.
        """
        cursor, attempt = after, 0
        while True:
            try:
                async for event in self._stream(self.routes.follow(game_id, after=cursor)):
                    if event.version > cursor:
                        cursor, attempt = event.version, 0
                        yield event
                view = await self.game(game_id)
                if view.is_finished and view.version <= cursor:
                    return
                failure: Exception = stream_ended_early(game_id)
            except httpx.TransportError as error:
                failure = error
            attempt += 1
            if attempt > RECONNECTS:
                raise failure
            await asyncio.sleep(backoff(attempt))

    async def _stream(self, call: StreamCall) -> AsyncIterator[StoredEvent]:
        """The events of one streaming response, until the server ends it."""
        response = await self._http.send(call.request, stream=True)
        try:
            if response.is_error:
                await response.aread()
            call.check(response)
            async for message in amessages(response.aiter_lines()):
                event = call.parse(message)
                if event is not None:
                    yield event
        finally:
            await response.aclose()

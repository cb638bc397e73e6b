"""``Client`` and ``AsyncClient``: the operations of ``Routes``, sent over httpx.

Each operation is written once, in ``Routes``; a client's method for it is made by ``sync``
or ``asynchronous``, which send the ``Call`` the route builds. Multi-call flows (``follow``,
the bots' games) are written once too, as generators of steps (``flows``), driven here by
``run`` and ``iterate``.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from functools import wraps
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

import httpx

from tabula_client import flows
from tabula_client.feed import AsyncPlayerFeed, Note, PlayerFeed
from tabula_client.flows import Done, Emit, Flow, Open, Read, Runner, Wait
from tabula_client.models import StoredEvent
from tabula_client.routes import DEFAULT_URL, Call, Routes, StreamCall
from tabula_client.socket import AsyncGameSocket, GameSocket
from tabula_client.sse import amessages, messages

P = ParamSpec("P")
T = TypeVar("T")
R = TypeVar("R")


def sync(route: Callable[Concatenate[Routes, P], Call[T]]) -> Callable[Concatenate[Client, P], T]:
    """The ``Client`` method that sends what ``route`` builds."""

    @wraps(route)
    def method(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.send(route(self.routes, *args, **kwargs))

    return method


def asynchronous(
    route: Callable[Concatenate[Routes, P], Call[T]],
) -> Callable[Concatenate[AsyncClient, P], Coroutine[Any, Any, T]]:
    """The ``AsyncClient`` method that sends what ``route`` builds."""

    @wraps(route)
    async def method(self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.send(route(self.routes, *args, **kwargs))

    return method


class Acting:
    """What both clients share: the routes they send, acting with one token or key."""

    routes: Routes
    _owns_http: bool

    @property
    def token(self) -> str | None:
        """The bearer this client acts with: a token, a player's key or an app's key."""
        return self.routes.token

    def with_token(self, token: str | None) -> Self:
        """A client acting with ``token`` (a token or a key; None: a spectator) over the same
        connection pool (close the original). After ``rotate_key`` or ``mint_player_key``,
        ``with_token(new.key)`` acts with the new key."""
        clone = copy.copy(self)
        clone.routes = self.routes.with_token(token)
        clone._owns_http = False
        return clone


class Client(Acting):
    """A synchronous Tabula client acting with one token or key (or none, as a spectator):
    ``token`` is a seat's, the referee's or a tournament's token, a registered player's key
    (``tabula_pk_...``: she plays the seats that belong to her) or an app's key
    (``tabula_ak_...``: it registers its players and mints their keys)."""

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
        return call.parse(self._http.send(call.request, auth=call.auth))

    def run(self, flow: Flow[R]) -> R:
        """Drive ``flow`` to its end; what it returns."""
        for out in self._drive(flow):
            if isinstance(out, Done):
                result: R = out.value
        return result

    def iterate(self, flow: Flow[Any]) -> Iterator[Any]:
        """Drive ``flow``, yielding what it emits."""
        for out in self._drive(flow):
            if isinstance(out, Emit):
                yield out.value

    def _drive(self, flow: Flow[R]) -> Iterator[Emit[Any] | Done[R]]:
        runner, stream = Runner(flow), SyncStream(self._http)
        try:
            while not isinstance(step := runner.next(), Done):
                if isinstance(step, Emit):
                    yield step
                    continue
                try:
                    if isinstance(step, Call):
                        runner.reply(self.send(step))
                    elif isinstance(step, Open):
                        stream.open(step.call)
                    elif isinstance(step, Read):
                        runner.reply(stream.read())
                    elif isinstance(step, Wait):
                        time.sleep(step.seconds)
                except Exception as error:
                    runner.fail(error)
            yield step
        finally:
            stream.close()
            runner.close()

    def socket(self, game_id: str, *, after: int = 0) -> GameSocket:
        """The game's WebSocket with this client's token or player's key (open it with
        ``with``)."""
        return GameSocket(self.routes.base_url, game_id, self.token, after=after)

    def feed(self, *, after: str | None = None) -> PlayerFeed:
        """The player's feed with this client's player's key (open it with ``with``): the
        notes after the note id ``after``, or with none those that stand now, then each as it
        comes; a dropped connection resumes after the greatest id received
        (``tabula_client.feed``)."""
        return PlayerFeed(self.routes.base_url, self.token or "", after=after)

    def stream_notes(self, *, after: str | None = None) -> Iterator[Note]:
        """The player's notes over ``GET /me/stream`` (her key) after the note id ``after``
        (with none, those that stand now), as they come; a dropped stream is opened again after
        the greatest id received (``flows.notes``). ``feed()`` is the same over the socket."""
        return self.iterate(flows.notes(self.routes, after))

    def follow(self, game_id: str, *, after: int = 0) -> Iterator[StoredEvent]:
        """The game's events after version ``after`` as they happen, until it has finished;
        a dropped connection resumes after the last event received (``flows.follow``)."""
        return self.iterate(flows.follow(self.routes, game_id, after))

    health = sync(Routes.health)
    rulesets = sync(Routes.rulesets)
    bots = sync(Routes.bots)
    hand_to_bot = sync(Routes.hand_to_bot)
    hand_back = sync(Routes.hand_back)
    join_table = sync(Routes.join_table)
    leave_table = sync(Routes.leave_table)
    decline_invitation = sync(Routes.decline_invitation)
    start_table = sync(Routes.start_table)
    cancel_table = sync(Routes.cancel_table)
    rematch = sync(Routes.rematch)
    lobby = sync(Routes.lobby)
    post_seek = sync(Routes.post_seek)
    seek = sync(Routes.seek)
    cancel_seek = sync(Routes.cancel_seek)
    ruleset = sync(Routes.ruleset)
    create_game = sync(Routes.create_game)
    create_batch = sync(Routes.create_batch)
    import_game = sync(Routes.import_game)
    list_games = sync(Routes.list_games)
    games_page = sync(Routes.games_page)
    game = sync(Routes.game)
    state = sync(Routes.state)
    legal_moves = sync(Routes.legal_moves)
    play = sync(Routes.play)
    undo = sync(Routes.undo)
    post_chance = sync(Routes.post_chance)
    adjudicate = sync(Routes.adjudicate)
    events = sync(Routes.events)
    analysis = sync(Routes.analysis)
    hints = sync(Routes.hints)
    audit = sync(Routes.audit)
    export = sync(Routes.export)
    board_svg = sync(Routes.board_svg)
    ruleset_board_svg = sync(Routes.ruleset_board_svg)
    game_page = sync(Routes.game_page)
    standings = sync(Routes.standings)
    archive = sync(Routes.archive)
    ratings = sync(Routes.ratings)
    player = sync(Routes.player)
    tournaments = sync(Routes.tournaments)
    create_tournament = sync(Routes.create_tournament)
    pair_round = sync(Routes.pair_round)
    tournament = sync(Routes.tournament)
    my_table = sync(Routes.my_table)
    tournament_standings = sync(Routes.tournament_standings)
    withdraw = sync(Routes.withdraw)
    export_tournament = sync(Routes.export_tournament)
    register_player = sync(Routes.register_player)
    me = sync(Routes.me)
    rotate_key = sync(Routes.rotate_key)
    retire_handle = sync(Routes.retire_handle)
    mint_player_key = sync(Routes.mint_player_key)
    player_record = sync(Routes.player_record)


class AsyncClient(Acting):
    """An asynchronous Tabula client; the mirror of ``Client`` (closed with ``aclose``)."""

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

    async def aclose(self) -> None:
        """Close the connection pool, if this client opened it (as ``httpx.AsyncClient``)."""
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
        await self.aclose()

    async def send(self, call: Call[T]) -> T:
        """Send one call and parse its response."""
        return call.parse(await self._http.send(call.request, auth=call.auth))

    async def run(self, flow: Flow[R]) -> R:
        """Drive ``flow`` to its end; what it returns."""
        async for out in self._drive(flow):
            if isinstance(out, Done):
                result: R = out.value
        return result

    async def iterate(self, flow: Flow[Any]) -> AsyncIterator[Any]:
        """Drive ``flow``, yielding what it emits."""
        async for out in self._drive(flow):
            if isinstance(out, Emit):
                yield out.value

    async def _drive(self, flow: Flow[R]) -> AsyncIterator[Emit[Any] | Done[R]]:
        runner, stream = Runner(flow), AsyncStream(self._http)
        try:
            while not isinstance(step := runner.next(), Done):
                if isinstance(step, Emit):
                    yield step
                    continue
                try:
                    if isinstance(step, Call):
                        runner.reply(await self.send(step))
                    elif isinstance(step, Open):
                        await stream.open(step.call)
                    elif isinstance(step, Read):
                        runner.reply(await stream.read())
                    elif isinstance(step, Wait):
                        await asyncio.sleep(step.seconds)
                except Exception as error:
                    runner.fail(error)
            yield step
        finally:
            await stream.close()
            runner.close()

    def socket(self, game_id: str, *, after: int = 0) -> AsyncGameSocket:
        """The game's WebSocket with this client's token or player's key (open it with
        ``async with``)."""
        return AsyncGameSocket(self.routes.base_url, game_id, self.token, after=after)

    def feed(self, *, after: str | None = None) -> AsyncPlayerFeed:
        """The player's feed with this client's player's key (open it with ``async
        with``); as ``Client.feed``."""
        return AsyncPlayerFeed(self.routes.base_url, self.token or "", after=after)

    def stream_notes(self, *, after: str | None = None) -> AsyncIterator[Note]:
        """The player's notes over ``GET /me/stream``; as ``Client.stream_notes``."""
        return self.iterate(flows.notes(self.routes, after))

    def follow(self, game_id: str, *, after: int = 0) -> AsyncIterator[StoredEvent]:
        """The game's events after version ``after`` as they happen, until it has finished;
        a dropped connection resumes after the last event received (``flows.follow``)."""
        return self.iterate(flows.follow(self.routes, game_id, after))

    health = asynchronous(Routes.health)
    rulesets = asynchronous(Routes.rulesets)
    bots = asynchronous(Routes.bots)
    hand_to_bot = asynchronous(Routes.hand_to_bot)
    hand_back = asynchronous(Routes.hand_back)
    join_table = asynchronous(Routes.join_table)
    leave_table = asynchronous(Routes.leave_table)
    decline_invitation = asynchronous(Routes.decline_invitation)
    start_table = asynchronous(Routes.start_table)
    cancel_table = asynchronous(Routes.cancel_table)
    rematch = asynchronous(Routes.rematch)
    lobby = asynchronous(Routes.lobby)
    post_seek = asynchronous(Routes.post_seek)
    seek = asynchronous(Routes.seek)
    cancel_seek = asynchronous(Routes.cancel_seek)
    ruleset = asynchronous(Routes.ruleset)
    create_game = asynchronous(Routes.create_game)
    create_batch = asynchronous(Routes.create_batch)
    import_game = asynchronous(Routes.import_game)
    list_games = asynchronous(Routes.list_games)
    games_page = asynchronous(Routes.games_page)
    game = asynchronous(Routes.game)
    state = asynchronous(Routes.state)
    legal_moves = asynchronous(Routes.legal_moves)
    play = asynchronous(Routes.play)
    undo = asynchronous(Routes.undo)
    post_chance = asynchronous(Routes.post_chance)
    adjudicate = asynchronous(Routes.adjudicate)
    events = asynchronous(Routes.events)
    analysis = asynchronous(Routes.analysis)
    hints = asynchronous(Routes.hints)
    audit = asynchronous(Routes.audit)
    export = asynchronous(Routes.export)
    board_svg = asynchronous(Routes.board_svg)
    ruleset_board_svg = asynchronous(Routes.ruleset_board_svg)
    game_page = asynchronous(Routes.game_page)
    standings = asynchronous(Routes.standings)
    archive = asynchronous(Routes.archive)
    ratings = asynchronous(Routes.ratings)
    player = asynchronous(Routes.player)
    tournaments = asynchronous(Routes.tournaments)
    create_tournament = asynchronous(Routes.create_tournament)
    pair_round = asynchronous(Routes.pair_round)
    tournament = asynchronous(Routes.tournament)
    my_table = asynchronous(Routes.my_table)
    tournament_standings = asynchronous(Routes.tournament_standings)
    withdraw = asynchronous(Routes.withdraw)
    export_tournament = asynchronous(Routes.export_tournament)
    register_player = asynchronous(Routes.register_player)
    me = asynchronous(Routes.me)
    rotate_key = asynchronous(Routes.rotate_key)
    retire_handle = asynchronous(Routes.retire_handle)
    mint_player_key = asynchronous(Routes.mint_player_key)
    player_record = asynchronous(Routes.player_record)


class SyncStream:
    """The one event stream a synchronous flow has open."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        self.response: httpx.Response | None = None
        self.events: Iterator[Any] = iter(())

    def open(self, call: StreamCall) -> None:
        self.close()
        self.response = self.http.send(call.request, auth=call.auth, stream=True)
        if self.response.is_error:
            self.response.read()
        call.check(self.response)
        lines = messages(self.response.iter_lines())
        self.events = (event for m in lines if (event := call.parse(m)) is not None)

    def read(self) -> Any:
        return next(self.events, None)

    def close(self) -> None:
        if self.response is not None:
            self.response.close()
            self.response, self.events = None, iter(())


class AsyncStream:
    """The one event stream an asynchronous flow has open."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self.response: httpx.Response | None = None
        self.events: AsyncIterator[Any] | None = None

    async def open(self, call: StreamCall) -> None:
        await self.close()
        self.response = await self.http.send(call.request, auth=call.auth, stream=True)
        if self.response.is_error:
            await self.response.aread()
        call.check(self.response)
        lines = amessages(self.response.aiter_lines())
        self.events = (event async for m in lines if (event := call.parse(m)) is not None)

    async def read(self) -> Any:
        return None if self.events is None else await anext(self.events, None)

    async def close(self) -> None:
        if self.response is not None:
            await self.response.aclose()
            self.response, self.events = None, None

"""HTTP controllers of games: thin handlers that take the caller's token and a body, call one
use case and return its reply."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Annotated, Literal
from urllib.parse import urlencode

from litestar import Controller, MediaType, Response, get, post
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage, Stream

from domain.registry import RULESETS, GameView
from service import words
from service.api.apidoc import AlsoNdjson, CreatedLinks, LegalMovesLinks, PlayedLinks, problems
from service.api.deps import (
    AnyRequest,
    CommandsDep,
    GameId,
    IdempotencyKey,
    LastEventId,
    QueriesDep,
    limits_of,
    referee_only,
)
from service.api.documents import document, json_stream
from service.api.identity import game_caller
from service.api.limits import IMPORT, client_of, create_limit, write_limit
from service.api.pages import VIEWER_PAGE, game_page
from service.api.streams import attended, closing, stream_slot
from service.api.writes import WRITES, WriteDep, creation_key
from service.core.commands import CreateGame, PlayMove, PostChance, Undo
from service.core.refusal import refuse
from service.usecases.faults import Readiness
from service.usecases.games import listings, rulebook
from service.usecases.games.figures import Figures
from service.usecases.games.records import Audit, GameRecord
from service.usecases.live import stream
from service.usecases.replies import (
    Created,
    EventPage,
    GameList,
    Health,
    LegalMoves,
    Played,
    RuleSetDetail,
    RuleSetInfo,
    RuleSetList,
)

READ = problems(400, 401, 404)
WRITE = problems(400, 401, 403, 404, 409, 413, 415, 422, 429)
CREATE = problems(400, 413, 415, 422, 429)
READY_RETRY = 1  # seconds: how soon a probe may ask again


def next_page(request: AnyRequest, cursor: str) -> str:
    """The path and query of the page after this one: the same query, with ``cursor``."""
    query = [(k, v) for k, v in request.query_params.multi_items() if k != "cursor"]
    return f"{request.url.path}?{urlencode([*query, ('cursor', cursor)])}"


BoardLanguage = Annotated[
    str | None,
    QueryParameter(
        description="the language of the board's words (en, es, nl, da, de, fr); "
        "without it the request's Accept-Language, else English",
        max_length=35,
    ),
]


def board_reply(svg: str, lang: str) -> Response[str]:
    """A drawn board, saying its language (and that it follows Accept-Language)."""
    headers = {"Content-Language": lang, "Vary": "Accept-Language"}
    return Response(svg, media_type="image/svg+xml", headers=headers)


class MetaController(Controller):
    """Liveness and the rule sets on offer."""

    @get("/health", operation_id="health")
    async def health(self) -> Health:
        """Liveness: the process answers (it looks at nothing else, the store included)."""
        return Health()

    @get(
        "/ready",
        include_in_schema=False,  # an operator's probe, like /metrics: no client method
        sync_to_thread=True,
    )
    def ready(self, request: AnyRequest) -> Response[Readiness]:
        """Readiness: whether this process can take writes now (the event store's database
        reachable, its writer running, its file in place, its disk not full), by check; 503
        with a Retry-After when it cannot."""
        figures: Figures = request.app.state.figures
        found = figures.readiness()
        if found.status == "ready":
            return Response(found)
        return Response(found, status_code=503, headers={"Retry-After": str(READY_RETRY)})

    @get("/rulesets", operation_id="listRulesets")
    async def rulesets(self) -> RuleSetList:
        """Every rule set with its player counts and options (with defaults)."""
        return RuleSetList(
            [
                RuleSetInfo(r.NAME, r.VERSION, r.MIN_PLAYERS, r.MAX_PLAYERS, r.OPTIONS)
                for r in RULESETS.values()
            ]
        )

    @get(
        "/rulesets/{name:str}",
        operation_id="getRuleset",
        sync_to_thread=True,
        responses=problems(404),
    )
    def ruleset(self, name: FromPath[str]) -> RuleSetDetail:
        """One rule set: player counts, option defaults, the JSON Schema of its options
        (allowed values, defaults, meanings) and its rules text (markdown)."""
        return rulebook.detail(name)

    @get(
        "/rulesets/{name:str}/board.svg",
        operation_id="getRulesetBoardSvg",
        media_type="image/svg+xml",
        sync_to_thread=True,
        responses=problems(400, 404),
    )
    def ruleset_board(
        self, name: FromPath[str], request: AnyRequest, lang: BoardLanguage = None
    ) -> Response[str]:
        """The rule set's board as a game of it begins (default options, the most seats up to
        four): the lobby's picture of it, its words in ``lang`` or the Accept-Language."""
        chosen = words.choose(lang, request.headers.get("accept-language"))
        return board_reply(rulebook.thumbnail(name, chosen), chosen)


class GameController(Controller):
    """Games: create, list, read, replay, legal moves, play, undo, chance, events, records."""

    path = "/games"
    dependencies = WRITES

    @post(
        "/",
        operation_id="createGame",
        sync_to_thread=True,
        before_request=create_limit,
        responses=CREATE,
        operation_class=CreatedLinks,
    )
    def create(
        self,
        data: JSONBody[CreateGame],
        request: AnyRequest,
        commands: CommandsDep,
        idempotency_key: IdempotencyKey = None,
    ) -> Created:
        """Create a game; the reply holds the only copy of its tokens. Each client address
        has a budget of creations, and a cap on its games with bots running at once (429 with
        Retry-After over either)."""
        key = creation_key(request, idempotency_key, "games", data)
        return commands.create(data, owner=client_of(request), key=key)

    @get(
        "/",
        operation_id="listGames",
        sync_to_thread=True,
        responses=problems(400),
        operation_class=AlsoNdjson,
    )
    def list_games(
        self,
        request: AnyRequest,
        queries: QueriesDep,
        status: FromQuery[Literal["gathering", "active", "finished", "closed"] | None] = None,
        ruleset: FromQuery[str | None] = None,
        tag: FromQuery[str | None] = None,
        limit: Annotated[int | None, QueryParameter(ge=1)] = None,
        cursor: FromQuery[str | None] = None,
        format: FromQuery[Literal["json", "ndjson"]] = "json",
    ) -> Response[GameList | bytes]:
        """A page of games, oldest first, filtered by status (``gathering``: a table waiting
        for players, ``closed``: one that closed before it started), rule set or tag
        (``key:value``), with their winners; as NDJSON with ``format=ndjson`` or ``Accept:
        application/x-ndjson``. At most ``limit`` games (the largest page by default); the
        next page is at ``next`` (and in the ``Link`` header, ``rel="next"``), whose
        ``cursor`` is opaque."""
        page = limits_of(request).check_page(limit)
        rows, after = queries.results(status, ruleset, tag, page, cursor)
        link = None if after is None else next_page(request, after)
        headers = {} if link is None else {"Link": f'<{link}>; rel="next"'}
        if format == "ndjson" or "application/x-ndjson" in request.headers.get("accept", ""):
            body = listings.ndjson(rows)
            return Response(body, media_type=listings.NDJSON, headers=headers)
        return Response(GameList(rows, link), headers=headers)

    @get("/{game_id:str}", operation_id="getGame", sync_to_thread=True, responses=READ)
    def get_game(self, game_id: GameId, request: AnyRequest, queries: QueriesDep) -> GameView:
        """The current state, as the caller may see it."""
        return queries.state(game_id, game_caller(request))

    @get("/{game_id:str}/state", operation_id="getStateAt", sync_to_thread=True, responses=READ)
    def state_at(
        self,
        game_id: GameId,
        request: AnyRequest,
        queries: QueriesDep,
        at: FromQuery[int | None] = None,
    ) -> GameView:
        """The state after event ``at`` (the current one without ``at``)."""
        return queries.state(game_id, game_caller(request), at)

    @get(
        "/{game_id:str}/legal-moves",
        operation_id="getLegalMoves",
        sync_to_thread=True,
        responses=READ,
        operation_class=LegalMovesLinks,
    )
    def legal_moves(self, game_id: GameId, request: AnyRequest, queries: QueriesDep) -> LegalMoves:
        """The caller's legal moves (every pending seat's for the referee or a spectator)."""
        return queries.legal_moves(game_id, game_caller(request))

    @post(
        "/{game_id:str}/moves",
        operation_id="playMove",
        status_code=200,
        before_request=write_limit,
        responses=WRITE,
        operation_class=PlayedLinks,
    )
    async def play(
        self,
        game_id: GameId,
        data: JSONBody[PlayMove],
        commands: CommandsDep,
        write: WriteDep,
    ) -> Response[Played]:
        """Play a move (an id from legal-moves, or its steps) for the caller's seat."""
        return write.reply(await commands.play_async(game_id, write.token, data, write.key))

    @post(
        "/{game_id:str}/undo",
        operation_id="undo",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        responses=WRITE,
        operation_class=PlayedLinks,
    )
    def undo(
        self,
        game_id: GameId,
        data: JSONBody[Undo],
        commands: CommandsDep,
        write: WriteDep,
    ) -> Response[Played]:
        """Revert the latest decision and what followed it (chance before it stays); the
        referee of an external-chance game reverts a mistyped outcome no decision followed."""
        return write.reply(commands.undo(game_id, write.token, data, write.key))

    @post(
        "/{game_id:str}/chance",
        operation_id="postChance",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        guards=[referee_only],
        responses=WRITE,
    )
    def post_chance(
        self,
        game_id: GameId,
        data: JSONBody[PostChance],
        commands: CommandsDep,
        write: WriteDep,
    ) -> Response[Played]:
        """Record the card drawn or dice thrown at the table (external chance, referee)."""
        return write.reply(commands.post_chance(game_id, write.token, data, write.key))

    @get(
        "/{game_id:str}/audit",
        operation_id="audit",
        sync_to_thread=True,
        responses=document(Audit) | problems(400, 401, 403, 404),
    )
    def audit(self, game_id: GameId, request: AnyRequest, queries: QueriesDep) -> Stream:
        """The full log with hashes and the seed once revealed, and its verification (computed
        once per version of the game); streamed."""
        return json_stream(queries.audit(game_id, game_caller(request)))

    @get(
        "/{game_id:str}/export",
        operation_id="exportGame",
        sync_to_thread=True,
        responses=document(GameRecord) | problems(400, 401, 403, 404),
    )
    def export(self, game_id: GameId, request: AnyRequest, queries: QueriesDep) -> Stream:
        """The self-contained game record; streamed."""
        return json_stream(queries.export(game_id, game_caller(request)))

    @post(
        "/import",
        operation_id="importGame",
        sync_to_thread=True,
        request_max_body_size=None,  # import_limits enforces max_record_bytes
        before_request=write_limit,
        opt={IMPORT: True},
        responses=CREATE,
        operation_class=CreatedLinks,
    )
    def import_game(
        self,
        data: JSONBody[GameRecord],
        request: AnyRequest,
        commands: CommandsDep,
        idempotency_key: IdempotencyKey = None,
    ) -> Created:
        """Judge a record again, event by event; store it as a new game or name its first
        bad event. At most ``max_record_bytes`` and ``max_record_events`` (413); imports have
        a budget per client and a number at once (429, see ``limits.import_limits``)."""
        largest = limits_of(request).settings.max_record_events
        if len(data.events) > largest:
            raise refuse(
                "payload-too-large",
                f"a game record may have at most {largest:,} events "
                "(the setting TABULA_MAX_RECORD_EVENTS changes it)",
                limit=largest,
                setting="TABULA_MAX_RECORD_EVENTS",
            )
        key = creation_key(request, idempotency_key, "games/import", data)
        return commands.import_record(data, key)

    @get(
        "/{game_id:str}/events/stream",
        operation_id="streamEvents",
        media_type="text/event-stream",
        sync_to_thread=True,
        middleware=[stream_slot],
        responses=problems(400, 401, 404, 429),
    )
    def stream_events(
        self,
        game_id: GameId,
        request: AnyRequest,
        queries: QueriesDep,
        after: Annotated[int, QueryParameter(ge=0)] = 0,
        last_event_id: LastEventId = None,
    ) -> ServerSentEvent:
        """The log as Server-Sent Events, live; resumes after ``Last-Event-ID`` (or ``after``).
        Each open stream holds a slot of the caller's and of the server's (``stream_slot``)."""
        if last_event_id is not None:
            if not (last_event_id.isascii() and last_event_id.isdigit()):
                raise refuse(
                    "validation-failed",
                    "Last-Event-ID must be an event version",
                    header="Last-Event-ID",
                )
            after = int(last_event_id)
        viewer = queries.following(game_id, game_caller(request), after)
        events = stream.game_events(queries, game_id, viewer, after)
        if isinstance(viewer, int):  # the seat is present while its stream runs
            events = attended(request, game_id, viewer, events)
        return ServerSentEvent(closing(request, sse(events)))

    @get("/{game_id:str}/events", operation_id="listEvents", sync_to_thread=True, responses=READ)
    def events(
        self,
        game_id: GameId,
        request: AnyRequest,
        queries: QueriesDep,
        after: Annotated[int, QueryParameter(ge=0)] = 0,
        limit: Annotated[int | None, QueryParameter(ge=1)] = None,
    ) -> EventPage:
        """The log after version ``after``, a page at a time, redacted for the caller."""
        page = limits_of(request).check_page(limit)
        return queries.events(game_id, game_caller(request), after, page)


async def sse(
    messages: AsyncGenerator[stream.Message, None],
) -> AsyncGenerator[ServerSentEventMessage, None]:
    """Stream messages as Server-Sent Events (``id:`` the version, ``event:`` the type);
    closing it closes ``messages``."""
    async with aclosing(messages):
        async for message in messages:
            if message.type is None:
                yield ServerSentEventMessage(comment="keep-alive", data=None)
            else:
                yield ServerSentEventMessage(
                    data=message.data, event=message.type, id=message.version
                )


class BoardController(Controller):
    """The board drawn as SVG, and a page that replays or follows a game in the browser."""

    path = "/games"

    @get(
        "/{game_id:str}/board.svg",
        operation_id="getBoardSvg",
        media_type="image/svg+xml",
        sync_to_thread=True,
        responses=READ,
    )
    def board_svg(
        self,
        game_id: GameId,
        request: AnyRequest,
        queries: QueriesDep,
        at: FromQuery[int | None] = None,
        lang: BoardLanguage = None,
    ) -> Response[str]:
        """The board after event ``at`` (the last the caller sees without ``at``), last move
        outlined, its words (caption, legend, titles) in ``lang`` or the Accept-Language."""
        chosen = words.choose(lang, request.headers.get("accept-language"))
        return board_reply(queries.board_svg(game_id, game_caller(request), at, chosen), chosen)

    @get(
        "/{game_id:str}/view",
        operation_id="viewGame",
        media_type=MediaType.HTML,
        sync_to_thread=True,
        responses=problems(400, 404),
    )
    def viewer(self, game_id: GameId, queries: QueriesDep, request: AnyRequest) -> Response[str]:
        """The replay viewer page: board, moves, step buttons, slider; follows a live game (a
        browser asking for an unknown game gets a page that says so, status 404)."""
        return game_page(VIEWER_PAGE, game_id, queries, request)

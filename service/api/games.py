"""HTTP controllers: thin handlers that authorise, call a use case and render a view."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from litestar import Controller, MediaType, Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery, HeaderParameter, JSONBody, QueryParameter
from litestar.response import ServerSentEvent

from domain.model import Viewer
from domain.registry import RULESETS
from eventstore import StoredEvent
from service import board, records, stream, tournament
from service.apidoc import AlsoNdjson, CreatedLinks, LegalMovesLinks, PlayedLinks, problems
from service.games import Game, Games
from service.limits import Limits, client_of, write_limit
from service.problems import problem
from service.verify import GameRecord
from service.views import event_out, moves_for, state_view
from service.wire import (
    Created,
    CreateGame,
    EventPage,
    GameList,
    LegalMoves,
    Played,
    PlayMove,
    PostChance,
    RuleSetInfo,
    RuleSetList,
    Undo,
)

MAX_RECORD_BYTES = 32 * 1024 * 1024
AnyRequest = Request[Any, Any, Any]
GamesDep = NamedDependency[Games]
GameId = FromPath[str]
LastEventId = Annotated[str | None, HeaderParameter(name="Last-Event-ID", required=False)]
IdempotencyKey = Annotated[str | None, HeaderParameter(name="Idempotency-Key", required=False)]
VIEWER_PAGE = Path(__file__).parent / "static" / "viewer.html"
READ = problems(400, 401, 404)
WRITE = problems(400, 401, 403, 404, 409, 413, 422, 429)
CREATE = problems(400, 413, 422, 429)


def check_after(after: int, version: int) -> None:
    """Reject a cursor past the log: versions never go back, so no client has seen it."""
    if after > version:
        raise problem("out-of-range", f"after={after} is past this game's version {version}")


def bearer(request: AnyRequest) -> str | None:
    """The bearer token of a request, if any."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise problem("unauthorized", "the Authorization header must be 'Bearer <token>'")
    return token.strip()


def limits_of(request: AnyRequest) -> Limits:
    """The app's limits."""
    limits: Limits = request.app.state.limits
    return limits


def viewer_of(game: Game, request: AnyRequest) -> Viewer:
    """The caller's role in ``game`` (None for an anonymous reader)."""
    return game.role(bearer(request))


class MetaController(Controller):
    """Liveness and the rule sets on offer."""

    @get("/health", operation_id="health")
    async def health(self) -> dict[str, str]:
        """Liveness."""
        return {"status": "ok"}

    @get("/rulesets", operation_id="listRulesets")
    async def rulesets(self) -> RuleSetList:
        """Every rule set with its player counts and options (with defaults)."""
        return RuleSetList(
            [
                RuleSetInfo(r.NAME, r.VERSION, r.MIN_PLAYERS, r.MAX_PLAYERS, r.OPTIONS)
                for r in RULESETS.values()
            ]
        )


class GameController(Controller):
    """Games: create, list, read, replay, legal moves, play, events."""

    path = "/games"

    @post(
        "/",
        operation_id="createGame",
        sync_to_thread=True,
        before_request=write_limit,
        responses=CREATE,
        operation_class=CreatedLinks,
    )
    def create(self, data: JSONBody[CreateGame], games: GamesDep) -> Created:
        """Create a game; the reply holds the only copy of its tokens."""
        return games.create(data)

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
        games: GamesDep,
        status: FromQuery[str | None] = None,
        ruleset: FromQuery[str | None] = None,
        tag: FromQuery[str | None] = None,
        format: FromQuery[Literal["json", "ndjson"]] = "json",
    ) -> Response[GameList | bytes]:
        """Games, oldest first, filtered by status, rule set or tag (``key:value``), with
        their winners; as NDJSON with ``format=ndjson`` or ``Accept: application/x-ndjson``."""
        rows = list(tournament.results(games, games.list(status, ruleset, tag)))
        if format == "ndjson" or "application/x-ndjson" in request.headers.get("accept", ""):
            return Response(tournament.ndjson(rows), media_type=tournament.NDJSON)
        return Response(GameList(rows))

    @get("/{game_id:str}", operation_id="getGame", sync_to_thread=True, responses=READ)
    def get_game(self, game_id: GameId, request: AnyRequest, games: GamesDep) -> dict[str, Any]:
        """The current state, as the caller may see it."""
        with games.open(game_id) as game:
            return state_view(game, game.replay, viewer_of(game, request))

    @get("/{game_id:str}/state", operation_id="getStateAt", sync_to_thread=True, responses=READ)
    def state_at(
        self,
        game_id: GameId,
        request: AnyRequest,
        games: GamesDep,
        at: FromQuery[int | None] = None,
    ) -> dict[str, Any]:
        """The state after event ``at`` (the current one without ``at``)."""
        with games.open(game_id) as game:
            viewer = viewer_of(game, request)
            current = at is None or at == game.version
            replay = game.replay if current else None
        if replay is None:
            replay = games.replay_at(game_id, at or 0)
        return state_view(game, replay, viewer)

    @get(
        "/{game_id:str}/legal-moves",
        operation_id="getLegalMoves",
        sync_to_thread=True,
        responses=READ,
        operation_class=LegalMovesLinks,
    )
    def legal_moves(self, game_id: GameId, request: AnyRequest, games: GamesDep) -> LegalMoves:
        """The caller's legal moves (every pending seat's for the referee or a spectator)."""
        with games.open(game_id) as game:
            return LegalMoves(game.version, moves_for(game, viewer_of(game, request)))

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
        request: AnyRequest,
        games: GamesDep,
        idempotency_key: IdempotencyKey = None,
    ) -> Played:
        """Play a move (an id from legal-moves, or its steps) for the caller's seat."""
        stored = await games.play_async(game_id, bearer(request), data, idempotency_key)
        return played(games, game_id, request, stored)

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
        request: AnyRequest,
        games: GamesDep,
        idempotency_key: IdempotencyKey = None,
    ) -> Played:
        """Revert the latest decision and what followed it (chance before it stays)."""
        stored = games.undo(game_id, bearer(request), data, idempotency_key)
        return played(games, game_id, request, stored)

    @post(
        "/{game_id:str}/chance",
        operation_id="postChance",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        responses=WRITE,
    )
    def post_chance(
        self,
        game_id: GameId,
        data: JSONBody[PostChance],
        request: AnyRequest,
        games: GamesDep,
        idempotency_key: IdempotencyKey = None,
    ) -> Played:
        """Record the card drawn or dice thrown at the table (external chance, referee)."""
        stored = games.post_chance(game_id, bearer(request), data, idempotency_key)
        return played(games, game_id, request, stored)

    @get(
        "/{game_id:str}/audit",
        operation_id="audit",
        sync_to_thread=True,
        responses=problems(400, 401, 403, 404),
    )
    def audit(self, game_id: GameId, request: AnyRequest, games: GamesDep) -> records.Audit:
        """The full log with hashes and the seed once revealed, and its verification."""
        with games.open(game_id) as game:
            records.check_may_see_all(game, viewer_of(game, request))
            return records.audit(game, games)

    @get(
        "/{game_id:str}/export",
        operation_id="exportGame",
        sync_to_thread=True,
        responses=problems(400, 401, 403, 404),
    )
    def export(self, game_id: GameId, request: AnyRequest, games: GamesDep) -> GameRecord:
        """The self-contained game record."""
        with games.open(game_id) as game:
            records.check_may_see_all(game, viewer_of(game, request))
            return records.export(game, games)

    @post(
        "/import",
        operation_id="importGame",
        sync_to_thread=True,
        request_max_body_size=MAX_RECORD_BYTES,
        before_request=write_limit,
        responses=CREATE,
        operation_class=CreatedLinks,
    )
    def import_game(self, data: JSONBody[GameRecord], games: GamesDep) -> Created:
        """Replay and validate a record; store it as a new game or name its first bad event."""
        return records.import_record(data, games)

    @get(
        "/{game_id:str}/events/stream",
        operation_id="streamEvents",
        media_type="text/event-stream",
        sync_to_thread=True,
        responses=problems(400, 401, 404, 429),
    )
    def stream_events(
        self,
        game_id: GameId,
        request: AnyRequest,
        games: GamesDep,
        after: Annotated[int, QueryParameter(ge=0)] = 0,
        last_event_id: LastEventId = None,
    ) -> ServerSentEvent:
        """The log as Server-Sent Events, live; resumes after ``Last-Event-ID`` (or ``after``)."""
        if last_event_id is not None:
            if not last_event_id.isdigit():
                raise problem("validation-failed", "Last-Event-ID must be an event version")
            after = int(last_event_id)
        with games.open(game_id) as game:
            viewer = viewer_of(game, request)
            check_after(after, game.version)
        limits, client = limits_of(request), client_of(request)
        limits.streams.acquire(client)
        events = stream.game_events(games, game_id, viewer, after)
        return ServerSentEvent(limits.streaming(client, events))

    @get("/{game_id:str}/events", operation_id="listEvents", sync_to_thread=True, responses=READ)
    def events(
        self,
        game_id: GameId,
        request: AnyRequest,
        games: GamesDep,
        after: Annotated[int, QueryParameter(ge=0)] = 0,
        limit: Annotated[int | None, QueryParameter(ge=1)] = None,
    ) -> EventPage:
        """The log after version ``after``, a page at a time, redacted for the caller."""
        page = limits_of(request).check_page(limit)
        with games.open(game_id) as game:
            viewer = viewer_of(game, request)
            version = game.version
        check_after(after, version)
        stored = games.store.read(game_id, after=after, limit=page)
        return EventPage(version, [event_out(game, e, viewer) for e in stored])


class BoardController(Controller):
    """The board drawn as SVG, and a page that replays or follows a game in the browser."""

    path = "/games"

    @get(
        "/{game_id:str}/board.svg",
        operation_id="getBoardSvg",
        media_type="image/svg+xml",
        sync_to_thread=True,
        responses=problems(400, 404),
    )
    def board_svg(self, game_id: GameId, games: GamesDep, at: FromQuery[int | None] = None) -> str:
        """The board after event ``at`` (the current one without ``at``), last move outlined."""
        return board.board_svg(games, game_id, at)

    @get(
        "/{game_id:str}/view",
        operation_id="viewGame",
        media_type=MediaType.HTML,
        sync_to_thread=True,
        responses=problems(400, 404),
    )
    def viewer(self, game_id: GameId, games: GamesDep) -> str:
        """The replay viewer page: board, moves, step buttons, slider; follows a live game."""
        with games.open(game_id):
            return VIEWER_PAGE.read_text(encoding="utf-8")


def played(games: Games, game_id: str, request: AnyRequest, stored: list[StoredEvent]) -> Played:
    """The reply to a write: the events it stored, the state now and the caller's legal moves."""
    with games.held(game_id) as game:
        viewer = viewer_of(game, request)
        events = [event_out(game, e, viewer) for e in stored]
        view = state_view(game, game.replay, viewer)
        return Played(game.version, events, view, moves_for(game, viewer))

"""The composition root: ``create_app(settings)`` builds the Litestar app and its parts.

Layers (checked by import-linter, see pyproject.toml): ``service.api`` (the HTTP edge) calls
``service.usecases`` (commands and queries, the only code that touches the store), which run
``service.core`` (the pure referee) and ``service.board`` (the drawings) over ``domain`` and
``eventstore``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import structlog
from litestar import Litestar
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.openapi import OpenAPIConfig
from litestar.types import ControllerRouterHandler

from eventstore import EventStore
from service.api import bodies, headers, logs
from service.api.analysis import AnalysisController
from service.api.apidoc import finish, strict_structs
from service.api.bots import BotsController
from service.api.docs import DocsPage, docs_asset
from service.api.games import BoardController, GameController, MetaController
from service.api.limits import Limits, cors_config, import_limits
from service.api.metrics import Metrics, metrics_route
from service.api.pages import catalogue, lobby, play_page, static_asset, tournament_page
from service.api.problems import handle
from service.api.ratings import RatingsController
from service.api.rounds import RoundsController
from service.api.socket import game_socket
from service.api.standings import StandingsController
from service.api.tarpit import slow_refusals
from service.api.tournaments import TournamentsController
from service.clock import Clock, clock_of
from service.core import clocks
from service.core import commands as command_bodies
from service.settings import Settings
from service.store import open_store
from service.usecases import cursors
from service.usecases.bots.driver import BotDriver
from service.usecases.games.commands import Commands
from service.usecases.games.queries import Queries
from service.usecases.sweeper import Sweeper
from service.usecases.tournaments import wire
from service.usecases.wiring import UseCases

VERSION = "0.1.0"
SOCKET_DESCRIPTION = """An event-sourced referee for race board games.

Live play over one connection: `GET /games/{game_id}/socket` is a WebSocket (JSON text
frames), not listed among the paths below. The client says `hello` (`token`: a seat's or the
referee's token, or null; `after`: the last version seen) and is answered `welcome` (`role`,
`seat`, `version`); every event it may see is then pushed as `events`, as `GET
/games/{game_id}/events` shows them. `play`, `undo` and `chance` (each with the client's
`ref` and the body of its HTTP route, plus an optional `idempotency_key`) are answered
`played` (`version`, `events`, `legal_moves`) once durable, or `refused` with the problem the
HTTP route would give; `ping` is answered `pong`. The JSON Schema of every message, and the
close codes, are in `openapi/socket.schema.json` (`python -m service socket-schema`)."""


def after_commands(queries: Queries) -> Callable[[Commands], Queries]:
    """A provider of ``queries`` that takes ``commands``, so that Litestar resolves the two one
    after the other: dependencies of one depth are resolved in an anyio task group, which
    would cost every write request two tasks."""

    def provide(commands: NamedDependency[Commands]) -> Queries:
        return queries

    return provide


def in_background(doing: str, work: Callable[[], object]) -> None:
    """Run ``work`` on a daemon thread; an error is logged, never fatal."""

    def run() -> None:
        try:
            work()
        except Exception:
            structlog.get_logger().exception(f"{doing} failed")

    threading.Thread(target=run, name=doing, daemon=True).start()


ROUTES: list[ControllerRouterHandler] = [
    MetaController,
    GameController,
    AnalysisController,
    BoardController,
    RoundsController,
    StandingsController,
    RatingsController,
    TournamentsController,
    BotsController,
    docs_asset,
    lobby,
    play_page,
    tournament_page,
    static_asset,
    catalogue,
    game_socket,
]
"""Every route of the app (``GET /metrics`` too, when a token is set)."""


def openapi_config() -> OpenAPIConfig:
    """The document's config: one reference page (Swagger UI served from this origin, at
    /schema and /schema/swagger) and the document at /schema/openapi.json; no Redoc, RapiDoc,
    Elements or YAML."""
    return OpenAPIConfig(
        title="Tabula",
        version=VERSION,
        description=SOCKET_DESCRIPTION,
        path="/schema",
        render_plugins=[DocsPage()],
    )


def settings_store(settings: Settings, clock: Clock) -> EventStore:
    """The store the settings name, stamping times from ``clock``."""
    return open_store(
        settings.database,
        settings.synchronous,
        settings.database_url,
        settings.idempotency_ttl,
        settings.store_timeout,
        clock,
    )


class Workers:
    """What works beside the requests: the clocks' sweeper, the tournaments' results
    follower, the bots' driver, and the derived data's catch-up at start."""

    def __init__(self, cases: UseCases, queries: Queries, clock: Clock) -> None:
        self.sweeper = Sweeper(cases.commands.enforce_due, clock)
        self.follower = Sweeper(
            cases.tournaments.results.sweep, clock, interval=1.0, name="results-follower"
        )
        self.driver = BotDriver(cases.commands)
        self.queries = queries

    def start(self) -> None:
        self.sweeper.start()
        self.follower.start()
        self.driver.start()
        in_background("catch up", self.queries.catch_up)

    def stop(self) -> None:
        self.sweeper.stop()
        self.follower.stop()
        self.driver.stop()


def dependencies(cases: UseCases) -> dict[str, Provide]:
    """The use cases the routes take by name, one of each for the app (the queries wait for
    the commands' pending writes: ``after_commands``)."""

    def given(value: object) -> Provide:
        return Provide(lambda: value, use_cache=True, sync_to_thread=False)

    return {
        "commands": given(cases.commands),
        "queries": Provide(after_commands(cases.queries), use_cache=True, sync_to_thread=False),
        "tournaments": given(cases.tournaments),
        "analyses": given(cases.analyses),
        "hints": given(cases.hints),
    }


def create_app(
    settings: Settings | None = None, store: EventStore | None = None, clock: Clock | None = None
) -> Litestar:
    """The app over ``store`` (by default the one the settings name), on ``clock`` (by
    default the one the settings name: ``service.clock``). A store passed in keeps its own
    clock for the times it stamps: give it the same one."""
    settings = settings or Settings()
    logs.configure(settings.log_format, settings.log_level)
    cursors.use_key(settings.cursor_key)
    clock = clock or clock_of(settings.clock_offset_file)
    store = store or settings_store(settings, clock)
    cases = UseCases(
        store,
        settings.max_live_games,
        clock,
        analysis_workers=settings.analysis_workers,
        analyses_per_client=settings.analyses_per_client,
        bot_games_per_owner=settings.max_bot_games_per_client,
    )
    commands, queries = cases.commands, cases.queries
    workers = Workers(cases, queries, clock)
    limits = Limits(settings)
    # Metrics only with a token to read them: no route and no per-request timing otherwise.
    metrics = Metrics(cases.figures, limits.streams) if settings.metrics_token else None
    app = Litestar(
        route_handlers=[*ROUTES, *([metrics_route(settings.metrics_token)] if metrics else [])],
        dependencies=dependencies(cases),
        exception_handlers={Exception: handle},
        middleware=[import_limits, bodies.check_bodies],
        request_max_body_size=settings.max_body_bytes,
        cors_config=cors_config(settings),
        state=State(
            {
                "limits": limits,
                "commands": commands,
                "queries": queries,
                "metrics": metrics,
                "figures": cases.figures,
                "workers": workers,
            }
        ),
        openapi_config=openapi_config(),
        on_startup=[workers.start],
        on_shutdown=[workers.stop, store.close],
        logging_config=None,
        debug=False,
    )
    finish(app.openapi_schema, strict_structs(command_bodies, clocks, wire))
    # Around the whole app, not as route middleware: a request to an unknown path is logged
    # and answered with an X-Request-ID and the security headers like every other, and its
    # 404 counts against the client's refusals. The request logger times each request and
    # tells the metrics, if any.
    app.asgi_handler = logs.log_requests(
        headers.secure(slow_refusals(app.asgi_handler, limits)),
        metrics.observe if metrics else None,
    )
    return app

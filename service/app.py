"""The composition root: ``bootstrap(store)`` builds every use case over one store (its
writer, repository, caches, derived rows and followers), ``Workers`` what works beside the
requests (the sweepers, the bots' driver), and ``create_app(settings)`` the Litestar app over
them. Every subscription to the writer's commits is made here.

Layers (checked by import-linter, see pyproject.toml): ``service.api`` (the HTTP edge) calls
``service.usecases`` (commands and queries, the only code that touches the store), which run
``service.core`` (the pure referee) and ``service.board`` (the drawings) over ``domain`` and
``eventstore``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import structlog
from litestar import Litestar
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.openapi import OpenAPIConfig
from litestar.types import ControllerRouterHandler

from eventstore import EventStore, utcnow
from service.api import bodies, headers, logs
from service.api.analysis import AnalysisController
from service.api.apidoc import finish, strict_structs
from service.api.bots import BotsController
from service.api.docs import DocsPage, docs_asset
from service.api.feed import FeedController, feed_socket
from service.api.games import BoardController, GameController, MetaController
from service.api.limits import Limits, cors_config, import_limits
from service.api.metrics import Metrics, metrics_route
from service.api.pages import (
    catalogue,
    favicon,
    lobby,
    play_page,
    static_asset,
    tournament_page,
)
from service.api.players import PlayersController
from service.api.problems import handle
from service.api.ratings import RatingsController
from service.api.rounds import RoundsController
from service.api.seeks import SeeksController
from service.api.socket import game_socket
from service.api.standings import StandingsController
from service.api.tables import LobbyController, TablesController
from service.api.tarpit import slow_refusals
from service.api.tournaments import TournamentsController
from service.clock import Clock, clock_of
from service.core import clocks
from service.core import commands as command_bodies
from service.core.tables import TABLE_TIMES, TableTimes
from service.settings import Settings
from service.store import open_budgets, open_store
from service.usecases.analysis.analyses import Analyses
from service.usecases.analysis.hints import HintGiver
from service.usecases.bots.driver import RESUME_EVERY, BotDriver
from service.usecases.budgets import Asking, Beat, shared_slots
from service.usecases.cursors import Cursors
from service.usecases.games import records, summaries
from service.usecases.games.commands import Commands
from service.usecases.games.creation import Creation
from service.usecases.games.figures import Figures, Tally
from service.usecases.games.players import PlayerGames
from service.usecases.games.queries import Queries
from service.usecases.games.repository import MAX_LIVE_GAMES, Repository
from service.usecases.games.tables import Tables
from service.usecases.live.absence import Absences
from service.usecases.live.discovery import SWEEP_SECONDS
from service.usecases.live.player_feed import Feeds, SeekOf
from service.usecases.live.presence import PRESENCE_SECONDS, Presence
from service.usecases.owners import BotShare
from service.usecases.players.apps import Apps
from service.usecases.players.book import PlayerBook
from service.usecases.ratings.ratings import Ratings
from service.usecases.ratings.standings import KeptStandings
from service.usecases.seeks import wire as seek_bodies
from service.usecases.seeks.log import SeekLog
from service.usecases.seeks.seeks import SEEK_SECONDS, Seeks
from service.usecases.seeks.shapes import PREFIX as SEEKS_PREFIX
from service.usecases.sweeper import Sweeper
from service.usecases.tokens import Minter
from service.usecases.tournaments import wire
from service.usecases.tournaments.log import TournamentLog
from service.usecases.tournaments.results import Results
from service.usecases.tournaments.tournaments import Tournaments
from service.usecases.writer import Writer

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
    PlayersController,
    TablesController,
    LobbyController,
    SeeksController,
    FeedController,
    docs_asset,
    lobby,
    play_page,
    tournament_page,
    static_asset,
    favicon,
    catalogue,
    game_socket,
    feed_socket,
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


def settings_budgets(settings: Settings) -> Asking | None:
    """The budgets shared by the processes the settings make (none for one on SQLite), as
    this process asks them."""
    budgets = open_budgets(
        settings.database,
        settings.database_url,
        settings.workers,
        settings.store_timeout,
        settings.budget_lease_seconds,
    )
    return None if budgets is None else Asking(budgets)


@dataclass
class UseCases:
    """The use cases over one store (one process's view of it), as ``bootstrap`` builds
    them: what the app serves, and what tests and benchmarks drive without HTTP."""

    store: EventStore
    writer: Writer
    games: Repository
    commands: Commands
    queries: Queries
    ratings: Ratings
    standings: KeptStandings
    tournaments: Tournaments
    analyses: Analyses
    hints: HintGiver
    figures: Figures
    players: PlayerBook
    apps: Apps
    player_games: PlayerGames
    presence: Presence
    absences: Absences
    tables: Tables
    feeds: Feeds
    seeks: Seeks

    def enforce_due(self) -> int:
        """Every clock run out and every absence lasted its time by now, enforced, and every
        shape of seeks whose deadline came settled (what the clocks' sweeper does); how many
        seats were timed out and shapes settled."""
        timed_out = self.commands.enforce_due() + self.absences.enforce_due()
        return timed_out + self.seeks.enforce_due()

    def catch_up(self) -> None:
        """Bring the derived data (every rule set's ratings, the standings without a tag, the
        players' games) up to date with the summaries: what the app runs once in the
        background as it starts, so that the first reads after many games were added find
        little left to fold."""
        for ruleset in self.ratings.folds:
            self.ratings.caught_up(ruleset)
        self.standings.rows(self.queries.now())
        self.player_games.caught_up()
        self.feeds.named.caught_up()


def bootstrap(
    store: EventStore,
    max_live: int = MAX_LIVE_GAMES,
    now: Clock = utcnow,
    analysis_workers: int = 1,
    analyses_per_client: int = 1,
    bot_games_per_owner: int = 0,
    cursor_key: str = "",
    budgets: Asking | None = None,
    presence_seconds: float = PRESENCE_SECONDS,
    table_times: TableTimes = TABLE_TIMES,
    seek_seconds: float = SEEK_SECONDS,
) -> UseCases:
    """Every use case over ``store``, on the clock ``now`` (which should be the store's too:
    ``service.clock``), the tournaments' results following the writer's commits. Games
    without a summary (a database written before summaries existed) are summarised from
    their logs first. Page cursors are sealed with ``cursor_key`` (``Cursors``); a seat stays
    present ``presence_seconds`` after it was last seen (``Presence``); a gathering table's
    invitations and time last as ``table_times`` says; a seek waits ``seek_seconds``. With
    ``budgets`` (several processes), the analyses under way and the games with bots per caller
    are counted across every process."""
    summaries.fill(store)
    cursors = Cursors(cursor_key)
    writer = Writer(store)
    presence = Presence(now, presence_seconds)
    games = Repository(writer, max_live, presence.seen, table_times)
    absences = Absences(presence, games, now)
    players = PlayerBook(writer, Minter(cursor_key))
    writer.followers.append(players.follow)
    moves = Tally()
    creation = Creation(games, now, players, Minter(cursor_key))
    share = BotShare(bot_games_per_owner, shared_slots(budgets, "bot-games", bot_games_per_owner))
    commands = Commands(games, now, creation, share, moves)
    standings = KeptStandings(store)
    verifications: records.Kept[tuple[str, int], records.Verification]
    verifications = records.Kept(records.VERIFICATIONS_KEPT)
    queries = Queries(
        games, now, standings.rows, verifications, records.Documents(), cursors, absences
    )
    log = TournamentLog(writer)
    tournaments = Tournaments(commands, log, Results(log, now), cursors)
    writer.followers.append(tournaments.results.follow)
    shared_analyses = shared_slots(budgets, "analyses", analyses_per_client)
    analyses = Analyses(games, now, analysis_workers, analyses_per_client, shared_analyses)
    hints = HintGiver(games, commands)
    figures = Figures(games, moves, now)
    ratings = Ratings(store, now, cursors, players.seated)  # lists registered players only
    writer.followers.append(ratings.follow)  # a retired handle leaves the leaderboards
    seeks = Seeks(SeekLog(writer), creation, ratings.ordinal, now, seek_seconds)
    feeds = Feeds(store, now, seat_seek(seeks), seeks.renew)
    writer.followers.append(feeds.discovery.follow)  # a game new to a player wakes her feeds
    return UseCases(
        store, writer, games, commands, queries, ratings, standings, tournaments, analyses,
        hints, figures, players, Apps(writer), PlayerGames(store, now), presence, absences,
        Tables(commands, cursors), feeds, seeks,
    )  # fmt: skip


def seat_seek(seeks: Seeks) -> SeekOf:
    """Where a player's feed finds the seek a quick play table's seat was matched from: the
    fold of the seeks' shape (the table's ``quick-play`` tag names it)."""

    def seek_of(shape: str, game_id: str, seat: int) -> str | None:
        ended = seeks.log.held(SEEKS_PREFIX + shape).closed.values()
        return next((c.seek.id for c in ended if (c.game_id, c.seat) == (game_id, seat)), None)

    return seek_of


def drive_bots(cases: UseCases, workers: int = 2, resume_every: float = RESUME_EVERY) -> BotDriver:
    """The bots' driver over ``cases``' commands, following the writer's commits (not
    started: ``BotDriver.start``)."""
    driver = BotDriver(cases.commands, workers, resume_every)
    cases.writer.followers.append(driver.follow)
    return driver


class Workers:
    """What works beside the requests: the clocks' sweeper, the tournaments' results
    follower, the bots' driver, and the derived data's catch-up at start."""

    def __init__(self, cases: UseCases, clock: Clock) -> None:
        self.sweeper = Sweeper(cases.enforce_due, clock)
        self.follower = Sweeper(
            cases.tournaments.results.sweep, clock, interval=1.0, name="results-follower"
        )
        self.driver = drive_bots(cases)
        self.discovery = Sweeper(
            cases.feeds.discovery.sweep, clock, interval=SWEEP_SECONDS, name="feed-discovery"
        )
        self.cases = cases

    def start(self) -> None:
        self.sweeper.start()
        self.follower.start()
        self.discovery.start()
        self.driver.start()
        in_background("catch up", self.cases.catch_up)

    def stop(self) -> None:
        self.sweeper.stop()
        self.follower.stop()
        self.discovery.stop()
        self.driver.stop()


def dependencies(cases: UseCases) -> dict[str, Provide]:
    """The use cases the routes take by name, one of each for the app (the queries wait for
    the commands' pending writes: ``after_commands``)."""

    def given(value: object) -> Provide:
        return Provide(lambda: value, use_cache=True, sync_to_thread=False)

    return {
        "commands": given(cases.commands),
        "queries": Provide(after_commands(cases.queries), use_cache=True, sync_to_thread=False),
        "ratings": given(cases.ratings),
        "tournaments": given(cases.tournaments),
        "analyses": given(cases.analyses),
        "hints": given(cases.hints),
        "players": given(cases.players),
        "player_games": given(cases.player_games),
        "named": given(cases.feeds.named),
        "tables": given(cases.tables),
        "seeks": given(cases.seeks),
    }


def app_state(cases: UseCases, limits: Limits, metrics: Metrics | None, workers: Workers) -> State:
    """What the routes and the game socket find in the app's ``state``."""
    return State(
        {
            "limits": limits,
            "commands": cases.commands,
            "queries": cases.queries,
            "metrics": metrics,
            "figures": cases.figures,
            "workers": workers,
            "players": cases.players,
            "apps": cases.apps,
            "presence": cases.presence,
            "feeds": cases.feeds,
        }
    )


def create_app(
    settings: Settings | None = None, store: EventStore | None = None, clock: Clock | None = None
) -> Litestar:
    """The app over ``store`` (by default the one the settings name), on ``clock`` (by
    default the one the settings name: ``service.clock``). A store passed in keeps its own
    clock for the times it stamps: give it the same one."""
    settings = settings or Settings()
    logs.configure(settings.log_format, settings.log_level)
    clock = clock or clock_of(
        settings.clock_offset_file, settings.database_url, settings.store_timeout
    )
    store = store or settings_store(settings, clock)
    budgets = settings_budgets(settings)
    cases = bootstrap(
        store,
        settings.max_live_games,
        clock,
        analysis_workers=settings.analysis_workers,
        analyses_per_client=settings.analyses_per_client,
        bot_games_per_owner=settings.max_bot_games_per_client,
        cursor_key=settings.cursor_key,
        budgets=budgets,
        presence_seconds=settings.presence_seconds,
        table_times=TableTimes(settings.invite_seconds, settings.open_table_seconds),
        seek_seconds=settings.seek_seconds,
    )
    workers = Workers(cases, clock)
    limits = Limits(settings, budgets=budgets)
    beat = [] if budgets is None else [Beat(budgets)]
    # Metrics only with a token to read them: no route and no per-request timing otherwise.
    metrics = Metrics(cases.figures, limits.streams) if settings.metrics_token else None
    app = Litestar(
        route_handlers=[*ROUTES, *([metrics_route(settings.metrics_token)] if metrics else [])],
        dependencies=dependencies(cases),
        exception_handlers={Exception: handle},
        middleware=[import_limits, bodies.check_bodies],
        request_max_body_size=settings.max_body_bytes,
        cors_config=cors_config(settings),
        state=app_state(cases, limits, metrics, workers),
        openapi_config=openapi_config(),
        on_startup=[workers.start, *(b.start for b in beat)],
        on_shutdown=[workers.stop, *(b.stop for b in beat), store.close],
        logging_config=None,
        debug=False,
    )
    finish(app.openapi_schema, strict_structs(command_bodies, clocks, wire, seek_bodies))
    # Around the whole app, not as route middleware: a request to an unknown path is logged
    # and answered with an X-Request-ID and the security headers like every other, and its
    # 404 counts against the client's refusals. The request logger times each request and
    # tells the metrics, if any.
    app.asgi_handler = logs.log_requests(
        headers.secure(slow_refusals(app.asgi_handler, limits)),
        metrics.observe if metrics else None,
    )
    return app

"""The composition root: ``create_app(settings)`` builds the Litestar app and its parts."""

from __future__ import annotations

from litestar import Litestar
from litestar.datastructures import State
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig

from eventstore import EventStore
from service import logs
from service.apidoc import StrictStructs
from service.clocks import Sweeper
from service.games import Games
from service.limits import Limits, cors_config
from service.problems import handle
from service.routes import BoardController, GameController, MetaController
from service.settings import Settings
from service.store import open_store
from service.tournament_routes import TournamentController

VERSION = "0.1.0"


def create_app(settings: Settings | None = None, store: EventStore | None = None) -> Litestar:
    """The app over ``store`` (by default the SQLite file the settings name)."""
    settings = settings or Settings()
    logs.configure(settings.log_format, settings.log_level)
    store = store or open_store(settings.database, settings.synchronous, settings.database_url)
    games = Games(store, settings.max_live_games)
    sweeper = Sweeper(games.enforce_clocks)
    return Litestar(
        route_handlers=[MetaController, GameController, BoardController, TournamentController],
        dependencies={"games": Provide(lambda: games, use_cache=True, sync_to_thread=False)},
        exception_handlers={Exception: handle},
        middleware=[logs.log_requests],
        request_max_body_size=settings.max_body_bytes,
        cors_config=cors_config(settings),
        state=State({"limits": Limits(settings)}),
        openapi_config=OpenAPIConfig(title="Tabula", version=VERSION, path="/schema"),
        on_startup=[sweeper.start],
        on_shutdown=[sweeper.stop, store.close],
        logging_config=None,
        debug=False,
        plugins=[StrictStructs()],
    )

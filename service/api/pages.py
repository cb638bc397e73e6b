"""The pages people use in a browser: the lobby (``GET /``), a seat's play page
(``GET /games/{id}/play``) and a tournament's page (``GET /tournaments/{id}/view``), with
the JavaScript modules and the style sheet they share with the viewer (``GET
/static/<name>``). Plain files of this origin: no build step, no CDN, no inline script or
style (see ``service.api.headers`` for their policy)."""

from __future__ import annotations

from pathlib import Path

from litestar import MediaType, Response, get
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.response import File

from service.api.deps import AnyRequest, GameId, QueriesDep
from service.core.refusal import Refusal, refuse
from service.usecases.games.queries import Queries
from service.usecases.tournaments.tournaments import Tournaments

STATIC = Path(__file__).parent.parent / "static"
LOBBY_PAGE = STATIC / "lobby.html"
PLAY_PAGE = STATIC / "play.html"
VIEWER_PAGE = STATIC / "viewer.html"
TOURNAMENT_PAGE = STATIC / "tournament.html"
MISSING_PAGE = STATIC / "missing.html"
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
ICON = STATIC / "favicon.svg"
ASSETS = {path.name for path in STATIC.iterdir() if path.suffix in MEDIA_TYPES}
CATALOGUES = {path.stem for path in (STATIC / "i18n").glob("*.json")}


@get("/", include_in_schema=False, media_type=MediaType.HTML, sync_to_thread=False)
def lobby() -> str:
    """The lobby: rule sets, a form to create a game and its seats' links, games to watch."""
    return LOBBY_PAGE.read_text(encoding="utf-8")


@get(
    "/games/{game_id:str}/play",
    include_in_schema=False,
    media_type=MediaType.HTML,
    sync_to_thread=True,
)
def play_page(game_id: GameId, queries: QueriesDep, request: AnyRequest) -> Response[str]:
    """A seat's play page (the token comes in the URL fragment, never to the server)."""
    return game_page(PLAY_PAGE, game_id, queries, request)


def game_page(page: Path, game_id: str, queries: Queries, request: AnyRequest) -> Response[str]:
    """``page`` of a game; for an unknown (or mistyped) game id, a browser (which asks for
    HTML) gets the page that says so with a link back to the lobby, status 404, and any other
    caller the problem."""
    try:
        queries.exists(game_id)
    except Refusal as refusal:
        if refusal.slug != "game-not-found" or not wants_html(request):
            raise
        return Response(read(MISSING_PAGE), status_code=404, media_type=MediaType.HTML)
    return Response(read(page), media_type=MediaType.HTML)


def wants_html(request: AnyRequest) -> bool:
    """Whether the caller asks for HTML by name (a browser navigating does)."""
    return "text/html" in request.headers.get("accept", "")


def read(page: Path) -> str:
    return page.read_text(encoding="utf-8")


@get(
    "/tournaments/{tournament_id:str}/view",
    include_in_schema=False,
    media_type=MediaType.HTML,
    sync_to_thread=True,
)
def tournament_page(tournament_id: FromPath[str], tournaments: NamedDependency[Tournaments]) -> str:
    """A tournament's page: standings, rounds and tables; the director's or a player's token
    comes in the URL fragment."""
    tournaments.load(tournament_id)  # 404 for no tournament
    return TOURNAMENT_PAGE.read_text(encoding="utf-8")


@get("/static/{name:str}", include_in_schema=False, sync_to_thread=False)
def static_asset(name: FromPath[str]) -> File:
    """One of the pages' scripts, style sheets or pictures (the icon)."""
    if name not in ASSETS:
        raise refuse("not-found", f"no static file {name}")
    path = STATIC / name
    return File(
        path,
        media_type=MEDIA_TYPES[path.suffix],
        content_disposition_type="inline",
        headers={"Cache-Control": "no-cache"},
    )


@get("/favicon.ico", include_in_schema=False, sync_to_thread=False)
def favicon() -> File:
    """The site's icon (the pages name ``/static/favicon.svg``; this is for a browser or tool
    that asks for the usual path without reading a page): the same SVG."""
    return File(
        ICON,
        media_type=MEDIA_TYPES[".svg"],
        content_disposition_type="inline",
        headers={"Cache-Control": "public, max-age=86400"},
    )


@get("/static/i18n/{name:str}", include_in_schema=False, sync_to_thread=False)
def catalogue(name: FromPath[str]) -> File:
    """One language's catalogue of the pages' messages (``en.json``, ...)."""
    lang = name.removesuffix(".json")
    if lang not in CATALOGUES or not name.endswith(".json"):
        raise refuse("not-found", f"no catalogue {name}")
    return File(
        STATIC / "i18n" / f"{lang}.json",
        media_type=MediaType.JSON,
        content_disposition_type="inline",
        headers={"Cache-Control": "no-cache"},
    )

"""The API reference page (``GET /schema``, also ``/schema/swagger``): Swagger UI over the
document at ``/schema/openapi.json``, with every asset served by Tabula itself.

Swagger UI's script and style come from the ``swagger-ui-bundle-v2`` package, installed with
the service (no CDN, so the page works offline and its policy names no other origin); the page
(``static/docs.html``) and its starter script (``static/docs.js``) are ours. Only the files the
page uses are served, under ``/schema/assets/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import Request, Router, get
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.params import FromPath
from litestar.response import File
from swagger_ui_bundle import swagger_ui_path

from service.core.refusal import refuse

STATIC = Path(__file__).parent.parent / "static"
BUNDLE = Path(str(swagger_ui_path))
PAGE = STATIC / "docs.html"
ASSETS_PATH = "/schema/assets"
JS, CSS, PNG = "text/javascript", "text/css", "image/png"
ASSETS: dict[str, tuple[Path, str]] = {
    "swagger-ui-bundle.js": (BUNDLE / "swagger-ui-bundle.js", JS),
    "swagger-ui.css": (BUNDLE / "swagger-ui.css", CSS),
    "index.css": (BUNDLE / "index.css", CSS),
    "favicon-32x32.png": (BUNDLE / "favicon-32x32.png", PNG),
    "docs.js": (STATIC / "docs.js", JS),
}
CACHE = "public, max-age=3600"


class DocsPage(SwaggerRenderPlugin):
    """Swagger UI from this origin: the page is ``static/docs.html``; no OAuth2 redirect page
    (the API's tokens are bearer tokens given at creation)."""

    def __init__(self) -> None:
        super().__init__(path=["/swagger"])

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return PAGE.read_bytes()

    def receive_router(self, router: Router) -> None:
        return


@get(ASSETS_PATH + "/{name:str}", include_in_schema=False, sync_to_thread=False)
def docs_asset(name: FromPath[str]) -> File:
    """One of the reference page's assets."""
    if name not in ASSETS:
        raise refuse("not-found", f"no asset {name} for the reference page")
    path, media_type = ASSETS[name]
    headers = {"Cache-Control": CACHE}
    return File(path, media_type=media_type, content_disposition_type="inline", headers=headers)

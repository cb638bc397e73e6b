"""Security headers on every reply: ``X-Content-Type-Options: nosniff`` and a
``Content-Security-Policy``.

The policy of every reply is ``default-src 'none'`` (JSON, problems, the SVG boards and the
pages' own scripts load nothing and run nothing; no page may frame them), except:

- the pages people use (the lobby ``/``, ``/games/{id}/play``, ``/games/{id}/view``,
  ``/tournaments/{id}/view``): scripts and style sheets of this origin only (``/static/``),
  ``fetch`` and ``EventSource`` to this origin, nothing else (no inline script or style, no
  inline event handler, no plugin, no frame, no base or form target);
- the API reference page (``/schema``, ``/schema/swagger``): scripts, styles, images and
  requests of this origin only (Swagger UI is served from ``/schema/assets/``, see
  ``service.api.docs``), plus ``data:`` images (the icons in Swagger UI's style sheet); no
  inline script or style, no other origin.

``secure(app)`` wraps the ASGI app (so 404s of unknown paths get the headers too).
"""

from __future__ import annotations

import re

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

DOCS_PATH = "/schema"
PAGE_PATH = re.compile(r"^/$|^/games/[^/]+/(view|play)$|^/tournaments/[^/]+/view$")
NONE = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
PAGES = f"{NONE}; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'"
DOCS = f"{NONE}; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'"


def policy(path: str, content_type: bytes) -> str:
    """The Content-Security-Policy of a reply."""
    if not content_type.startswith(b"text/html"):
        return NONE
    if PAGE_PATH.match(path):
        return PAGES
    if path.startswith(DOCS_PATH):
        return DOCS
    return NONE


def secure(app: ASGIApp) -> ASGIApp:
    """ASGI middleware: ``nosniff`` and the policy on every HTTP reply."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        path = scope["path"]

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                if b"x-content-type-options" not in names:
                    headers.append((b"x-content-type-options", b"nosniff"))
                if b"content-security-policy" not in names:
                    csp = policy(path, content_type)
                    headers.append((b"content-security-policy", csp.encode()))
                message["headers"] = headers
            await send(message)

        await app(scope, receive, send_secured)

    return middleware

"""Security headers on every reply: ``X-Content-Type-Options: nosniff`` and a
``Content-Security-Policy``.

The policy of every reply is ``default-src 'none'`` (JSON, problems and the SVG boards load
nothing and run nothing; no page may frame them), except:

- the viewer page (``/games/{id}/view``): its one inline script and one inline style by their
  hashes, ``fetch`` and ``EventSource`` to this origin, nothing else (no other script, no
  inline event handler, no plugin, no frame, no base or form target);
- the API reference page (``/schema``, ``/schema/swagger``): scripts, styles, images and
  requests of this origin only (Swagger UI is served from ``/schema/assets/``, see
  ``service.api.docs``), plus ``data:`` images (the icons in Swagger UI's style sheet); no
  inline script or style, no other origin.

``secure(app)`` wraps the ASGI app (so 404s of unknown paths get the headers too).
"""

from __future__ import annotations

import base64
import hashlib
import re

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.api.games import VIEWER_PAGE

DOCS_PATH = "/schema"
VIEWER_PATH = re.compile(r"^/games/[^/]+/view$")
NONE = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"


def inline_hashes(html: str, tag: str) -> list[str]:
    """CSP source expressions (``'sha256-...'``) of each inline ``<tag>`` element's text."""
    pattern = re.compile(rf"<{tag}>(.*?)</{tag}>", re.DOTALL)
    return [
        "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"
        for body in pattern.findall(html)
    ]


def viewer_policy(html: str) -> str:
    """The viewer page's policy: its own inline script and style, requests to this origin."""
    scripts = " ".join(inline_hashes(html, "script"))
    styles = " ".join(inline_hashes(html, "style"))
    return f"{NONE}; script-src {scripts}; style-src {styles}; connect-src 'self'; img-src 'self'"


VIEWER = viewer_policy(VIEWER_PAGE.read_text(encoding="utf-8"))
DOCS = f"{NONE}; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'"


def policy(path: str, content_type: bytes) -> str:
    """The Content-Security-Policy of a reply."""
    if VIEWER_PATH.match(path):
        return VIEWER
    if path.startswith(DOCS_PATH) and content_type.startswith(b"text/html"):
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

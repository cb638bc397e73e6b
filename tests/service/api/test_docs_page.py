"""The API reference page (``GET /schema``) loads nothing from another origin: every asset it
names is served here with its own content type, and its policy allows this origin only."""

from __future__ import annotations

import re
from typing import Any

from litestar.testing import TestClient

from tests.service.api.test_headers import directives

TYPES = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}


def referenced(html: str) -> list[str]:
    """The assets the page loads (its link home to the lobby aside)."""
    return [u for u in re.findall(r"""(?:src|href)=["']([^"']+)["']""", html) if u != "/"]


def test_the_reference_page_names_only_assets_of_this_origin(api: TestClient[Any]) -> None:
    for page in ("/schema", "/schema/swagger"):
        reply = api.get(page)
        assert reply.status_code == 200, page
        assert reply.headers["content-type"].startswith("text/html")
        urls = referenced(reply.text)
        assert len(urls) >= 4, urls  # icon, two style sheets, two scripts
        for url in urls:
            assert url.startswith("/") and not url.startswith("//"), url
        assert "http" not in reply.text.replace('"http', "")  # no absolute URL anywhere


def test_each_asset_of_the_reference_page_is_served_with_its_type(api: TestClient[Any]) -> None:
    urls = referenced(api.get("/schema").text)
    for url in urls:
        reply = api.get(url)
        assert reply.status_code == 200, url
        suffix = url[url.rindex(".") :]
        assert reply.headers["content-type"].startswith(TYPES[suffix]), url
        assert reply.headers["x-content-type-options"] == "nosniff"
        assert len(reply.content) > 100, url
    bundle = api.get("/schema/assets/swagger-ui-bundle.js").text
    assert "SwaggerUIBundle" in bundle
    assert "SwaggerUIBundle(" in api.get("/schema/assets/docs.js").text


def test_the_reference_page_policy_allows_this_origin_only(api: TestClient[Any]) -> None:
    policy_text = api.get("/schema").headers["content-security-policy"]
    policy = directives(policy_text)
    assert policy["default-src"] == ["'none'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["connect-src"] == ["'self'"]  # the document, and "try it out"
    assert policy["img-src"] == ["'self'", "data:"]
    assert "http" not in policy_text and "unsafe" not in policy_text


def test_only_the_pages_assets_are_served(api: TestClient[Any]) -> None:
    for name in ("index.html", "swagger-initializer.js", "../viewer.html", "viewer.html"):
        assert api.get(f"/schema/assets/{name}").status_code == 404, name

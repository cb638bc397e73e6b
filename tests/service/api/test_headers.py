"""Every reply carries nosniff and a Content-Security-Policy (the pages a strict one of their
own), requests to unknown paths are logged and get an X-Request-ID like any other, and one
API docs page is served (issue 16, item 10). ``server: uvicorn`` is gone too: that is the real
server's, tested in tests/hostile/test_protocol.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.conftest import create


def request_lines(text: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("event") == "request"]


def directives(policy: str) -> dict[str, list[str]]:
    parsed = [part.split() for part in policy.split(";") if part.strip()]
    return {words[0]: words[1:] for words in parsed}


def test_every_reply_says_nosniff_and_loads_nothing(api: TestClient[Any]) -> None:
    game = create(api, players=2)["id"]
    replies = [
        api.get("/health"),
        api.get("/rulesets"),
        api.get(f"/games/{game}"),
        api.get(f"/games/{game}/board.svg"),
        api.get("/games/nope"),  # a problem
        api.get("/no/such/path"),  # an unknown path
        api.post("/health"),  # a method not allowed
        api.get("/schema/openapi.json"),
    ]
    for reply in replies:
        assert reply.headers["x-content-type-options"] == "nosniff", reply.url
        policy = directives(reply.headers["content-security-policy"])
        assert policy["default-src"] == ["'none'"], reply.url
        assert policy["frame-ancestors"] == ["'none'"], reply.url
    assert replies[3].headers["content-type"].startswith("image/svg+xml")


@pytest.mark.parametrize(
    "page", ["/", "/games/{game}/play", "/games/{game}/view", "/tournaments/{tournament}/view"]
)
def test_the_pages_run_scripts_and_styles_of_this_origin_only(
    api: TestClient[Any], page: str
) -> None:
    game = create(api, players=2)["id"]
    body = {"name": "Cup", "ruleset": "race35", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    tournament = api.post("/tournaments", json=body).json()["id"]
    reply = api.get(page.format(game=game, tournament=tournament))
    assert reply.status_code == 200
    assert reply.headers["x-content-type-options"] == "nosniff"
    policy = directives(reply.headers["content-security-policy"])
    assert policy["default-src"] == ["'none'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["connect-src"] == ["'self'"]  # fetch of the board and events, the stream
    assert policy["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in reply.headers["content-security-policy"]
    # No inline script, style or event handler attribute the policy would block:
    html = reply.text
    assert not re.search(r"<[^>]+\son\w+=", html)
    assert not re.search(r"<script(?![^>]*\ssrc=)[^>]*>", html)
    assert "<style" not in html and "style=" not in html
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
        assert api.get(asset).status_code == 200, asset


def test_a_static_file_that_does_not_exist_is_a_404_problem(api: TestClient[Any]) -> None:
    reply = api.get("/static/secrets.py")
    assert reply.status_code == 404
    assert reply.json()["type"].endswith("/not-found")


def test_an_unknown_path_is_logged_with_its_request_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(database=str(tmp_path / "t.db"), log_format="json", log_level="info")
    with TestClient(create_app(settings)) as api:
        capsys.readouterr()
        unknown = api.get("/no/such/path")
        given = api.get("/games/abc/nothing-here", headers={"X-Request-ID": "frontend-7"})
        method = api.delete("/health")
    lines = request_lines(capsys.readouterr().out)
    assert [line["path"] for line in lines] == [
        "/no/such/path",
        "/games/abc/nothing-here",
        "/health",
    ]
    first, second, third = lines
    assert unknown.status_code == 404
    assert unknown.headers["x-request-id"] == first["request_id"]
    assert (first["game_id"], first["status"], first["outcome"]) == (None, 404, "rejected")
    assert given.headers["x-request-id"] == second["request_id"] == "frontend-7"
    assert (second["game_id"], second["status"]) == ("abc", 404)
    assert method.status_code == 405
    assert method.headers["x-request-id"] == third["request_id"]


def test_one_docs_page_and_the_document(api: TestClient[Any]) -> None:
    document = api.get("/schema/openapi.json")
    assert document.status_code == 200
    assert document.json()["info"]["title"] == "Tabula"
    for page in ("/schema", "/schema/swagger"):
        reply = api.get(page)
        assert reply.status_code == 200, page
        assert "/schema/assets/swagger-ui-bundle.js" in reply.text  # see test_docs_page.py
    for gone in ("/schema/redoc", "/schema/rapidoc", "/schema/elements", "/schema/openapi.yaml"):
        assert api.get(gone).status_code == 404, gone

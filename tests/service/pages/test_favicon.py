"""The site's icon: every page names it (``<link rel="icon">``), it is served there and at
``/favicon.ico`` (the path a browser asks for by itself), a small SVG, never a 404."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from litestar.testing import TestClient

ICON = re.compile(r'<link rel="icon" type="image/svg\+xml" href="([^"]+)">')


def pages(api: TestClient[Any]) -> dict[str, str]:
    """The HTML of each page: the lobby, a seat's play page, the viewer, a tournament's page
    and the page of a game that does not exist."""
    body = {"ruleset": "race35", "seats": [{"name": "Ann"}, {"name": "Bob"}]}
    game = api.post("/games", json=body).json()["id"]
    tournament = {
        "name": "Cup",
        "ruleset": "race35",
        "seats_per_table": 2,
        "players": [{"name": n} for n in ("Ann", "Bob")],
    }
    made = api.post("/tournaments", json=tournament).json()
    html = {"accept": "text/html"}
    paths = {
        "lobby": "/",
        "play": f"/games/{game}/play",
        "viewer": f"/games/{game}/view",
        "tournament": f"/tournaments/{made['id']}/view",
        "missing": "/games/no-such-game/play",
    }
    return {name: api.get(path, headers=html).text for name, path in paths.items()}


def test_every_page_names_the_icon_and_the_icon_is_served(api: TestClient[Any]) -> None:
    for name, text in pages(api).items():
        linked = ICON.findall(text)
        assert linked == ["/static/favicon.svg"], name
    for path in ("/static/favicon.svg", "/favicon.ico"):
        reply = api.get(path)
        assert reply.status_code == 200, path
        assert reply.headers["content-type"].startswith("image/svg+xml"), path
        assert ET.fromstring(reply.text).tag == "{http://www.w3.org/2000/svg}svg"
        assert len(reply.content) < 2048, path

"""The API reference page renders in headless Chromium with every request to another origin
refused: it works offline. Skipped, failed or run as ``test_viewer_browser.py`` says."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.app import create_app
from service.settings import Settings
from tests.live import serving
from tests.service.browser import Request, Route, chromium

pytestmark = pytest.mark.browser


def test_the_reference_page_renders_offline(tmp_path: Path) -> None:
    settings = Settings(database=str(tmp_path / "tabula.db"), log_level="warning")
    with chromium() as browser, serving(create_app(settings)) as base:
        page = browser.new_page()
        elsewhere: list[str] = []
        problems: list[str] = []

        def offline(route: Route, request: Request) -> None:
            if request.url.startswith(base + "/"):
                route.continue_()
            else:
                elsewhere.append(request.url)
                route.abort()

        page.route("**/*", offline)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.goto(base + "/schema")
        page.wait_for_selector(".opblock", timeout=20_000)
        title = page.inner_text(".info .title")
        operations = page.locator(".opblock").count()
    assert "Tabula" in title
    assert operations >= 20  # every route of the API is listed
    assert elsewhere == []
    assert problems == []  # no script error, no refusal by the page's policy

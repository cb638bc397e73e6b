"""Debian's Chromium driven by Playwright, shared by the browser tests: a test module imports
what it needs from here (the fixtures ``browser``, ``person`` and ``url`` too), and this
module's guard then holds for it.

Without ``/usr/bin/chromium`` a test is skipped with a message, so ``make test`` works on a
bare machine; ``.ci/run`` installs Chromium and sets ``TABULA_REQUIRE_BROWSER=1``, which turns
a missing browser into a failure. ``TABULA_SKIP_BROWSER=1`` skips every module that imports
this one even where Chromium is installed; without Playwright or axe they fail with a message.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from service.app import create_app
from service.settings import Settings
from tests.live import serving

if os.environ.get("TABULA_SKIP_BROWSER") == "1":
    pytest.skip("TABULA_SKIP_BROWSER=1", allow_module_level=True)

try:
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import Browser, Page, Request, Route, sync_playwright
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # pragma: no cover - CI installs them with the test extra
    pytest.fail("playwright or axe is missing: pip install -e '.[test]'", pytrace=False)

__all__ = ["Axe", "Browser", "Page", "PlaywrightTimeout", "Request", "Route"]

WIDE, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextmanager
def chromium() -> Iterator[Browser]:
    """Headless Chromium, closed after the block; the test is skipped where it is missing
    (failed with ``TABULA_REQUIRE_BROWSER=1``)."""
    if not Path(CHROMIUM).exists():
        missing = f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)"
        if os.environ.get("TABULA_REQUIRE_BROWSER") == "1":
            pytest.fail(missing, pytrace=False)
        pytest.skip(missing)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One Chromium for a test module (import the fixture into the module to use it)."""
    with chromium() as launched:
        yield launched


@pytest.fixture
def person(browser: Browser) -> Iterator[Any]:
    """Opens pages, each in a browser context of its own (a person on their own machine, with
    their own sessionStorage); no page may throw."""
    errors: list[str] = []
    contexts = []

    def open_page(address: str, viewport: dict[str, int] = WIDE) -> Page:
        context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(address)
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not errors, errors


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real app served by uvicorn over a fresh database, one for a test module."""
    database = str(tmp_path_factory.mktemp("browser") / "tabula.db")
    with serving(create_app(Settings(database=database, log_level="warning"))) as base:
        yield base

"""Debian's Chromium driven by Playwright, shared by the browser tests.

Without ``/usr/bin/chromium`` a test is skipped with a message, so ``make test`` works on a
bare machine; ``.ci/run`` installs Chromium and sets ``TABULA_REQUIRE_BROWSER=1``, which turns
a missing browser into a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

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

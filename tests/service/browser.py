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

import pytest
from playwright.sync_api import Browser, sync_playwright

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

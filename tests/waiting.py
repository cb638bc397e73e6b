"""Waiting for something in a test: poll it with a deadline instead of sleeping and hoping.

A test that sleeps a fixed time and then looks is slow when the time is generous and flaky
when it is not; ``wait_until`` returns as soon as the thing holds and fails with a message
that says what never happened when the deadline passes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

DEFAULT_TIMEOUT = 10.0
INTERVAL = 0.01


def wait_until(
    predicate: Callable[[], T],
    timeout: float = DEFAULT_TIMEOUT,
    message: str = "the condition never held",
    interval: float = INTERVAL,
) -> T:
    """Call ``predicate`` until it returns something truthy and return that; fail with
    ``message`` (and how long was waited) once ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(f"{message} (waited {timeout:g} s)")
        time.sleep(interval)


async def wait_until_async(
    predicate: Callable[[], T],
    timeout: float = DEFAULT_TIMEOUT,
    message: str = "the condition never held",
    interval: float = INTERVAL,
) -> T:
    """``wait_until`` on a running event loop: yields to the loop between the calls."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(f"{message} (waited {timeout:g} s)")
        await asyncio.sleep(interval)

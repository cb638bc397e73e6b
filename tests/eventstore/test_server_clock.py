"""The server's clock (``eventstore.server_clock``): every process over one PostgreSQL
database keeps the database server's time, whatever its own host's clock says."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from eventstore.clock import utcnow
from eventstore.server_clock import SYNC_SECONDS, ServerClock
from tests.postgres import postgres_schema

pytestmark = pytest.mark.postgres
STEP = timedelta(minutes=10)


def test_a_host_clock_stepped_ten_minutes_moves_the_server_clock_not_at_all() -> None:
    with postgres_schema() as url:
        clock = ServerClock(url, fallback=lambda: utcnow() + STEP)
        assert abs(clock() - utcnow()) < timedelta(seconds=1)  # the server's: this machine's


def test_between_readings_the_server_clock_counts_on_the_monotonic_clock() -> None:
    ticks = [100.0]
    with postgres_schema() as url:
        clock = ServerClock(url, monotonic=lambda: ticks[0])
        first = clock()
        ticks[0] += SYNC_SECONDS / 2
        assert clock() - first == timedelta(seconds=SYNC_SECONDS / 2)


def test_until_the_server_answers_the_clock_is_the_fallback() -> None:
    fixed = datetime(2030, 1, 1, tzinfo=UTC)
    clock = ServerClock("postgresql://nobody@127.0.0.1:1/none", timeout=1, fallback=lambda: fixed)
    assert clock() == fixed

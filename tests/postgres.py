"""The PostgreSQL test database: a fresh schema per test, or a skip that says why."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

URL_VARIABLE = "TABULA_TEST_POSTGRES_URL"
SKIP_REASON = (
    f"{URL_VARIABLE} is not set, so the PostgreSQL backend is not tested here (CI sets it;"
    " locally run .ci/run, or set it to a database the tests may create schemas in, e.g."
    " postgresql://tabula:tabula@127.0.0.1/tabula_test)"
)


running: tuple[str, bool] | None = None
"""The test being set up and whether it is marked ``postgres`` (set by tests/conftest.py)."""


@contextmanager
def postgres_schema(prefix: str = "test") -> Iterator[str]:
    """A URL of the test database whose search path is a fresh schema, dropped afterwards.

    The test asking must be marked ``postgres`` (``pytestmark = pytest.mark.postgres``), so
    that ``pytest -m "not postgres"`` leaves out every test that needs the database; an
    unmarked one fails here, with or without the database."""
    if running is not None and not running[1]:
        pytest.fail(
            f"{running[0]} uses the PostgreSQL test database but is not marked postgres",
            pytrace=False,
        )
    url = os.environ.get(URL_VARIABLE, "")
    if not url:
        pytest.skip(SKIP_REASON)
    from eventstore.postgres import temporary_schema

    with temporary_schema(url, prefix) as schema_url:
        yield schema_url

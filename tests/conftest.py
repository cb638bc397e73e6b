"""Markers that tests cannot carry in their own files, and the check that PostgreSQL tests
are marked ``postgres`` (so ``-m "not postgres"`` really leaves them all out)."""

from __future__ import annotations

import pytest

from tests import postgres


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark tests/eventstore's PostgreSQL tests ``postgres``: the store contract suite on its
    ``postgres`` backend, and the tests of test_postgres.py that take its database (``url``)."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_postgres_backend = callspec is not None and callspec.params.get("backend") == "postgres"
        on_postgres_database = item.path.name == "test_postgres.py" and "url" in getattr(
            item, "fixturenames", ()
        )
        if on_postgres_backend or on_postgres_database:
            item.add_marker(pytest.mark.postgres)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tell tests.postgres which test runs and whether it is marked ``postgres``."""
    postgres.running = (item.nodeid, item.get_closest_marker("postgres") is not None)

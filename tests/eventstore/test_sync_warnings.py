"""A commit that stopped waiting for the synchronous standby is never acknowledged: the
warning that says so is known by its code, whatever language the server speaks."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from eventstore.postgres_pool import _cut_short


def notice(severity: str, sqlstate: str, message: str) -> Any:
    """A notice as psycopg hands it over (``severity`` is localised, the other is not)."""
    return SimpleNamespace(
        severity_nonlocalized=severity,
        severity={"WARNING": "WARNUNG"}.get(severity, severity),
        sqlstate=sqlstate,
        message_primary=message,
    )


@pytest.mark.parametrize(
    ("sqlstate", "message"),
    [
        ("01000", "canceling wait for synchronous replication due to user request"),
        ("01000", "breche Warten auf synchrone Replikation ab wegen Benutzeraufforderung"),
        ("57P01", "breche Warten auf synchrone Replikation ab und beende Verbindung"),
        ("57P01", "annulation de l'attente pour la réplication synchrone"),
    ],
)
def test_the_standby_wait_cut_short_is_known_in_any_language(sqlstate: str, message: str) -> None:
    assert _cut_short(notice("WARNING", sqlstate, message))


@pytest.mark.parametrize(
    ("severity", "sqlstate", "message"),
    [
        ("NOTICE", "00000", "relation already exists, skipping"),
        ("WARNING", "25P01", "there is no transaction in progress"),
        ("NOTICE", "01000", "a plain notice with the warning's code"),
    ],
)
def test_other_notices_leave_a_commit_acknowledged(
    severity: str, sqlstate: str, message: str
) -> None:
    assert not _cut_short(notice(severity, sqlstate, message))

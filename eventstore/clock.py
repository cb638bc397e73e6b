"""The store's clock: timestamps are metadata only, so the clock is injectable for tests."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    """Return the current time, timezone-aware in UTC."""
    return datetime.now(UTC)


def iso_timestamp(moment: datetime) -> str:
    """Format a time as UTC ISO-8601 with microseconds and "Z"; naive times are taken as UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")

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


def canonical_timestamp(text: str) -> str:
    """Rewrite an ISO-8601 timestamp as ``iso_timestamp`` writes it (UTC, microseconds, "Z").

    Stored times compare as text, so they must all be written alike. An offset is converted to
    UTC and a time without one is taken as UTC; text that is no ISO-8601 time is a ValueError.
    """
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not an ISO-8601 timestamp: {text!r}") from exc
    return iso_timestamp(moment)

"""Values the event store takes and returns: frozen msgspec Structs, free of any game."""

from __future__ import annotations

from typing import Any

import msgspec


class NewEvent(msgspec.Struct, frozen=True):
    """An event to append; the store gives it a version, a timestamp and a hash. ``by`` says who
    caused it, in the caller's words (a number or a name); the store keeps it as given."""

    type: str
    data: dict[str, Any]
    by: int | str


class StoredEvent(msgspec.Struct, frozen=True):
    """An event as stored: versioned, timestamped and chained to its predecessor."""

    stream_id: str
    version: int
    type: str
    data: dict[str, Any]
    by: int | str
    at: str
    prev_hash: str
    hash: str


class StreamInfo(msgspec.Struct, frozen=True):
    """A stream's public summary: its version, creation time, metadata and latest event type."""

    stream_id: str
    version: int
    created_at: str
    meta: dict[str, Any]
    last_type: str


class AppendResult(msgspec.Struct, frozen=True):
    """What an append stored, or on an idempotent replay what the first append stored."""

    events: tuple[StoredEvent, ...]
    replayed: bool

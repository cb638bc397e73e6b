"""Values the event store takes and returns: frozen msgspec Structs, free of any game."""

from __future__ import annotations

from collections.abc import Sequence
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


class Summary(msgspec.Struct, frozen=True):
    """What a listing needs of a stream, as its caller chooses it: ``kind``, ``status`` and
    ``tags`` are indexed (listings filter on them in SQL), ``document`` is kept as given."""

    kind: str
    status: str
    tags: dict[str, str]
    document: dict[str, Any]


class Summarised(msgspec.Struct, frozen=True):
    """A stream's summary as stored: the stream's version now, its creation time, when the
    summary was last written (the time of the append or rebuild that wrote it) and the summary."""

    stream_id: str
    version: int
    created_at: str
    updated_at: str
    summary: Summary


class SummaryQuery(msgspec.Struct, frozen=True):
    """A page of summaries, oldest stream first (creation time, then stream id).

    ``tag`` is a (key, value) pair the stream must carry (read from an index in order);
    ``word`` a key or a value one of its tags must have (checked row by row). ``after`` is
    the (created_at, stream_id) of the last row of the page before: keyset pagination, so a
    page costs the same wherever it is and streams added meanwhile are never listed twice.
    ``other_than`` is a kind the stream must not have (checked row by row). ``also`` is a
    (status, since) pair: rows of that status updated at ``since`` or later are selected too,
    whatever ``status`` says.
    """

    kind: str | None = None
    status: str | None = None
    tag: tuple[str, str] | None = None
    word: str | None = None
    after: tuple[str, str] | None = None
    limit: int = 100
    other_than: str | None = None
    also: tuple[str, str] | None = None


class Appending(msgspec.Struct, frozen=True):
    """One append as asked of a store (``append``, ``append_async``, one of ``append_batch``):
    events for a stream at the version they were judged on (0 creates the stream), the
    idempotency key with the request's fingerprint, the creation's ``meta`` and ``private``
    records, the stream's next deadline and its summary when it changes."""

    stream_id: str
    events: Sequence[NewEvent]
    expected_version: int
    idempotency_key: str | None = None
    meta: dict[str, Any] | None = None
    private: dict[str, Any] | None = None
    fingerprint: str = ""
    deadline: str | None = None
    summary: Summary | None = None

"""The hash chain: canonical JSON of an event, chaining new events, verifying a log.

Recipe (see README.md): ``hash = sha256(bytes.fromhex(prev_hash) + canonical_json(event))``
where ``canonical_json`` is the UTF-8 JSON of the object with exactly the keys
``stream_id``, ``version``, ``type``, ``data``, ``by``, ``at``, keys sorted at every
level, no whitespace (``msgspec.json.encode(fields, order="sorted")``). The first
event of a stream chains from ``GENESIS``, 32 zero bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from .model import NewEvent, StoredEvent

GENESIS = "00" * 32
"""The prev_hash of a stream's first event: 32 zero bytes, in hex."""

HASHED_FIELDS = ("stream_id", "version", "type", "data", "by", "at")
"""The event fields covered by the hash; prev_hash enters through the chaining itself."""


def canonical_json(fields: Mapping[str, Any]) -> bytes:
    """Encode an event's hashed fields as canonical JSON: sorted keys, compact, UTF-8."""
    return msgspec.json.encode({name: fields[name] for name in HASHED_FIELDS}, order="sorted")


def event_fields(event: StoredEvent) -> dict[str, Any]:
    """Return the hashed fields of a stored event."""
    return {name: getattr(event, name) for name in HASHED_FIELDS}


def chain_hash(prev_hash: str, fields: Mapping[str, Any]) -> str:
    """Return hex sha256 of the previous hash's bytes followed by the event's canonical JSON."""
    return hashlib.sha256(bytes.fromhex(prev_hash) + canonical_json(fields)).hexdigest()


def json_normal(data: dict[str, Any]) -> dict[str, Any]:
    """Return data as it reads back from JSON (tuples become lists, keys strings, ...)."""
    normal: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(data))
    return normal


def seal(
    stream_id: str, events: Sequence[NewEvent], after: int, prev_hash: str, at: str
) -> tuple[StoredEvent, ...]:
    """Number new events from after + 1 and chain them from prev_hash."""
    sealed: list[StoredEvent] = []
    for offset, new in enumerate(events, start=1):
        fields: dict[str, Any] = {
            "stream_id": stream_id,
            "version": after + offset,
            "type": new.type,
            "data": json_normal(new.data),
            "by": new.by,
            "at": at,
        }
        digest = chain_hash(prev_hash, fields)
        sealed.append(StoredEvent(**fields, prev_hash=prev_hash, hash=digest))
        prev_hash = digest
    return tuple(sealed)


def verify_chain(events: Sequence[StoredEvent], *, anchor: str | None = None) -> int | None:
    """Return the version of the first event that breaks the chain, or None when all verify.

    An event breaks the chain when its version does not follow its predecessor's, its
    prev_hash is not its predecessor's hash, or its hash does not match its content.
    The first event must chain from ``anchor``, which defaults to GENESIS for version 1
    and is unchecked otherwise (verifying a tail of a log).
    """
    expected_prev = anchor if anchor is not None else GENESIS
    check_prev = anchor is not None or (bool(events) and events[0].version == 1)
    expected_version = events[0].version if events else 0
    for event in events:
        linked = event.prev_hash == expected_prev or not check_prev
        if event.version != expected_version or not linked:
            return event.version
        if chain_hash(event.prev_hash, event_fields(event)) != event.hash:
            return event.version
        expected_prev, expected_version, check_prev = event.hash, event.version + 1, True
    return None


def same_events(new: Sequence[NewEvent], stored: Sequence[StoredEvent]) -> bool:
    """Tell whether new events equal stored ones by type, data and author (for idempotency)."""

    def key(event: NewEvent | StoredEvent) -> bytes:
        return msgspec.json.encode([event.type, event.data, event.by], order="sorted")

    return len(new) == len(stored) and all(
        key(n) == key(s) for n, s in zip(new, stored, strict=True)
    )

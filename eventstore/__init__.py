"""Tabula's event store: an append-only log of streams of events, knowing nothing of games."""

from .base import Announcing, EventStore
from .clock import canonical_timestamp, iso_timestamp, utcnow
from .commits import CommitSizes
from .derived import Changed, Derived, DerivedRow, Drop
from .errors import (
    IdempotencyKeyReused,
    StoreError,
    StoreUnavailable,
    StreamExists,
    VersionConflict,
)
from .hashing import GENESIS, canonical_json, chain_hash, verify_chain
from .model import (
    Appending,
    AppendResult,
    NewEvent,
    StoredEvent,
    StreamInfo,
    Summarised,
    Summary,
    SummaryQuery,
)
from .sqlite import SqliteEventStore

__all__ = [
    "GENESIS",
    "Announcing",
    "AppendResult",
    "Appending",
    "Changed",
    "CommitSizes",
    "Derived",
    "DerivedRow",
    "Drop",
    "EventStore",
    "IdempotencyKeyReused",
    "NewEvent",
    "SqliteEventStore",
    "StoreError",
    "StoreUnavailable",
    "StoredEvent",
    "StreamExists",
    "StreamInfo",
    "Summarised",
    "Summary",
    "SummaryQuery",
    "VersionConflict",
    "canonical_json",
    "canonical_timestamp",
    "chain_hash",
    "iso_timestamp",
    "utcnow",
    "verify_chain",
]

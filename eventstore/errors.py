"""Errors of the event store.

StoreError                  anything the store refuses or cannot do
├── VersionConflict         the stream is not at the version the append expected
│   └── StreamExists        expected_version=0 (create) but the stream already exists
├── IdempotencyKeyReused    an idempotency key came back with another request
└── StoreUnavailable        the database cannot take it now (full disk, I/O error, ...)
"""

from __future__ import annotations


class StoreError(Exception):
    """Base of every error the event store raises."""


class VersionConflict(StoreError):
    """An append expected one version of a stream and found another; nothing was written."""

    def __init__(self, stream_id: str, expected: int, actual: int, message: str = "") -> None:
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            message or f"stream {stream_id!r} expected at version {expected}, found {actual}"
        )


class StreamExists(VersionConflict):
    """An append tried to create a stream that already exists."""

    def __init__(self, stream_id: str, actual: int) -> None:
        super().__init__(
            stream_id, 0, actual, f"stream {stream_id!r} already exists at version {actual}"
        )


class IdempotencyKeyReused(StoreError):
    """An idempotency key already used on a stream came back with another request: another
    fingerprint, or (when either use gave none) different events. Nothing was written."""

    def __init__(self, stream_id: str, key: str, other: str = "different events") -> None:
        self.stream_id = stream_id
        self.key = key
        super().__init__(
            f"idempotency key {key!r} was already used on stream {stream_id!r} for {other}"
        )


class StoreUnavailable(StoreError):
    """The database cannot take the operation now (a fault of the machine or the database,
    not of the request): ``kind`` says which, one of ``faults.KINDS``. Nothing was written,
    except that a write cut off between its commit and its reply may have been; retrying it
    with its idempotency key is safe."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(message)

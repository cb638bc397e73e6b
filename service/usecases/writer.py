"""The one unit that appends to the store, for games and tournaments alike.

Every write of the service ends here as one or more ``Appending`` (events, the version they
were judged on, the idempotency key with its fingerprint, the stream's next deadline, its
summary when it changes): ``commit`` writes them in one transaction, ``commit_async`` writes
one while the event loop goes on. After a commit the writer announces it to its followers
(the tournaments' results follower), each of which says whether the append concerns it; the
work a follower asks for runs on the committing thread (off the event loop for an awaited
commit), and its failure is logged, never the write's: the follower's sweep catches up.

The store's refusals become the service's here too (``StoredErrors``), and the idempotency
lookup a write makes before judging (``replayed``) goes through the writer, so that nothing
else of the service touches keys.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import anyio.to_thread
import structlog

from eventstore import (
    Appending,
    AppendResult,
    EventStore,
    IdempotencyKeyReused,
    StoredEvent,
    VersionConflict,
)
from service.core.refusal import Refusal, refuse


class Conflict(Refusal):
    """A 409 ``version-conflict`` from the store: another write came between the load and
    the commit (a caller may judge again on a fresh load)."""


Follower = Callable[[Appending], Callable[[], object] | None]
"""Given an append just committed, the work it makes for a follower (None: none)."""


class Writer:
    """Appends to one store and announces what it appended."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.followers: list[Follower] = []

    def commit(self, appends: Sequence[Appending], what: str = "game") -> list[AppendResult]:
        """Write ``appends`` in one transaction (all or none), then announce them; a conflict
        is a 409 saying ``what`` moved on."""
        with StoredErrors(what):
            if len(appends) == 1:
                results = [self.store.append(appends[0])]
            else:
                results = self.store.append_batch(appends)
        for work in self._work(appends, results):
            run(work)
        return results

    async def commit_async(self, a: Appending) -> AppendResult:
        """Write one append of a stream that exists, awaited; followers' work on a thread."""
        with StoredErrors():
            result = await self.store.append_async(a)
        for work in self._work([a], [result]):
            await anyio.to_thread.run_sync(run, work)
        return result

    def replayed(self, stream_id: str, key: str, fingerprint: str) -> list[StoredEvent] | None:
        """The events of an earlier write with this key and body, if any (422 when the key
        came with another body). It waits for the store: call it off the event loop."""
        with StoredErrors():
            earlier = self.store.lookup(stream_id, key, fingerprint)
        return list(earlier.events) if earlier is not None else None

    def _work(
        self, appends: Sequence[Appending], results: Sequence[AppendResult]
    ) -> Iterator[Callable[[], object]]:
        """What the followers make of the appends that wrote (a replay wrote nothing)."""
        for appending, result in zip(appends, results, strict=True):
            if result.replayed:
                continue
            for follower in self.followers:
                try:
                    work = follower(appending)
                except Exception:  # the write stands: never a 500 for a committed append
                    structlog.get_logger().exception("follower failed; its sweep catches up")
                    continue
                if work is not None:
                    yield work


def run(work: Callable[[], object]) -> None:
    """A follower's work; a failure is logged (the write it followed stands)."""
    try:
        work()
    except Exception:
        structlog.get_logger().exception("follower failed; its sweep catches up")


class StoredErrors:
    """The store's refusals of an append as the service's (a class, not a generator: every
    write goes through it)."""

    __slots__ = ("what",)

    def __init__(self, what: str = "game") -> None:
        self.what = what

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, _: object) -> None:
        if isinstance(error, IdempotencyKeyReused):
            raise refuse(
                "idempotency-key-reused",
                "this Idempotency-Key was already used with another request body",
            ) from None
        if isinstance(error, VersionConflict):
            raise Conflict(
                "version-conflict",
                f"the {self.what} moved on to version {error.actual} meanwhile",
                current_version=error.actual,
            ) from error

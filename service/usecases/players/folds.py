"""Players' and apps' streams folded, kept in memory and caught up with the store at each
read: ``Folds.state`` reads only the events appended since it last looked (one query), so a
key rotated or a handle retired by any process is seen at the next read."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from domain.players.events import IdentityEvent, event_data, parse_event
from eventstore import Appending, EventStore, NewEvent

S = TypeVar("S")
KEPT = 10_000  # folds kept at most (least recently read go first)


class Folds(Generic[S]):
    """The states of one kind of stream (players' or apps'), folded with ``step`` from
    events parsed as ``kinds``; the latest ``KEPT`` read are kept."""

    def __init__(
        self,
        store: EventStore,
        kinds: dict[str, type[IdentityEvent]],
        step: Callable[[S | None, IdentityEvent], S],
        kept: int = KEPT,
    ) -> None:
        self.store, self.kinds, self.step, self.kept = store, kinds, step, kept
        self._folds: OrderedDict[str, tuple[int, S]] = OrderedDict()
        self._lock = threading.Lock()

    def cached(self, stream_id: str) -> S | None:
        """The stream's state as this process last read it, without asking the store (None:
        not kept): what may be stale, for what a stale answer cannot harm."""
        with self._lock:
            held = self._folds.get(stream_id)
        return held[1] if held is not None else None

    def state(self, stream_id: str) -> tuple[int, S] | None:
        """The stream's version and state now (None: no such stream)."""
        with self._lock:
            held = self._folds.get(stream_id)
        version, state = held if held is not None else (0, None)
        news = self.store.read(stream_id, after=version)
        for stored in news:
            state = self.step(state, parse_event(self.kinds, stored.type, stored.data))
            version = stored.version
        if state is None:
            return None
        with self._lock:
            now = self._folds.get(stream_id)
            if now is None or now[0] <= version:
                self._folds[stream_id] = (version, state)
            self._folds.move_to_end(stream_id)
            while len(self._folds) > self.kept:
                self._folds.popitem(last=False)
        return version, state


def appending(
    stream_id: str,
    events: Sequence[IdentityEvent],
    by: str,
    version: int,
    meta: dict[str, Any] | None = None,
) -> Appending:
    """The append of identity events at ``version`` (0 creates the stream, with ``meta``)."""
    stored = [NewEvent(type(e).__name__, event_data(e), by) for e in events]
    return Appending(stream_id, stored, version, meta=meta)

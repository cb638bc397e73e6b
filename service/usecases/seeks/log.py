"""The shapes' streams: each folded by ``domain.seeks.book`` and kept in memory, caught up
with the store at each read (one query), so a seek posted, matched or cancelled by any process
is seen at the next read. A write holds the shape's lock in this process and commits at the
version it read (``Writer.commit``, with whatever must be stored with it: the tables a match
creates); another process's write between is a ``Conflict``, and the caller reads again.

Besides the waiting seeks (the book), each fold keeps how every seek it saw end ended (by id),
for ``GET /seeks/{id}``. The list of shapes (``SHAPES``) is folded the same way.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

from domain.seeks.book import Book, Closed, step
from domain.seeks.events import SeekEvent, ShapeListed, event_data, parse_event
from eventstore import Appending, EventStore, NewEvent
from service.usecases.seeks.shapes import SHAPES
from service.usecases.tokens import Keyed, carrying
from service.usecases.writer import Writer

KEPT = 1000  # shapes' folds kept at most (least recently read go first)


class Held(NamedTuple):
    """A shape's stream as read: its version (0: no stream yet), its book (None: none yet),
    and how each seek that ended did, by id."""

    version: int
    book: Book | None
    closed: dict[str, Closed]


class SeekLog:
    """The shapes' streams over one store and its writer."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self.store: EventStore = writer.store
        self._held: OrderedDict[str, Held] = OrderedDict()
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._shapes: tuple[int, tuple[str, ...]] = (0, ())

    def held(self, stream: str) -> Held:
        """The shape's stream now: the fold kept, caught up with what was appended since."""
        with self._guard:
            held = self._held.get(stream) or Held(0, None, {})
        news = self.store.read(stream, after=held.version)
        if not news:
            return held
        version, book, closed = held
        for stored in news:
            book, ended = step(book, parse_event(stored.type, stored.data))
            closed.update((each.seek.id, each) for each in ended)
            version = stored.version
        return self.keep(stream, Held(version, book, closed))

    def keep(self, stream: str, held: Held) -> Held:
        """Keep ``held`` as the shape's fold, unless a later one is kept already."""
        with self._guard:
            now = self._held.get(stream)
            if now is None or now.version <= held.version:
                self._held[stream] = held
            self._held.move_to_end(stream)
            while len(self._held) > KEPT:
                self._held.popitem(last=False)
        return held

    def shapes(self) -> tuple[str, ...]:
        """The ids of every shape's stream, in the order they were opened."""
        version, streams = self._shapes
        news = self.store.read(SHAPES, after=version)
        if news:
            listed = [parse_event(stored.type, stored.data) for stored in news]
            streams += tuple(e.stream for e in listed if isinstance(e, ShapeListed))
            version = news[-1].version
            with self._guard:
                if self._shapes[0] < version:
                    self._shapes = (version, streams)
        return streams

    @contextmanager
    def locked(self, stream: str) -> Iterator[None]:
        """One writer at a time of the shape in this process (other processes: the version
        check)."""
        with self._guard:
            lock = self._locks.setdefault(stream, threading.Lock())
        with lock:
            yield

    def commit(
        self,
        stream: str,
        held: Held,
        events: Sequence[SeekEvent],
        by: str,
        deadline: str | None,
        with_them: Sequence[Appending] = (),
        key: Keyed | None = None,
    ) -> Held:
        """Append ``events`` to the shape's stream at the version it was read at, with its
        next ``deadline``, the Idempotency-Key ``key`` and, in the same transaction, the
        appends ``with_them`` (and, for a new shape, its place in the list of shapes); the
        fold they leave (read again when the key replayed an earlier append)."""
        shaped = carrying(appending(stream, events, by, held.version, deadline), key)
        appends = [*with_them, shaped]
        if held.version == 0:
            listed = [ShapeListed(stream)]
            appends.append(appending(SHAPES, listed, by, self.store.version(SHAPES), None))
        results = self.writer.commit(appends, "seeks")
        if results[len(with_them)].replayed:
            return self.held(stream)
        version, book, closed = held
        for event in events:
            book, ended = step(book, event)
            closed.update((each.seek.id, each) for each in ended)
        return self.keep(stream, Held(version + len(events), book, closed))


def appending(
    stream: str, events: Sequence[SeekEvent], by: str, version: int, deadline: str | None
) -> Appending:
    """The append of seek events at ``version``, setting the stream's deadline."""
    stored = [NewEvent(type(e).__name__, event_data(e), by) for e in events]
    return Appending(stream, stored, version, deadline=deadline)

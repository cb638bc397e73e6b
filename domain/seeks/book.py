"""The seeks of one shape, folded from its stream by a pure reducer: the shape and the seeks
still waiting, in arrival order (``Book``); each event that ends seeks says how (``Closed``).

Errors: ``SeekError`` > ``BadEvent`` (an event that cannot follow the book: the service
writes none)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, Literal

import msgspec

from domain.seeks.events import (
    SeekCancelled,
    SeekEvent,
    SeekExpired,
    SeekPosted,
    SeeksMatched,
    SeeksOpened,
    SeeksRenewed,
)

Status = Literal["waiting", "matched", "expired", "cancelled"]


class SeekError(Exception):
    """Base of the seeks' errors."""


class BadEvent(SeekError):
    """An event that cannot follow the book it is applied to."""


class Seek(msgspec.Struct, frozen=True):
    """A seek waiting: its id, when it was posted and when it expires, its owner (a
    registered player's ``handle``, or the ``digest`` of a guest's secret) and seat name, the
    player's rating when posted, and when and with what bots it is seated (if it is)."""

    id: str
    at: datetime
    expires: datetime
    handle: str = ""
    digest: str = ""
    name: str = ""
    rating: float = 0.0
    bots_after: float | None = None
    level: str = ""

    @property
    def bots_at(self) -> datetime | None:
        """When the seek is seated with bots if still waiting (None: never)."""
        if self.bots_after is None:
            return None
        return self.at + timedelta(seconds=self.bots_after)


class Closed(msgspec.Struct, frozen=True):
    """A seek that waits no more: matched (its table and seat), expired or cancelled."""

    seek: Seek
    status: Status
    game_id: str = ""
    seat: int = -1


class Book(msgspec.Struct, frozen=True):
    """A shape's seeks: the tables they make (rule set, seats, rated, options) and the seeks
    waiting, oldest first."""

    ruleset: str
    players: int
    rated: bool
    options: dict[str, Any]
    waiting: tuple[Seek, ...] = ()

    def find(self, seek_id: str) -> Seek | None:
        """The waiting seek of that id, if any."""
        return next((seek for seek in self.waiting if seek.id == seek_id), None)

    def of(self, handle: str) -> tuple[Seek, ...]:
        """The waiting seeks of a registered player."""
        return tuple(seek for seek in self.waiting if handle and seek.handle == handle)


def posted(event: SeekPosted) -> Seek:
    """The seek a ``SeekPosted`` puts on the book."""
    return Seek(
        event.seek,
        parse_at(event.at),
        parse_at(event.expires),
        event.handle,
        event.digest,
        event.name,
        event.rating,
        event.bots_after,
        event.level,
    )


def step(book: Book | None, event: SeekEvent) -> tuple[Book, tuple[Closed, ...]]:
    """The book after ``event``, and the seeks it ends; ``BadEvent`` when it cannot follow."""
    if book is None:
        if not isinstance(event, SeeksOpened):
            raise BadEvent(f"a shape's stream starts with SeeksOpened, not {type(event).__name__}")
        return Book(event.ruleset, event.players, event.rated, dict(event.options)), ()
    match event:
        case SeekPosted():
            if book.find(event.seek) is not None:
                raise BadEvent(f"seek {event.seek} is waiting already")
            return msgspec.structs.replace(book, waiting=(*book.waiting, posted(event))), ()
        case SeekCancelled() | SeekExpired():
            status: Status = "cancelled" if isinstance(event, SeekCancelled) else "expired"
            return ended(book, {event.seek: -1}, status, "")
        case SeeksRenewed():
            until = parse_at(event.expires)
            waiting = tuple(
                msgspec.structs.replace(seek, expires=until) if seek.id in event.seeks else seek
                for seek in book.waiting
            )
            return msgspec.structs.replace(book, waiting=waiting), ()
        case SeeksMatched():
            seats = {seek: seat for seat, seek in enumerate(event.seeks)}
            return ended(book, seats, "matched", event.game_id)
    raise BadEvent(f"{type(event).__name__} has no place in a shape's stream")


def ended(
    book: Book, seats: dict[str, int], status: Status, game_id: str
) -> tuple[Book, tuple[Closed, ...]]:
    """The book without the seeks ``seats`` names (each with its seat, -1 for none), and how
    each ended; ``BadEvent`` for one not waiting."""
    closed = []
    for seek_id, seat in seats.items():
        seek = book.find(seek_id)
        if seek is None:
            raise BadEvent(f"seek {seek_id} is not waiting")
        closed.append(Closed(seek, status, game_id, seat))
    waiting = tuple(seek for seek in book.waiting if seek.id not in seats)
    return msgspec.structs.replace(book, waiting=waiting), tuple(closed)


def fold(events: Iterable[SeekEvent]) -> Book:
    """The book a whole stream leaves (``BadEvent`` for an empty one)."""
    book: Book | None = None
    for event in events:
        book, _ = step(book, event)
    if book is None:
        raise BadEvent("a shape's stream has no events")
    return book


def parse_at(text: str) -> datetime:
    """An ISO-8601 time of the log."""
    return datetime.fromisoformat(text)

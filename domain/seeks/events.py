"""The facts a shape's stream of seeks is made of, and the list of shapes. Tags are stored
forever; evolve only by adding fields with defaults.

A shape's stream starts with ``SeeksOpened`` (the shape: rule set, players, rated, options);
then each seek is posted (``SeekPosted``), may be renewed (``SeeksRenewed``), and ends once:
cancelled by its owner, expired, or matched into a table with others (``SeeksMatched``). The
list of shapes is one stream of ``ShapeListed``, one per shape's stream, so that whatever
looks for a player's seeks knows where to look.

Times are ISO-8601 UTC texts, as the poster judged them (not the store's stamps): every
process folds the same moments from the log.
"""

from __future__ import annotations

from typing import Any

import msgspec


class SeekEvent(msgspec.Struct, frozen=True, tag_field="type", tag=True):
    """Base of every seek event; the tag is the class name."""


class SeeksOpened(SeekEvent, frozen=True):
    """A shape's stream begins: the tables it makes are of ``ruleset`` for ``players`` seats,
    ``rated`` or not, with ``options`` (every option, defaults included)."""

    ruleset: str
    players: int
    rated: bool
    options: dict[str, Any]


class SeekPosted(SeekEvent, frozen=True, omit_defaults=True):
    """A seek waits from ``at`` until ``expires`` unless matched. Its owner is a registered
    player (``handle``) or a guest (``digest``: the sha256 of the guest's secret, which
    becomes her seat's token; 256 random bits make the digest safe to keep in the log),
    seated under ``name``. ``rating``: the player's ordinal in the rule set when posted (rated
    shapes). ``bots_after`` (seconds from ``at``, with bots of ``level``): a seek still waiting
    then is seated with bots in the seats nobody took."""

    seek: str
    at: str
    expires: str
    handle: str = ""
    digest: str = ""
    name: str = ""
    rating: float = 0.0
    bots_after: float | None = None
    level: str = ""


class SeekCancelled(SeekEvent, frozen=True):
    """The owner took the seek back (or its player retired the handle)."""

    seek: str


class SeekExpired(SeekEvent, frozen=True):
    """The seek waited until it expired, unmatched."""

    seek: str


class SeeksRenewed(SeekEvent, frozen=True):
    """The seeks' owner is still there (her feed is connected): they wait until ``expires``."""

    seeks: tuple[str, ...]
    expires: str


class SeeksMatched(SeekEvent, frozen=True, omit_defaults=True):
    """The seeks sit at the table ``game_id``, seat n the n-th of ``seeks`` (arrival order);
    with ``bots`` (a level), bots of it hold the seats after them."""

    seeks: tuple[str, ...]
    game_id: str
    bots: str = ""


class ShapeListed(SeekEvent, frozen=True):
    """The list of shapes: a shape's stream ``stream`` exists."""

    stream: str


EVENT_TYPES: dict[str, type[SeekEvent]] = {
    cls.__name__: cls
    for cls in (
        SeeksOpened,
        SeekPosted,
        SeekCancelled,
        SeekExpired,
        SeeksRenewed,
        SeeksMatched,
        ShapeListed,
    )
}


def parse_event(type_: str, data: dict[str, Any]) -> SeekEvent:
    """A stored seek event (its type and data) as an event; a ValueError for another type."""
    try:
        cls = EVENT_TYPES[type_]
    except KeyError:
        raise ValueError(f"unknown seek event type {type_!r}") from None
    return msgspec.convert(data, cls)


def event_data(event: SeekEvent) -> dict[str, Any]:
    """The stored ``data`` of an event: its fields as JSON-ready builtins."""
    data: dict[str, Any] = msgspec.to_builtins(event)
    data.pop("type", None)
    return data

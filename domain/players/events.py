"""The facts a player's stream and an app's stream are made of. Tags are stored forever;
evolve only by adding fields with defaults.

A player's stream: ``PlayerRegistered``, then ``KeyIssued`` (one per key: only the latest
is valid), and at most one ``HandleRetired`` (nothing follows it). An app's stream:
``AppRegistered``, ``KeyIssued`` and at most one ``AppRevoked``. A key's digest is the
sha256 of its secret (256 random bits): it tells nothing of the key, so it may be exported."""

from __future__ import annotations

from typing import Any

import msgspec


class IdentityEvent(msgspec.Struct, frozen=True, tag_field="type", tag=True):
    """Base of every player and app event; the tag is the class name."""


class PlayerRegistered(IdentityEvent, frozen=True):
    """A handle registered, as its player typed it (NFC, trimmed); ``app`` is the app whose
    namespace it is in (``<app>:<handle>``), "" when the player registered it."""

    handle: str
    app: str


class KeyIssued(IdentityEvent, frozen=True):
    """A new key: the ``key_id``-th (1, 2, ...), of which only ``digest`` (sha256 of the
    secret, hex) is kept; every earlier key stops working."""

    key_id: int
    digest: str


class HandleRetired(IdentityEvent, frozen=True):
    """The player gave the handle up: no key works any more and the handle is never
    registered again."""


class AppRegistered(IdentityEvent, frozen=True):
    """An app (a frontend with its own users) registered by the operator."""

    name: str


class AppRevoked(IdentityEvent, frozen=True):
    """The operator revoked the app: its key works no more (its players' keys still do)."""


PLAYER_EVENTS: dict[str, type[IdentityEvent]] = {
    cls.__name__: cls for cls in (PlayerRegistered, KeyIssued, HandleRetired)
}
APP_EVENTS: dict[str, type[IdentityEvent]] = {
    cls.__name__: cls for cls in (AppRegistered, KeyIssued, AppRevoked)
}


def parse_event(
    kinds: dict[str, type[IdentityEvent]], type_: str, data: dict[str, Any]
) -> IdentityEvent:
    """A stored event (its type and data) as one of ``kinds`` (``PLAYER_EVENTS`` or
    ``APP_EVENTS``); a ValueError for another type, a ``msgspec.ValidationError`` for data
    that does not fit."""
    try:
        cls = kinds[type_]
    except KeyError:
        raise ValueError(f"unknown event type {type_!r}") from None
    return msgspec.convert(data, cls)


def event_data(event: IdentityEvent) -> dict[str, Any]:
    """The stored ``data`` of an event: its fields as JSON-ready builtins."""
    data: dict[str, Any] = msgspec.to_builtins(event)
    data.pop("type", None)
    return data

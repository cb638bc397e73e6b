"""A player's and an app's state, folded from their events by pure reducers, and the
events each change makes (``registered``, ``issued``, ``retired``, ``revoked``).

Errors: ``IdentityError`` > ``BadEvent`` (an event that cannot follow the state: a verified
record has none)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TypeVar

import msgspec

from domain.players.events import (
    AppRegistered,
    AppRevoked,
    HandleRetired,
    IdentityEvent,
    KeyIssued,
    PlayerRegistered,
)

DIGEST = re.compile(r"[0-9a-f]{64}")
"""A key's digest: sha256, lower-case hex."""


class IdentityError(Exception):
    """Base of the players' and apps' errors."""


class BadEvent(IdentityError):
    """An event that cannot follow the state it is applied to."""


class Keyed(msgspec.Struct, frozen=True):
    """What a holder of keys has: its latest key (``key_id`` 0: none yet) and whether it
    is closed (a retired handle, a revoked app), when no key works."""

    key_id: int = 0
    digest: str = ""
    closed: bool = False

    @property
    def keyed(self) -> bool:
        """Whether a key works: one was issued and the holder is not closed."""
        return self.key_id > 0 and not self.closed


class PlayerState(Keyed, frozen=True):
    """A registered player: the handle as registered, the app whose namespace it is in
    ("" for none), its latest key; ``closed`` once the handle is retired."""

    handle: str = ""
    app: str = ""

    @property
    def retired(self) -> bool:
        return self.closed


class AppState(Keyed, frozen=True):
    """A registered app: its name and latest key; ``closed`` once revoked."""

    name: str = ""

    @property
    def revoked(self) -> bool:
        return self.closed


def apply_player(state: PlayerState | None, event: IdentityEvent) -> PlayerState:
    """The player after ``event``; ``BadEvent`` when it cannot follow."""
    if state is None:
        if not isinstance(event, PlayerRegistered):
            raise BadEvent(f"a player's stream starts with PlayerRegistered, not {kind(event)}")
        return PlayerState(handle=event.handle, app=event.app)
    return after_key_event(state, event, HandleRetired, "the handle is retired")


def apply_app(state: AppState | None, event: IdentityEvent) -> AppState:
    """The app after ``event``; ``BadEvent`` when it cannot follow."""
    if state is None:
        if not isinstance(event, AppRegistered):
            raise BadEvent(f"an app's stream starts with AppRegistered, not {kind(event)}")
        return AppState(name=event.name)
    return after_key_event(state, event, AppRevoked, "the app is revoked")


K = TypeVar("K", PlayerState, AppState)


def after_key_event(state: K, event: IdentityEvent, closing: type[IdentityEvent], closed: str) -> K:
    """A key holder after a ``KeyIssued`` or its ``closing`` event."""
    if state.closed:
        raise BadEvent(f"{kind(event)} after the end: {closed}")
    if isinstance(event, KeyIssued):
        if event.key_id != state.key_id + 1:
            raise BadEvent(f"key {event.key_id} follows key {state.key_id}: keys count 1, 2, ...")
        if not DIGEST.fullmatch(event.digest):
            raise BadEvent(f"key {event.key_id}'s digest is not 64 lower-case hex digits")
        return msgspec.structs.replace(state, key_id=event.key_id, digest=event.digest)
    if isinstance(event, closing):
        return msgspec.structs.replace(state, closed=True)
    raise BadEvent(f"{kind(event)} cannot follow the registration")


def fold_player(events: Iterable[IdentityEvent]) -> PlayerState | None:
    """The player its events leave (None: no events)."""
    state: PlayerState | None = None
    for event in events:
        state = apply_player(state, event)
    return state


def fold_app(events: Iterable[IdentityEvent]) -> AppState | None:
    """The app its events leave (None: no events)."""
    state: AppState | None = None
    for event in events:
        state = apply_app(state, event)
    return state


def issued(state: Keyed, digest: str) -> KeyIssued:
    """The event of a new key with ``digest`` for a holder whose keys still work."""
    if state.closed:
        raise BadEvent("no key is issued after the end")
    return KeyIssued(state.key_id + 1, digest)


def kind(event: IdentityEvent) -> str:
    """An event's type, as stored."""
    return type(event).__name__

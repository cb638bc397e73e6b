"""Secrets a game is made with: bearer tokens (256-bit random, stored only as sha256 hashes,
compared in constant time) and the chance seed."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import NamedTuple

import msgspec

from domain.model import Viewer
from eventstore import Appending


def new_seed() -> str:
    """A fresh secret seed (256 bits, hex)."""
    return secrets.token_hex(32)


def new_token() -> str:
    """A fresh 256-bit token."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What is stored of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def identify(token: str, referee_hash: str, seat_hashes: list[str]) -> Viewer:
    """The role a token grants in one game, or None; every hash is compared."""
    presented = token_hash(token)
    role: Viewer = None
    if hmac.compare_digest(presented, referee_hash):
        role = "referee"
    for seat, stored in enumerate(seat_hashes):
        if hmac.compare_digest(presented, stored):
            role = seat
    return role


def scoped_key(key: str, token: str, route: str) -> str:
    """An Idempotency-Key as stored: scoped to the caller's token and the route, so two
    callers (or two routes) using the same key never meet."""
    return hashlib.sha256(f"{token_hash(token)}\n{route}\n{key}".encode()).hexdigest()


def fingerprint(body: bytes) -> str:
    """The fingerprint of a request's body (its decoded command, canonically encoded)."""
    return hashlib.sha256(body).hexdigest()


class Keyed(NamedTuple):
    """A creating write's Idempotency-Key as stored (``scoped_key``: scoped to the caller and
    the route) with the fingerprint of its decoded command."""

    scoped: str
    fingerprint: str


def keyed(key: str | None, scope: str, route: str, command: object) -> Keyed | None:
    """A creating write's key as stored with its command's fingerprint; None without a key."""
    if key is None:
        return None
    body = msgspec.json.encode(command)
    return Keyed(scoped_key(key, scope, route), fingerprint(body))


def carrying(append: Appending, key: Keyed | None) -> Appending:
    """``append`` carrying the Idempotency-Key ``key`` (as stored, with its command's
    fingerprint), so the store replays its first result; ``append`` itself without one."""
    if key is None:
        return append
    return msgspec.structs.replace(append, idempotency_key=key.scoped, fingerprint=key.fingerprint)


def keyed_id(scoped: str, label: str = "") -> str:
    """The id of the stream a keyed creation makes (32 hex digits, as a random id): the same
    key of the same caller on the same route always names the same stream, whatever process
    serves it, so the store finds the first write's key there. ``label`` tells apart the
    streams of one creation (the tables of a batch)."""
    return hashlib.sha256(f"tabula stream\n{label}\n{scoped}".encode()).hexdigest()[:32]


PROCESS_KEY = secrets.token_bytes(32)
"""The process's random key, for secrets derived with no ``cursor_key`` set."""


class Minter:
    """The secrets a keyed creation gives out (tokens, a player's key), derived from its
    scoped key with the service's key: HMAC-SHA256 under a key made from ``text`` (the
    ``cursor_key`` setting; empty: the process's random ``PROCESS_KEY``), so a replay of the
    creation gives the same secrets again, while only their hashes are stored."""

    def __init__(self, text: str = "") -> None:
        if text:
            self.secret = hashlib.sha256(b"tabula keyed secrets\x00" + text.encode()).digest()
        else:
            self.secret = PROCESS_KEY

    def token(self, scoped: str, label: str) -> str:
        """The 256-bit token (in ``new_token``'s form) a keyed creation gives ``label``."""
        mac = hmac.new(self.secret, f"{label}\n{scoped}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

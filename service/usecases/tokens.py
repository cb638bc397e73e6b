"""Secrets a game is made with: bearer tokens (256-bit random, stored only as sha256 hashes,
compared in constant time) and the chance seed."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from domain.model import Viewer


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

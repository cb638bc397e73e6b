"""Bearer tokens: 256-bit random, stored only as sha256 hashes, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from domain.model import Viewer


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

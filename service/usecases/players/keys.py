"""Players' and apps' keys: ``tabula_pk_<player id>_<secret>`` and
``tabula_ak_<app name>_<secret>``, the secret 256 random bits (``secrets.token_urlsafe``).
Only the secret's sha256 (its digest) is stored, and a presented key is compared with it
in constant time. The prefix tells a key from a game's or a tournament's token."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import NamedTuple

PLAYER_KEY, APP_KEY = "tabula_pk_", "tabula_ak_"
NO_DIGEST = "0" * 64  # compared with when there is nothing to compare with


class Key(NamedTuple):
    """A key taken apart: whose it is (a player's id, an app's name) and its secret."""

    holder: str
    secret: str


def new_secret() -> str:
    """A fresh secret: 256 random bits."""
    return secrets.token_urlsafe(32)


def digest(secret: str) -> str:
    """What is stored of a key: the sha256 of its secret, hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


def player_key(player_id: str, secret: str) -> str:
    """A player's key."""
    return f"{PLAYER_KEY}{player_id}_{secret}"


def app_key(name: str, secret: str) -> str:
    """An app's key."""
    return f"{APP_KEY}{name}_{secret}"


def is_key(token: str) -> bool:
    """Whether a bearer is a player's or an app's key (else a game's or tournament's token)."""
    return token.startswith((PLAYER_KEY, APP_KEY))


def parsed(key: str, prefix: str) -> Key | None:
    """A key of the kind ``prefix`` says, taken apart (None: not one)."""
    if not key.startswith(prefix):
        return None
    holder, sep, secret = key.removeprefix(prefix).partition("_")
    return Key(holder, secret) if sep and holder and secret else None


def matches(secret: str, stored: str) -> bool:
    """Whether ``secret`` is the key whose digest is ``stored``, compared in constant time."""
    return hmac.compare_digest(digest(secret), stored or NO_DIGEST)

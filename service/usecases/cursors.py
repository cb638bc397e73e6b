"""Opaque page cursors: a position in a listing's order (its sort key), sealed so that a
client can neither read nor forge it, and passes it back unread; a page starts right after
that position.

A cursor is URL-safe base64 of a 16-byte tag and the JSON of the key XORed with a keystream
(HMAC-SHA256 of the tag in counter mode); the tag is the HMAC of the JSON, checked when the
cursor comes back (a synthetic-IV construction: the same position always gives the same
cursor). The key is the ``cursor_key`` setting (``TABULA_CURSOR_KEY``), or a random one for
the process: processes that serve one address must share it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Any, TypeVar

import msgspec

from service.core.refusal import refuse

Key = TypeVar("Key", bound=tuple[Any, ...])
TAG = 16
_secret = [secrets.token_bytes(32)]


def use_key(text: str) -> None:
    """Seal cursors with a key derived from ``text`` (empty: keep the process's random one)."""
    if text:
        _secret[0] = hashlib.sha256(b"tabula cursors\x00" + text.encode()).digest()


def _mac(*parts: bytes) -> bytes:
    return hmac.new(_secret[0], b"".join(parts), hashlib.sha256).digest()


def _xor(data: bytes, tag: bytes) -> bytes:
    stream = b"".join(
        _mac(b"stream", tag, i.to_bytes(4, "big")) for i in range(len(data) // 32 + 1)
    )
    return bytes(a ^ b for a, b in zip(data, stream, strict=False))


def make(*key: Any) -> str:
    """The cursor of a position: the sort key of the last item of a page."""
    plain = msgspec.json.encode(key)
    tag = _mac(b"tag", plain)[:TAG]
    return base64.urlsafe_b64encode(tag + _xor(plain, tag)).decode().rstrip("=")


def read(cursor: str | None, key: type[Key]) -> Key | None:
    """The position a cursor names, as ``key`` (a tuple type); one this server did not make
    (or with a NUL character in a string, which no listed value has) is 400."""
    if cursor is None:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        tag, plain = raw[:TAG], _xor(raw[TAG:], raw[:TAG])
        if len(tag) < TAG or not hmac.compare_digest(tag, _mac(b"tag", plain)[:TAG]):
            raise ValueError("not sealed here")
        position: Key = msgspec.json.decode(plain, type=key)
        if any(isinstance(part, str) and "\x00" in part for part in position):
            raise ValueError("a NUL character")
    except (ValueError, msgspec.DecodeError):
        raise refuse(
            "validation-failed",
            "`cursor`: not a cursor this server gave (take it from a page's `next`)",
            parameter="cursor",
        ) from None
    return position

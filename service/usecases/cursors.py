"""Opaque page cursors: a position in a listing's order (its sort key), sealed so that a
client can neither read nor forge it, and passes it back unread; a page starts right after
that position.

A cursor is URL-safe base64 of a 16-byte tag and the JSON of the key XORed with a keystream
(HMAC-SHA256 of the tag in counter mode); the tag is the HMAC of the JSON, checked when the
cursor comes back (a synthetic-IV construction: the same position always gives the same
cursor). The key is the ``cursor_key`` setting (``TABULA_CURSOR_KEY``), or a random one for
the process: processes that serve one address must share it. The composition root makes the
``Cursors`` and passes it to what lists."""

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
PROCESS_KEY = secrets.token_bytes(32)
"""The process's random key, for cursors sealed with no ``cursor_key``."""


class Cursors:
    """Cursors sealed with one key: the one derived from ``text`` (the ``cursor_key``
    setting; empty: the process's random one, ``PROCESS_KEY``). The composition root,
    ``service.app``, makes it and gives it to every listing."""

    def __init__(self, text: str = "") -> None:
        if text:
            self.secret = hashlib.sha256(b"tabula cursors\x00" + text.encode()).digest()
        else:
            self.secret = PROCESS_KEY

    def _mac(self, *parts: bytes) -> bytes:
        return hmac.new(self.secret, b"".join(parts), hashlib.sha256).digest()

    def _xor(self, data: bytes, tag: bytes) -> bytes:
        stream = b"".join(
            self._mac(b"stream", tag, i.to_bytes(4, "big")) for i in range(len(data) // 32 + 1)
        )
        return bytes(a ^ b for a, b in zip(data, stream, strict=False))

    def make(self, *key: Any) -> str:
        """The cursor of a position: the sort key of the last item of a page."""
        plain = msgspec.json.encode(key)
        tag = self._mac(b"tag", plain)[:TAG]
        return base64.urlsafe_b64encode(tag + self._xor(plain, tag)).decode().rstrip("=")

    def read(self, cursor: str | None, key: type[Key]) -> Key | None:
        """The position a cursor names, as ``key`` (a tuple type); one this server did not
        make (or with a NUL character in a string, which no listed value has) is 400."""
        if cursor is None:
            return None
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            tag, plain = raw[:TAG], self._xor(raw[TAG:], raw[:TAG])
            if len(tag) < TAG or not hmac.compare_digest(tag, self._mac(b"tag", plain)[:TAG]):
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

"""Opaque page cursors: a position in a listing's order (its sort key), as URL-safe base64
of JSON, so a client passes it back unread and a page starts right after that position."""

from __future__ import annotations

import base64
from typing import Any, TypeVar

import msgspec

from service.core.refusal import refuse

Key = TypeVar("Key", bound=tuple[Any, ...])


def make(*key: Any) -> str:
    """The cursor of a position: the sort key of the last item of a page."""
    return base64.urlsafe_b64encode(msgspec.json.encode(key)).decode().rstrip("=")


def read(cursor: str | None, key: type[Key]) -> Key | None:
    """The position a cursor names, as ``key`` (a tuple type); one this server did not make
    (or with a NUL character in a string, which no listed value has) is 400."""
    if cursor is None:
        return None
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        position: Key = msgspec.json.decode(text, type=key)
        if any(isinstance(part, str) and "\x00" in part for part in position):
            raise ValueError("a NUL character")
    except (ValueError, msgspec.DecodeError):
        raise refuse(
            "validation-failed",
            "`cursor`: not a cursor this server gave (take it from a page's `next`)",
            parameter="cursor",
        ) from None
    return position

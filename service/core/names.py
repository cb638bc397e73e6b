"""Players' names as the service keeps them: Unicode NFC, without leading or trailing spaces,
with no format character (a zero-width space, a right-to-left override: each would show one
name as another), and distinct regardless of case where they must tell people apart (the
players of a tournament; a game's seats may repeat a name)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from service.core.fields import Path, bad_field


def normal(name: str, path: Path) -> str:
    """``name`` in NFC and trimmed; a refusal naming its first format character."""
    kept = unicodedata.normalize("NFC", name).strip()
    for char in kept:
        if unicodedata.category(char) == "Cf":
            what = unicodedata.name(char, "a format character")
            raise bad_field(
                path,
                f"holds U+{ord(char):04X} ({what}), a format character: it would show one "
                "name as another",
            )
    return kept


def canonical(name: str) -> str:
    """A name as two that show alike compare: NFKC, case folded."""
    return unicodedata.normalize("NFKC", name).casefold()


def distinct(named: Iterable[tuple[Path, str]], what: str) -> None:
    """Refuse a name (with where it is) that equals an earlier one regardless of case
    (``what``: what the name is, "a seat")."""
    seen: dict[str, str] = {}
    for path, name in named:
        key = name.casefold()
        if key in seen:
            raise bad_field(
                path, f"`{name}` is {what} twice (as `{seen[key]}`; case does not count)"
            )
        seen[key] = name

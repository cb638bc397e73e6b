"""The rules a handle and an app's name follow, as pure functions: each refusal is a
``BadHandle`` saying why.

A handle is kept as registered (NFC, trimmed) and is unique by its canonical form (NFKC and
case folding, ``canonical``): "Ann", "ANN" and "ann" in fullwidth letters are one handle. It has
2 to 32 characters: letters, digits 0-9, ``_``, ``-`` and ``.``; its letters are of one
script (Japanese may mix kana with kanji, Korean hangul with hanja), no format, control or
space character, and it is no reserved word. A Cyrillic or Greek handle whose every letter
looks like a Latin one ("ace" or "BOP" in Cyrillic letters) is refused too: it would pass for
a Latin handle. A colon appears only in an app's namespaced handle ``<app>:<handle>``, which
only that app registers.

In an app's namespace the handle may be as short as one character (an app's own user id).
An app's name is 2 to 32 lower-case ASCII letters, digits and ``-``, starting with a letter,
and no reserved word: it is the namespace of its players' handles and a part of its key.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

MIN_LENGTH, MAX_LENGTH = 2, 32
RESERVED = frozenset(
    {
        "admin", "referee", "server", "bot", "bots", "tabula", "me", "system", "guest", "root",
        "support", "anonymous", "player", "players", "api", "null",
    }
)  # fmt: skip
PUNCTUATION = frozenset("_-.")
DIGITS = frozenset("0123456789")
NAMESPACE = ":"
APP_NAME = re.compile(r"[a-z][a-z0-9-]{1,31}")
PLAYER_PREFIX, APP_PREFIX = "player-", "app-"
ID_LENGTH = 24  # hex digits of a player's id: 96 bits of the canonical handle's sha256
MIXABLE = (frozenset({"han", "hiragana", "katakana"}), frozenset({"han", "hangul"}))
"""Scripts written together: Japanese, Korean."""
LATIN_LOOKALIKES = frozenset(
    "аеорсухіјѕԁԛԝһӏүАВЕКМНОРСТУХІЈЅҮԚԜҺӀ"  # Cyrillic
    "αικνορυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"  # Greek
)
"""Cyrillic and Greek letters drawn like a Latin letter."""


class BadHandle(ValueError):
    """A handle or an app's name refused; the message says why."""


def kept(text: str) -> str:
    """A handle as it is kept: NFC, trimmed."""
    return unicodedata.normalize("NFC", text).strip()


def canonical(handle: str) -> str:
    """The form handles are unique by: NFKC and case folding, repeated until it holds (so
    that ``canonical(canonical(h)) == canonical(h)``)."""
    form = handle
    for _ in range(4):
        folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", form).casefold())
        if folded == form:
            break
        form = folded
    return form


def check_handle(text: str, app: str = "") -> str:
    """The handle ``text`` registers as (``<app>:<handle>`` in an app's namespace), or
    ``BadHandle`` saying which rule it breaks."""
    handle = kept(text)
    if NAMESPACE in handle:
        raise BadHandle(
            "holds a colon: only an app's namespaced handle (`<app>:<handle>`) has one, and "
            "only that app's key registers it"
        )
    least = 1 if app else MIN_LENGTH  # an app's own user ids may be short ("ludoclub:7")
    if not least <= len(handle) <= MAX_LENGTH:
        count = f"{len(handle)} character{'' if len(handle) == 1 else 's'}"
        raise BadHandle(f"has {count}: a handle has {least} to {MAX_LENGTH}")
    for char in handle:
        check_character(char)
    check_marks(handle)
    check_scripts(handle)
    if canonical(handle) in RESERVED:
        raise BadHandle(f"`{canonical(handle)}` is a reserved word")
    return f"{app}{NAMESPACE}{handle}" if app else handle


def check_character(char: str) -> None:
    """Refuse a character a handle may not hold, naming it."""
    category = unicodedata.category(char)
    what = f"U+{ord(char):04X} ({unicodedata.name(char, 'unnamed')})"
    if category == "Cf":
        raise BadHandle(f"holds {what}, a format character: it would show one name as another")
    if category[0] in "CZ":
        raise BadHandle(f"holds {what}: no space, control or unassigned character")
    for part in canonical(char):
        part_category = unicodedata.category(part)
        if part_category[0] not in "LM" and part not in DIGITS and part not in PUNCTUATION:
            raise BadHandle(
                f"holds {what}: a handle has letters, digits 0-9, `_`, `-` and `.` only"
            )


def check_marks(handle: str) -> None:
    """Refuse a combining mark that follows no letter."""
    before = ""
    for char in canonical(handle):
        if unicodedata.category(char)[0] == "M" and not before.isalpha():
            raise BadHandle(f"has a combining mark (U+{ord(char):04X}) on no letter")
        if unicodedata.category(char)[0] != "M":
            before = char


def check_scripts(handle: str) -> None:
    """Refuse letters of several scripts, and a Cyrillic or Greek handle drawn all in Latin
    look-alikes."""
    scripts: dict[str, str] = {}
    for char in canonical(handle):
        if unicodedata.category(char)[0] == "L":
            scripts.setdefault(script_of(char), char)
    if len(scripts) > 1 and not any(scripts.keys() <= mixable for mixable in MIXABLE):
        shown = ", ".join(f"`{char}` is {name.title()}" for name, char in sorted(scripts.items()))
        raise BadHandle(f"mixes scripts ({shown}): its letters are of one script")
    letters = [char for char in handle if char.isalpha()]
    if set(scripts) & {"cyrillic", "greek"} and all(c in LATIN_LOOKALIKES for c in letters):
        raise BadHandle(
            "every letter of it is drawn like a Latin letter: it would pass for a Latin handle"
        )


def script_of(letter: str) -> str:
    """The script of a letter, from its Unicode name (``LATIN SMALL LETTER A``: latin);
    kanji are ``han``."""
    first = unicodedata.name(letter, "unknown").split(" ")[0].lower()
    if first == "cjk":
        return "han"
    if first == "katakana-hiragana":
        return "katakana"
    return first


def check_app_name(name: str) -> str:
    """``name`` as an app's name, or ``BadHandle`` saying why not."""
    if not APP_NAME.fullmatch(name):
        raise BadHandle(
            f"`{name}` is no app name: 2 to 32 lower-case letters a-z, digits and `-`, "
            "starting with a letter"
        )
    if name in RESERVED:
        raise BadHandle(f"`{name}` is a reserved word")
    return name


def player_id(handle: str) -> str:
    """A player's id: the first 24 hex digits of the sha256 of its canonical handle."""
    return hashlib.sha256(canonical(handle).encode()).hexdigest()[:ID_LENGTH]


def player_stream(handle: str) -> str:
    """The id of a player's stream (one per canonical handle: a second registration of it
    meets the first)."""
    return PLAYER_PREFIX + player_id(handle)


def app_stream(name: str) -> str:
    """The id of an app's stream."""
    return APP_PREFIX + name


def namespace_of(handle: str) -> str:
    """The app whose namespace a handle is in ("" for none)."""
    app, sep, _ = handle.partition(NAMESPACE)
    return app if sep else ""

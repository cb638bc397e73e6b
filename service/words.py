"""The pages' catalogues read by the service, for what it draws itself (the SVG board): the
same files as the pages' (``service/static/i18n/<lang>.json``), the same small subset of ICU
MessageFormat as ``service/static/i18n.js`` (``{name}``, ``{n, plural, =N {..} one {#..}
other {..}}``, ``{x, select, a {..} other {..}}``, nested), and the language chosen from a
``lang`` parameter, else ``Accept-Language``, else English."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

CATALOGUES = Path(__file__).parent / "static" / "i18n"
LANGUAGES = ("en", "es", "nl", "da", "de", "fr")
"""The languages there is a catalogue of, English first (the fallback)."""

Say = Callable[..., str]
"""A message by key with its arguments filled in: ``say("svg.caption", version=3)``."""


@cache
def catalogue(lang: str) -> dict[str, str]:
    """The messages of ``lang`` (one of ``LANGUAGES``)."""
    loaded: dict[str, str] = json.loads((CATALOGUES / f"{lang}.json").read_text("utf-8"))
    return loaded


def choose(lang: str | None, accept_language: str | None) -> str:
    """The language to use: ``lang`` if there is a catalogue of it, else the most wanted of
    ``Accept-Language`` there is one of, else English."""
    if lang and lang.lower() in LANGUAGES:
        return lang.lower()
    wanted: list[tuple[float, int, str]] = []
    for index, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        wanted.append((-weight, index, tag.strip().lower().split("-")[0]))
    for weight, _, primary in sorted(wanted):
        if weight < 0 and primary in LANGUAGES:
            return primary
    return "en"


def sayer(lang: str) -> Say:
    """A function giving the message of a key in ``lang`` (English where it has none)."""
    messages, english = catalogue(lang), catalogue("en")

    def say(key: str, **params: object) -> str:
        return render(messages.get(key, english[key]), params, lang)

    return say


def plural_case(lang: str, number: float) -> str:
    """The CLDR plural category of a whole ``number`` in ``lang`` (French counts 0 as one)."""
    if lang == "fr":
        return "one" if number in (0, 1) else "other"
    return "one" if number == 1 else "other"


def closing(text: str, start: int) -> int:
    """The index of the ``}`` closing the ``{`` at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError(f"unbalanced braces in message: {text}")


def cases(text: str) -> dict[str, str]:
    """The ``key {message}`` cases of a plural or select argument."""
    found: dict[str, str] = {}
    i = 0
    while (start := text.find("{", i)) >= 0:
        end = closing(text, start)
        found[text[i:start].strip()] = text[start + 1 : end]
        i = end + 1
    return found


def argument(body: str, params: Mapping[str, object], lang: str, count: str | None) -> str:
    """One ``{...}`` of a message, filled in."""
    name, *rest = body.split(",", 2)
    key = name.strip()
    if not rest:
        if key == "#" and count is not None:
            return count
        return str(params[key]) if key in params else "{" + key + "}"
    kind, options = rest[0].strip(), cases(rest[1] if len(rest) > 1 else "")
    value = params.get(key)
    if kind == "plural":
        number = float(str(value))
        exact = options.get(f"={number:g}")
        chosen = exact if exact is not None else options.get(plural_case(lang, number))
        return render(chosen or options.get("other", ""), params, lang, f"{number:g}")
    if kind == "select":
        return render(options.get(str(value), options.get("other", "")), params, lang, count)
    raise ValueError(f"unknown argument type {kind}")


def render(
    message: str, params: Mapping[str, object], lang: str = "en", count: str | None = None
) -> str:
    """``message`` with its arguments filled from ``params`` in ``lang``'s plural rules."""
    out: list[str] = []
    i = 0
    while i < len(message):
        char = message[i]
        if char == "{":
            end = closing(message, i)
            out.append(argument(message[i + 1 : end], params, lang, count))
            i = end + 1
        else:
            out.append(count if char == "#" and count is not None else char)
            i += 1
    return "".join(out)

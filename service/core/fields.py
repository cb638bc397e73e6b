"""Refusals that name the field: where in a request body the bad value is, for people
(``seats[0].name``, in the detail) and for programs (``pointer``, a JSON Pointer, RFC 6901:
``/seats/0/name``), with the values allowed (``allowed``) where the field takes a fixed set
(a ``Literal`` or an ``Enum``).

``invalid(error, target)`` turns msgspec's validation error of a body decoded as ``target``
into such a refusal; ``bad_field(path, why)`` is the same refusal for a check of our own.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from typing import Any

import msgspec
from msgspec import inspect

from service.core.refusal import Refusal, refuse

Path = tuple[str | int, ...]
"""Where a value is in a body: field names and list indexes (``...`` for a dict's key)."""

ANY_KEY = "..."
AT = re.compile(r"^(?P<message>.*) - at `\$(?P<path>[^`]*)`$", re.DOTALL)
STEP = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")
MISSING = re.compile(r"^Object missing required field `(?P<field>[^`]*)`$")
UNKNOWN = re.compile(r"^Object contains unknown field `(?P<field>.*)`$", re.DOTALL)
ENUM = re.compile(r"^Invalid enum value (?P<value>.*)$", re.DOTALL)
REGEX = re.compile(r"^Expected `str` matching regex (?P<pattern>.*)$", re.DOTALL)

PRINTABLE = r"^[^\x00-\x1f\x7f-\x9f]*(?![\s\S])"
"""A text without control characters (C0, DEL, C1): a name, which one would make the
board's SVG ill-formed XML. It ends with a lookahead for no character at all rather than
``$``, which in Python also matches before a last newline; Python and JSON Schema (ECMA)
read it alike."""
ON_TIMEOUT = r"^(pass|random_move|forfeit|bot:[a-z0-9_-]+)$"
"""A clock's ``on_timeout``: a consequence, or ``bot:<level>`` (the seat goes to that bot)."""
ON_ABSENCE = r"^(pass|forfeit|bot:[a-z0-9_-]+)$"
"""An absence rule's ``then``: a consequence, or ``bot:<level>`` (the seat goes to that bot)."""
PATTERNS = {
    repr(PRINTABLE): "a control character (U+0000 to U+001F, U+007F to U+009F) is not allowed",
    repr(ON_TIMEOUT): "not one of `pass`, `random_move`, `forfeit` or `bot:<level>` (GET /bots)",
    repr(ON_ABSENCE): "not one of `pass`, `forfeit` or `bot:<level>` (GET /bots)",
}
"""What a string that does not match a pattern of ours lacks, in words (msgspec gives the
pattern's repr)."""


def written(path: Path) -> str:
    """A path as people write it: ``seats[0].name``."""
    text = "".join(
        f"[{step}]" if isinstance(step, int) or step == ANY_KEY else f".{step}" for step in path
    )
    return text.removeprefix(".")


def pointer(path: Path) -> str:
    """A path as a JSON Pointer (``/seats/0/name``; ``""`` is the whole body); it stops at a
    dict's key that msgspec does not name."""
    steps = list(path)
    if ANY_KEY in steps:
        steps = steps[: steps.index(ANY_KEY)]
    return "".join("/" + str(step).replace("~", "~0").replace("/", "~1") for step in steps)


def bad_field(
    path: Path, why: str, slug: str = "validation-failed", allowed: Sequence[Any] | None = None
) -> Refusal:
    """The refusal of the value at ``path``: the detail starts with the path, the extra members
    are its ``pointer`` and, when given, the ``allowed`` values."""
    where = f"`{written(path)}`" if path else "the body"
    extra: dict[str, Any] = {"pointer": pointer(path)}
    if allowed is not None:
        extra["allowed"] = list(allowed)
    return refuse(slug, f"{where}: {why}", **extra)


def field_range(count: int, asked: int) -> str:
    """Why a seat number is out of range: the wire's ``seat`` counts from 0, a person from 1
    (docs/reference/problems.md, "Seats in details")."""
    return f"a `seat` is 0 to {count - 1} here (seats 1 to {count}), not {asked}"


def invalid(
    error: msgspec.ValidationError, target: Any, root: Path = (), slug: str = "validation-failed"
) -> Refusal:
    """The refusal of a body (or a part of one at ``root``) that msgspec could not decode as
    ``target``: its path, what was wrong, and the allowed values of a ``Literal`` or ``Enum``."""
    message, path = split(str(error))
    if found := MISSING.match(message):
        path, why = (*path, found["field"]), "missing (a required field)"
    elif found := UNKNOWN.match(message):
        known = ", ".join(f"`{name}`" for name in field_names(target, path))
        path, why = (*path, found["field"]), f"no such field (known: {known})"
    else:
        why = message
    allowed = allowed_values(target, path)
    return bad_field((*root, *path), explained(why, allowed), slug, allowed)


def explained(message: str, allowed: Sequence[Any] | None) -> str:
    """msgspec's (or Litestar's) message as the rest of a detail: lower case, an invalid enum
    value with the values allowed (``'dice' is not one of `server`, `external```), a string
    that does not match one of our patterns with what is wrong in words."""
    if allowed is not None and (found := ENUM.match(message)):
        return f"{found['value']} is not one of " + ", ".join(f"`{value}`" for value in allowed)
    if (found := REGEX.match(message)) and found["pattern"] in PATTERNS:
        return PATTERNS[found["pattern"]]
    return message[:1].lower() + message[1:]


def split(text: str) -> tuple[str, Path]:
    """msgspec's message and its path: ``Expected `int` - at `$.seats[0]``` ->
    (``Expected `int```, ``("seats", 0)``)."""
    found = AT.match(text)
    if found is None:
        return text, ()
    steps: Path = tuple(
        name or (int(index) if index.isdigit() else ANY_KEY)
        for name, index in STEP.findall(found["path"])
    )
    return found["message"], steps


def allowed_values(target: Any, path: Path) -> list[Any] | None:
    """The values a field of ``target`` at ``path`` takes, if a fixed set, else None."""
    info: inspect.Type | None = inspect.type_info(target)
    for step in path:
        info = step_into(info, step) if info is not None else None
    return choices(info) if info is not None else None


def field_names(target: Any, path: Path) -> list[str]:
    """The fields of the object at ``path`` in ``target`` (none if it is not a Struct)."""
    info: inspect.Type | None = inspect.type_info(target)
    for step in path:
        info = step_into(info, step) if info is not None else None
    info = bare(info) if info is not None else None
    return [f.encode_name for f in info.fields] if isinstance(info, inspect.StructType) else []


def bare(info: inspect.Type) -> inspect.Type:
    """The type without its constraints; of an optional type, the type that is not null."""
    while isinstance(info, inspect.Metadata):
        info = info.type
    if isinstance(info, inspect.UnionType):
        others = [t for t in info.types if not isinstance(t, inspect.NoneType)]
        if len(others) == 1:
            return bare(others[0])
    return info


def step_into(info: inspect.Type, step: str | int) -> inspect.Type | None:
    """The type one step into ``info``: a Struct's field, a list's item, a dict's value."""
    info = bare(info)
    match info:
        case inspect.StructType(fields=fields) if isinstance(step, str):
            return next((f.type for f in fields if f.encode_name == step), None)
        case (
            inspect.ListType()
            | inspect.SetType()
            | inspect.FrozenSetType()
            | inspect.VarTupleType()
        ):
            return info.item_type
        case inspect.TupleType(item_types=items) if isinstance(step, int) and step < len(items):
            return items[step]
        case inspect.DictType(value_type=value):
            return value
    return None


def choices(info: inspect.Type) -> list[Any] | None:
    """The values of a ``Literal`` or an ``Enum`` (also inside an optional type)."""
    info = bare(info)
    if isinstance(info, inspect.LiteralType):
        return list(info.values)
    if isinstance(info, inspect.EnumType):
        members: type[enum.Enum] = info.cls
        return [member.value for member in members]
    return None

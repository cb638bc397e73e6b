"""Generates ``wire.py``, the client's msgspec Structs, from the server's ``openapi.json``.

``make client-models`` runs ``python clients/tabula_client/codegen.py openapi/openapi.json``:
as a file, since the package imports the module it rewrites.

Every component schema with properties becomes a frozen Struct (unknown members are
ignored when decoding), and so does an object written inline (named after its owner and
member); other components become type aliases. A ``oneOf`` with a
discriminator becomes a msgspec tagged union whose variants share a base Struct holding the
members they all have, with the tag readable as a property (``ruleset``, ``type``). Unnamed
unions (a game view is one inline in each reply) are named by their discriminator
(``UNION_NAMES``). A schema it does not understand raises: the generator never guesses.
"""

from __future__ import annotations

import json
import keyword
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

UNION_NAMES = {"ruleset": "GameView"}
"""Names of discriminated unions written inline in the document, by discriminator."""

MIXINS = {"GameViewBase": "ViewMixin"}
"""Hand-written helpers (``tabula_client.mixins``) a generated base class inherits."""

HEADER = '''\
"""The API's wire types, generated from openapi/openapi.json by ``tabula_client.codegen``.

Do not edit: run ``make client-models`` (a test fails when this file is stale).
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

import msgspec

from tabula_client.mixins import {mixins}
'''

OPTIONS = "frozen=True, kw_only=True"


@dataclass
class Union:
    """A discriminated union: its name, tag member, variants by tag, and shared members."""

    name: str
    tag_field: str
    variants: dict[str, str]
    shared: list[str] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"{self.name}Base"


def ref_name(ref: str) -> str:
    """``Move`` for ``#/components/schemas/Move``."""
    prefix = "#/components/schemas/"
    if not ref.startswith(prefix):
        raise ValueError(f"unsupported $ref {ref}")
    return ref[len(prefix) :]


def walk(node: Any) -> Iterator[dict[str, Any]]:
    """Every object in a JSON document, depth first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


class Generator:
    """Turns one OpenAPI document into Python source."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.schemas: dict[str, Any] = dict(document["components"]["schemas"])
        self.unions: dict[str, Union] = {}
        self.by_mapping: dict[tuple[str, ...], Union] = {}
        self.tagged: dict[str, tuple[Union, str]] = {}
        self.inline: dict[str, Mapping[str, Any]] = {}
        for name, schema in self.schemas.items():
            if "discriminator" in schema:
                self.add_union(schema, name)
        for node in walk(document["paths"]):
            if "discriminator" in node:
                self.add_union(node, None)
        for node in walk(self.schemas):
            if "discriminator" in node:
                self.add_union(node, None)

    def add_union(self, schema: Mapping[str, Any], name: str | None) -> Union:
        discriminator = schema["discriminator"]
        tag_field = discriminator["propertyName"]
        variants = {tag: ref_name(ref) for tag, ref in discriminator["mapping"].items()}
        key = (tag_field, *sorted(variants.items(), key=str))
        if key in self.by_mapping:
            return self.by_mapping[key]
        union = Union(name or UNION_NAMES[tag_field], tag_field, variants)
        union.shared = self.shared_members(union)
        self.unions[union.name] = self.by_mapping[key] = union
        for tag, variant in variants.items():
            if variant in self.tagged:
                raise ValueError(f"{variant} is a variant of two unions")
            self.tagged[variant] = (union, tag)
        return union

    def shared_members(self, union: Union) -> list[str]:
        """Members every variant has, with the same schema and the same required-ness."""
        variants = [self.schemas[name] for name in union.variants.values()]
        first = variants[0]
        shared = []
        for member, schema in first["properties"].items():
            required = member in first.get("required", [])
            if member != union.tag_field and all(
                other["properties"].get(member) == schema
                and (member in other.get("required", [])) == required
                for other in variants
            ):
                shared.append(member)
        return sorted(shared)

    def source(self) -> str:
        """The whole module."""
        mixins = ", ".join(sorted(MIXINS.values()))
        parts = [HEADER.format(mixins=mixins)]
        for union in self.unions.values():
            parts.append(self.base_class(union))
        aliases = []
        for name, schema in sorted(self.schemas.items()):
            if "properties" in schema:
                parts.append(self.struct(name, schema))
            elif name not in self.unions:
                aliases.append(f"{name}: TypeAlias = {self.annotation(schema, name)}\n")
        done: set[str] = set()
        while pending := [name for name in self.inline if name not in done]:
            for name in pending:  # inline objects, named after where they stand
                parts.append(self.struct(name, self.inline[name]))
                done.add(name)
        parts += aliases
        for union in self.unions.values():
            members = " | ".join(union.variants.values())
            tags = ", ".join(sorted(union.variants))
            parts.append(
                f"{union.name}: TypeAlias = {members}\n"
                f'"""Tagged by ``{union.tag_field}``: {tags}."""\n'
            )
        return "\n\n".join(parts)

    def base_class(self, union: Union) -> str:
        first = self.schemas[next(iter(union.variants.values()))]
        bases = [MIXINS[union.base]] if union.base in MIXINS else []
        bases.append("msgspec.Struct")
        lines = [
            f"class {union.base}({', '.join(bases)}, {OPTIONS}, tag_field={union.tag_field!r}):",
            f'    """What every ``{union.name}`` variant has."""',
            "",
        ]
        lines += self.members(first, union.shared, union.base)
        lines += [
            "",
            "    @property",
            f"    def {union.tag_field}(self) -> str:",
            '        """The tag telling the variants apart."""',
            "        return str(self.__struct_config__.tag)",
        ]
        return "\n".join(lines) + "\n"

    def struct(self, name: str, schema: Mapping[str, Any]) -> str:
        names = list(schema["properties"])
        if name in self.tagged:
            union, tag = self.tagged[name]
            head = f"class {name}({union.base}, {OPTIONS}, tag={tag!r}):"
            names = [n for n in names if n not in union.shared and n != union.tag_field]
        else:
            head = f"class {name}(msgspec.Struct, {OPTIONS}):"
        doc = " ".join(str(schema.get("description") or f"``{name}``.").split())
        lines = [head, f'    """{doc}"""']
        members = self.members(schema, sorted(names), name)
        if members:
            lines += ["", *members]
        return "\n".join(lines) + "\n"

    def members(self, schema: Mapping[str, Any], names: list[str], owner: str) -> list[str]:
        required = set(schema.get("required", []))
        return [self.member(n, schema["properties"][n], n in required, owner) for n in names]

    def member(self, name: str, schema: Mapping[str, Any], required: bool, owner: str) -> str:
        attribute = name + "_" if keyword.iskeyword(name) else name
        if not attribute.isidentifier():
            raise ValueError(f"member {name!r} is not a Python name")
        context = owner + "".join(part.title() for part in name.split("_"))
        annotation = self.annotation(schema, context)
        default: str | None = None
        if "default" in schema:
            default = repr(schema["default"])
        elif not required:
            default = self.empty(schema)
            if default == "None" and not annotation.endswith("| None"):
                annotation += " | None"
        elif (empty := self.empty(schema)) != "None" or annotation.endswith("| None"):
            default = empty  # always sent, but its empty value decodes what an older server omits
        if attribute != name:
            inner = f"name={name!r}" if default is None else f"default={default}, name={name!r}"
            return f"    {attribute}: {annotation} = msgspec.field({inner})"
        return f"    {attribute}: {annotation}" + ("" if default is None else f" = {default}")

    def empty(self, schema: Mapping[str, Any]) -> str:
        """The default of an optional member without one: empty for lists and maps, else
        None."""
        kind = None if {"properties", "prefixItems"} & set(schema) else schema.get("type")
        empties = {"array": "[]", "object": "{}"}
        return empties.get(kind, "None") if isinstance(kind, str) else "None"

    def annotation(self, schema: Mapping[str, Any], context: str) -> str:
        """The Python type of a schema; an inline object with properties becomes a Struct
        named ``context`` (its owner and member)."""
        if "$ref" in schema:
            return ref_name(schema["$ref"])
        if "discriminator" in schema:
            return self.add_union(schema, None).name
        if len(schema.get("allOf", ())) == 1:
            return self.annotation(schema["allOf"][0], context)
        for combinator in ("oneOf", "anyOf"):
            if combinator in schema:
                options = [self.annotation(option, context) for option in schema[combinator]]
                return union_of(options)
        if "const" in schema:
            return f"Literal[{schema['const']!r}]"
        if "enum" in schema:
            return f"Literal[{', '.join(repr(value) for value in schema['enum'])}]"
        kind = schema.get("type")
        if isinstance(kind, list):
            return union_of([self.annotation({**schema, "type": one}, context) for one in kind])
        if kind is None and not ({"allOf", "not", "if"} & set(schema)):
            return "Any"
        simple = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
        if kind in simple:
            return simple[kind]
        if kind == "null":
            return "None"
        if kind == "array" and "prefixItems" in schema:
            items = [self.annotation(item, context) for item in schema["prefixItems"]]
            return f"tuple[{', '.join(items)}]"
        if kind == "array":
            return f"list[{self.annotation(schema.get('items', {}), context + 'Item')}]"
        if kind == "object" and "properties" in schema:
            if context in self.schemas or self.inline.get(context, schema) != schema:
                raise ValueError(f"inline object {context} clashes with another schema")
            self.inline[context] = schema
            return context
        if kind == "object":
            values = schema.get("additionalProperties", {})
            inner = "Any" if values in ({}, True) else self.annotation(values, context + "Value")
            return f"dict[str, {inner}]"
        raise ValueError(f"unsupported schema {schema}")


def union_of(options: list[str]) -> str:
    """``A | B | None``: each option once, ``None`` last."""
    if "None" in options:
        options = [o for o in options if o != "None"] + ["None"]
    return " | ".join(dict.fromkeys(options))


def generate(document: Mapping[str, Any]) -> str:
    """The source of ``wire.py`` for ``document``."""
    return Generator(document).source()


def main(argv: list[str]) -> int:
    """``python -m tabula_client.codegen OPENAPI_JSON``: the module on standard output."""
    if len(argv) != 1:
        print("usage: python -m tabula_client.codegen openapi.json > wire.py", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as source:
        sys.stdout.write(generate(json.load(source)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""The client against openapi.json: its wire types are generated from it and not stale, and
it has a method for every operation, on both clients."""

from __future__ import annotations

import inspect
import json
import sys
import types
from pathlib import Path
from typing import Any

import msgspec
import pytest
import tabula_client.wire as wire
from tabula_client import OPERATIONS, AsyncClient, Client, Routes
from tabula_client.codegen import generate

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "openapi" / "openapi.json"
WIRE = ROOT / "clients" / "tabula_client" / "wire.py"


def operation_ids() -> set[str]:
    document = json.loads(DOCUMENT.read_text())
    return {
        operation["operationId"]
        for path in document["paths"].values()
        for operation in path.values()
        if isinstance(operation, dict) and "operationId" in operation
    }


def test_generated_wire_types_are_up_to_date() -> None:
    expected = generate(json.loads(DOCUMENT.read_text()))
    assert WIRE.read_text() == expected, (
        "clients/tabula_client/wire.py is stale: run `make client-models`"
    )


def test_every_operation_has_a_method_on_routes_and_both_clients() -> None:
    missing = operation_ids() - set(OPERATIONS)
    assert not missing, f"operations without a client method: {sorted(missing)}"
    for operation, name in OPERATIONS.items():
        for owner in (Routes, Client, AsyncClient):
            assert callable(getattr(owner, name, None)), f"{owner.__name__}.{name} ({operation})"
        method = getattr(AsyncClient, name)
        streams = name in {"follow", "stream_notes"}  # async iterators, not coroutines
        assert inspect.iscoroutinefunction(method) != streams, f"AsyncClient.{name}"


def test_the_client_names_no_operation_the_document_lacks() -> None:
    assert set(OPERATIONS) <= operation_ids()


def test_every_view_and_event_variant_is_tagged() -> None:
    views = wire.GameView.__args__  # type: ignore[attr-defined]
    events = wire.EventOut.__args__  # type: ignore[attr-defined]
    assert {v.__struct_config__.tag for v in views} >= {"race35", "sorry", "ludo", "partners"}
    assert all(v.__struct_config__.tag_field == "ruleset" for v in views)
    assert {e.__struct_config__.tag for e in events} >= {"GameCreated", "MovePlayed"}


def test_unknown_members_are_ignored() -> None:
    sent = {"version": 3, "moves": [{"id": "roll", "seat": 0, "shiny": 1}], "later": [1]}
    legal = msgspec.convert(sent, wire.LegalMoves)
    assert legal.moves[0].id == "roll"


SCHEMAS: dict[str, Any] = {
    "Tagged": {
        "type": "object",
        "properties": {"kind": {"const": "a", "type": "string"}, "n": {"type": "integer"}},
        "required": ["kind", "n"],
    },
    "Other": {
        "type": "object",
        "properties": {
            "kind": {"const": "b", "type": "string"},
            "n": {"type": "integer"},
            "from": {"type": "string", "default": ""},
            "maybe": {"oneOf": [{"type": "number"}, {"type": "null"}]},
        },
        "required": ["kind", "n"],
    },
    "Either": {
        "oneOf": [{"$ref": "#/components/schemas/Tagged"}, {"$ref": "#/components/schemas/Other"}],
        "discriminator": {
            "propertyName": "kind",
            "mapping": {
                "a": "#/components/schemas/Tagged",
                "b": "#/components/schemas/Other",
            },
        },
    },
}


def load(source: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The generated ``source`` as a module (msgspec resolves annotations in its module)."""
    module = types.ModuleType("generated_wire")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(source, module.__name__, "exec"), module.__dict__)
    return module


def test_generator_makes_a_tagged_union_with_a_shared_base(monkeypatch: pytest.MonkeyPatch) -> None:
    source = generate({"paths": {}, "components": {"schemas": SCHEMAS}})
    assert (
        "class EitherBase(msgspec.Struct, frozen=True, kw_only=True, tag_field='kind'):" in source
    )
    assert "    n: int\n" in source.split("class EitherBase")[1].split("class ")[0]
    assert "from_: str = msgspec.field(default='', name='from')" in source
    assert "maybe: float | None = None" in source
    assert "Either: TypeAlias = Tagged | Other" in source
    generated = load(source, monkeypatch)
    decoded = msgspec.json.decode(b'{"kind": "b", "n": 2, "from": "x"}', type=generated.Either)
    assert (type(decoded).__name__, decoded.kind, decoded.n, decoded.from_) == (
        "Other",
        "b",
        2,
        "x",
    )


def test_generator_names_inline_objects_and_aliases_other_components(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    schemas = {
        "Colour": {"type": "string", "enum": ["red", "blue"]},
        "Card": {
            "type": "object",
            "properties": {
                "colour": {"$ref": "#/components/schemas/Colour"},
                "rule_text": {"type": "object", "properties": {"lines": {"type": "array"}}},
                "at": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
            },
            "required": ["colour"],
        },
    }
    source = generate({"paths": {}, "components": {"schemas": schemas}})
    assert "Colour: TypeAlias = Literal['red', 'blue']" in source
    assert "rule_text: CardRuleText | None = None" in source
    assert "class CardRuleText(msgspec.Struct, frozen=True, kw_only=True):" in source
    assert "at: tuple[int, str] | None = None" in source
    generated = load(source, monkeypatch)
    card = msgspec.convert(
        {"colour": "red", "rule_text": {"lines": [1]}, "at": [3, "x"]}, generated.Card
    )
    assert (card.rule_text.lines, card.at) == ([1], (3, "x"))
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"colour": "green"}, generated.Card)


def test_generator_refuses_what_it_does_not_understand() -> None:
    schemas = {"Odd": {"type": "object", "properties": {"x": {"type": "tuple"}}}}
    with pytest.raises(ValueError, match="unsupported schema"):
        generate({"paths": {}, "components": {"schemas": schemas}})

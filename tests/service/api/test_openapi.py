"""The committed OpenAPI document matches the app (``make openapi`` rewrites it)."""

from __future__ import annotations

import json
from pathlib import Path

from domain.tournament.events import EVENT_TYPES
from service.__main__ import openapi_document

COMMITTED = Path(__file__).parents[3] / "openapi" / "openapi.json"


def test_committed_openapi_document_is_up_to_date() -> None:
    assert json.loads(COMMITTED.read_text()) == json.loads(openapi_document()), (
        "openapi/openapi.json is stale: run `make openapi` and commit it"
    )


def test_every_route_has_an_operation_id() -> None:
    document = json.loads(openapi_document())
    operations = [op for path in document["paths"].values() for op in path.values()]
    assert all(op.get("operationId") for op in operations)


def test_tournament_events_are_typed_by_their_type() -> None:
    """Each tournament event's ``data`` has its own schema, as each game event's has."""
    schemas = json.loads(openapi_document())["components"]["schemas"]
    union = schemas["TournamentEventOut"]
    assert union["discriminator"]["propertyName"] == "type"
    assert set(union["discriminator"]["mapping"]) == set(EVENT_TYPES)
    for name in EVENT_TYPES:
        variant = schemas[f"{name}Event"]
        assert variant["properties"]["type"]["const"] == name
        data = schemas[variant["properties"]["data"]["$ref"].rsplit("/", 1)[-1]]
        fields = set(EVENT_TYPES[name].__struct_fields__)
        assert set(data["properties"]) == fields, name

"""What the OpenAPI document says beyond the handlers' types: problem responses and links.

Links let generic clients (and the fuzzer's stateful tests) follow a game from its creation:
create -> read / legal moves -> move -> undo.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
from litestar._openapi.schema_generation import SchemaCreator
from litestar._openapi.schema_generation.plugins.struct import StructSchemaPlugin
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Link, OpenAPIMediaType, OpenAPIType, Operation, Reference, Schema
from litestar.openapi.spec.response import OpenAPIResponse
from litestar.typing import FieldDefinition

from service.api.problems import MEDIA_TYPE, PROBLEMS

NDJSON = "application/x-ndjson"


class Problem(msgspec.Struct, frozen=True):
    """An RFC 9457 problem; some types add fields (``current_version``, ``retry_after``...)."""

    type: str
    title: str
    status: int
    detail: str
    instance: str


def problems(*statuses: int) -> dict[int, ResponseSpec]:
    """The problem responses a route may give, one per status."""
    return {
        status: ResponseSpec(
            Problem,
            media_type=MEDIA_TYPE,
            generate_examples=False,
            description=", ".join(s for s, (code, _) in PROBLEMS.items() if code == status),
        )
        for status in statuses
    }


SAME_GAME = {"game_id": "$request.path.game_id"}
CREATED_GAME = {"game_id": "$response.body#/id"}
FROM_CREATE = {
    "getGame": CREATED_GAME,
    "getLegalMoves": CREATED_GAME,
    "listEvents": CREATED_GAME,
}
FROM_LEGAL_MOVES = {"playMove": SAME_GAME}
FROM_PLAYED = {"getGame": SAME_GAME, "getLegalMoves": SAME_GAME, "undo": SAME_GAME}
PLAY_FIRST_MOVE = {
    "move": "$response.body#/moves/0/id",
    "expected_version": "$response.body#/version",
}


def _links(
    targets: dict[str, dict[str, str]], bodies: dict[str, Any]
) -> dict[str, Link | Reference]:
    """One link per target operation, named after it."""
    return {
        name: Link(operation_id=name, parameters=dict(params), request_body=bodies.get(name))
        for name, params in targets.items()
    }


def _linked(status: str, links: dict[str, Link | Reference]) -> type[Operation]:
    """An Operation class whose ``status`` response carries ``links``."""

    @dataclass
    class LinkedOperation(Operation):
        def __post_init__(self) -> None:
            response = (self.responses or {}).get(status)
            if isinstance(response, OpenAPIResponse):
                response.links = links

    return LinkedOperation


CreatedLinks = _linked("201", _links(FROM_CREATE, {}))
LegalMovesLinks = _linked("200", _links(FROM_LEGAL_MOVES, {"playMove": PLAY_FIRST_MOVE}))
PlayedLinks = _linked("200", _links(FROM_PLAYED, {}))


class StrictStructs(StructSchemaPlugin):
    """Struct schemas that also say ``additionalProperties: false`` where msgspec forbids them.

    Litestar's own plugin leaves ``forbid_unknown_fields`` out, so generated requests with
    extra fields would look valid though the service refuses them.
    """

    def to_openapi_schema(
        self, field_definition: FieldDefinition, schema_creator: SchemaCreator
    ) -> Schema:
        schema = super().to_openapi_schema(field_definition, schema_creator)
        struct = field_definition.annotation
        if struct.__struct_config__.forbid_unknown_fields:
            schema.additional_properties = False
        return schema


@dataclass
class AlsoNdjson(Operation):
    """An operation whose 200 reply may also come as NDJSON (one JSON object a line)."""

    def __post_init__(self) -> None:
        response = (self.responses or {}).get("200")
        if isinstance(response, OpenAPIResponse) and response.content is not None:
            response.content[NDJSON] = OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))

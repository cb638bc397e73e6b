"""What the OpenAPI document says beyond the handlers' types: problem responses and links.

Links let generic clients (and the fuzzer's stateful tests) follow a game from its creation:
create -> read / legal moves -> move -> undo.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import msgspec
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import (
    Discriminator,
    Link,
    OpenAPI,
    OpenAPIMediaType,
    OpenAPIResponse,
    OpenAPIType,
    Operation,
    Reference,
    RequestBody,
    Schema,
    SecurityScheme,
)

from domain.events import EVENT_TYPES
from domain.tournament.events import EVENT_TYPES as TOURNAMENT_EVENT_TYPES
from service.api.problems import MEDIA_TYPE, PROBLEMS

NDJSON = "application/x-ndjson"


class Problem(msgspec.Struct, frozen=True, omit_defaults=True):
    """An RFC 9457 problem; some types add fields (``current_version``, ``retry_after``...).
    A refused value is named by ``pointer`` (a JSON Pointer into the body), ``parameter`` (a
    query parameter) or ``header``, with ``allowed`` values where it takes a fixed set; a 413
    names its ``limit`` and the ``setting`` that changes it."""

    type: str
    title: str
    status: int
    detail: str
    instance: str
    pointer: str | msgspec.UnsetType = msgspec.UNSET
    parameter: str | msgspec.UnsetType = msgspec.UNSET
    header: str | msgspec.UnsetType = msgspec.UNSET
    allowed: list[Any] | msgspec.UnsetType = msgspec.UNSET
    limit: int | msgspec.UnsetType = msgspec.UNSET
    setting: str | msgspec.UnsetType = msgspec.UNSET


def problems(*statuses: int) -> dict[int, ResponseSpec]:
    """The problem responses a route may give, one per status; every route that has any
    may also meet a fault of the event store (503)."""
    statuses = (*statuses, 503)
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


def finish(document: OpenAPI, strict: Iterable[type[msgspec.Struct]]) -> OpenAPI:
    """What Litestar's document does not say, added through its public model: the Structs that
    refuse unknown fields say ``additionalProperties: false`` (so generated requests with extra
    fields do not look valid), and every ``oneOf`` of tagged Structs names its discriminator
    (the rule set of a state view, the type of an event)."""
    describe_events(document)
    secure(document)
    schemas = (document.components.schemas if document.components else None) or {}
    for struct in strict:
        if struct.__name__ in schemas:
            schemas[struct.__name__].additional_properties = False
    for holder in schema_objects(document):
        tag_union(holder, schemas)
    require_what_is_sent(document, schemas)
    return document


SCHEMES = {
    "playerKey": SecurityScheme(
        type="http",
        scheme="bearer",
        bearer_format="tabula_pk_<player id>_<secret>",
        description="A registered player's key (`POST /players`, `POST /me/keys`, or minted "
        "by the player's app): acts for the seats that belong to the player, in games and on "
        "the game socket, and on the player's own routes (`/me`). A rotated key is refused at "
        "once (401 `key-refused`).",
    ),
    "appKey": SecurityScheme(
        type="http",
        scheme="bearer",
        bearer_format="tabula_ak_<app name>_<secret>",
        description="An app's key (`python -m service apps add NAME`): registers players in "
        "the app's namespace (`NAME:handle`) and mints their keys; it never acts in a game.",
    ),
    "gameToken": SecurityScheme(
        type="http",
        scheme="bearer",
        description="A game's seat token or referee token, from the reply that created the "
        "game (or from a tournament): the seat's own moves, or the referee's routes.",
    ),
    "tournamentToken": SecurityScheme(
        type="http",
        scheme="bearer",
        description="A tournament's director token or a guest player's token, from the reply "
        "that created the tournament (a registered player uses her key instead).",
    ),
}
Need = dict[str, list[str]]
"""One way to be let in: a scheme's name (no scopes)."""
OPEN: Need = {}  # no credential: the route is open to anyone
PLAYER: Need = {"playerKey": []}
APP: Need = {"appKey": []}
GAME: Need = {"gameToken": []}
TOURNAMENT: Need = {"tournamentToken": []}
SECURITY: dict[str, list[Need]] = {
    "registerPlayer": [OPEN, APP],
    "getMe": [PLAYER],
    "streamMyNotes": [PLAYER],
    "rotateKey": [PLAYER],
    "retireHandle": [PLAYER],
    "mintPlayerKey": [APP],
    "getPlayerRecord": [PLAYER, APP],
    "postChance": [GAME],
    "adjudicate": [GAME],
    "myTable": [TOURNAMENT, PLAYER],  # a guest's token or a registered player's key
    "withdrawPlayer": [TOURNAMENT, PLAYER],
    "joinTable": [OPEN, PLAYER],  # a guest joins with no credential, a player with her key
    "declineInvitation": [PLAYER],
    "startTable": [GAME],
    "cancelTable": [GAME],
    "postSeek": [OPEN, PLAYER],  # a guest seeks with no credential, a player with her key
    "getSeek": [PLAYER, GAME],  # the player's key, or the guest's secret (her seat's token)
    "cancelSeek": [PLAYER, GAME],
}
"""The routes whose credentials are not their path's (``security_of``)."""


def secure(document: OpenAPI) -> None:
    """Describe every kind of bearer (``SCHEMES``) and which each route takes: a game's
    routes a seat's or referee's token or a player's key (reads also none), a tournament's its
    tokens, the players' routes and a tournament's player routes as ``SECURITY`` says; the
    rest are open."""
    if document.components is not None:
        document.components.security_schemes = dict(SCHEMES)
    for path, item in (document.paths or {}).items():
        for method in ("get", "post", "delete"):
            operation: Operation | None = getattr(item, method)
            if operation is not None:
                operation.security = security_of(path, method, operation.operation_id or "")


def security_of(path: str, method: str, operation_id: str) -> list[Need] | None:
    """The credentials a route takes (any one of them), or None for an open route."""
    if operation_id in SECURITY:
        return SECURITY[operation_id]
    reads = [OPEN] if method == "get" else []
    if path.startswith("/games/{game_id}"):
        return [*reads, GAME, PLAYER]
    if path.startswith("/tournaments/{tournament_id}"):
        return [*reads, TOURNAMENT]
    return None


def require_what_is_sent(document: OpenAPI, schemas: dict[str, Schema]) -> None:
    """A reply's Struct sends every field it has, defaults too, unless it omits defaults; so
    the components only replies use list every property as required (a generated client then
    types ``version`` as a number, not as a number that may be missing). A component a
    request body uses too keeps msgspec's list: a client may leave a defaulted field out."""
    structs = struct_classes()
    asked = referenced(schema_roots(document, replies=False), schemas)
    for name in referenced(schema_roots(document, replies=True), schemas) - asked:
        struct, schema = structs.get(name), schemas[name]
        if struct is None or struct.__struct_config__.omit_defaults or not schema.properties:
            continue
        schema.required = sorted(schema.properties)


OURS = frozenset({"domain", "eventstore", "service"})


def struct_classes() -> dict[str, type[msgspec.Struct]]:
    """The server's Struct classes (those of our packages: a client's mirror of a reply, loaded
    in the same process, must not count) by name; a name two classes share maps to neither."""
    found: dict[str, type[msgspec.Struct] | None] = {}
    pending: list[type[msgspec.Struct]] = [msgspec.Struct]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            pending.append(sub)
            if sub.__module__.partition(".")[0] in OURS:
                found[sub.__name__] = None if sub.__name__ in found else sub
    return {name: cls for name, cls in found.items() if cls is not None}


def referenced(roots: list[Any], schemas: dict[str, Schema]) -> set[str]:
    """The names of the components reachable from ``roots``."""
    names: set[str] = set()
    pending = list(roots)
    while pending:
        node = pending.pop()
        if isinstance(node, Reference):
            name = node.ref.rsplit("/", 1)[-1]
            if name not in names and name in schemas:
                names.add(name)
                pending.append(schemas[name])
        elif isinstance(node, Schema):
            pending += parts(node)
    return names


def parts(schema: Schema) -> list[Any]:
    """The schemas and references ``schema`` holds itself (not through a reference)."""
    return [
        *(schema.properties or {}).values(),
        schema.items,
        schema.additional_properties,
        *(schema.one_of or []),
        *(schema.any_of or []),
        *(schema.all_of or []),
        *(schema.prefix_items or []),
    ]


def describe_events(document: OpenAPI) -> None:
    """``EventOut`` as a ``oneOf`` by ``type``: each event type's ``data`` is its domain event's
    fields (the wire keeps ``data`` as stored, so hashes can be checked; the document says what
    it holds)."""
    tagged_events(document, "EventOut", EVENT_TYPES)
    tagged_events(document, "TournamentEventOut", TOURNAMENT_EVENT_TYPES)


def tagged_events(document: OpenAPI, out: str, types: Mapping[str, type[msgspec.Struct]]) -> None:
    """The component ``out`` (a stored event as the API shows it) as a ``oneOf`` of ``types``
    by ``type``, each with its ``data`` schema."""
    components = document.components
    schemas = components.schemas if components is not None else None
    if schemas is None or out not in schemas:
        return
    generic = schemas.pop(out)
    found, parts = msgspec.json.schema_components(
        list(types.values()), ref_template="#/components/schemas/{name}Data"
    )
    del found
    variants: list[Schema | Reference] = []
    mapping: dict[str, str] = {}
    for name, part in parts.items():
        part["properties"].pop("type", None)
        part["required"] = [r for r in part.get("required", []) if r != "type"]
        if name in types:
            schemas[f"{name}Data"] = to_schema(part)
            schemas[f"{name}Event"] = Schema(
                type=OpenAPIType.OBJECT,
                title=f"{name}Event",
                properties={
                    **(generic.properties or {}),
                    "type": Schema(type=OpenAPIType.STRING, const=name),
                    "data": Reference(ref=f"#/components/schemas/{name}Data"),
                },
                required=generic.required,
            )
            variants.append(Reference(ref=f"#/components/schemas/{name}Event"))
            mapping[name] = f"#/components/schemas/{name}Event"
        else:
            schemas.setdefault(f"{name}Data", to_schema(part))
    schemas[out] = Schema(
        one_of=variants, discriminator=Discriminator(property_name="type", mapping=mapping)
    )


JSON_TYPES = {t.value: t for t in OpenAPIType}


def to_schema(node: Any) -> Any:
    """A JSON Schema dict (as msgspec writes it) as Litestar's OpenAPI model."""
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return Reference(ref=node["$ref"])
    kind = node.get("type")
    return Schema(
        type=JSON_TYPES.get(kind) if isinstance(kind, str) else None,
        title=node.get("title"),
        description=node.get("description"),
        properties={k: to_schema(v) for k, v in node["properties"].items()}
        if "properties" in node
        else None,
        required=node.get("required") or None,
        items=to_schema(node.get("items")),
        prefix_items=[to_schema(v) for v in node["prefixItems"]] if "prefixItems" in node else None,
        any_of=[to_schema(v) for v in node["anyOf"]] if "anyOf" in node else None,
        enum=node.get("enum"),
        additional_properties=to_schema(node["additionalProperties"])
        if "additionalProperties" in node
        else None,
        min_items=node.get("minItems"),
        max_items=node.get("maxItems"),
        default=node.get("default"),
    )


def strict_structs(*modules: ModuleType) -> list[type[msgspec.Struct]]:
    """The Structs of ``modules`` that refuse unknown fields (the request bodies)."""
    return [
        value
        for module in modules
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, msgspec.Struct)
        and value.__struct_config__.forbid_unknown_fields
    ]


def schema_roots(document: OpenAPI, *, replies: bool) -> list[Any]:
    """The schemas of every operation's replies (``replies``) or of its request body and
    parameters."""
    roots: list[Any] = []
    for path in (document.paths or {}).values():
        for operation in (path.get, path.post, path.put, path.delete, path.patch):
            if operation is None:
                continue
            if replies:
                for response in (operation.responses or {}).values():
                    if isinstance(response, OpenAPIResponse):
                        roots += [m.schema for m in (response.content or {}).values()]
            else:
                if isinstance(operation.request_body, RequestBody):
                    roots += [m.schema for m in (operation.request_body.content or {}).values()]
                roots += [getattr(p, "schema", None) for p in operation.parameters or []]
    return roots


def schema_objects(document: OpenAPI) -> Iterator[Schema]:
    """Every Schema object of the document (components, bodies, replies), nested ones too."""
    roots: list[Any] = list(((document.components and document.components.schemas) or {}).values())
    roots += schema_roots(document, replies=True) + schema_roots(document, replies=False)
    seen: set[int] = set()
    while roots:
        node = roots.pop()
        if not isinstance(node, Schema) or id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        roots += parts(node)


def tag_union(schema: Schema, schemas: dict[str, Schema]) -> None:
    """Name the discriminator of a ``oneOf`` whose members are all Structs with one tag field
    holding a constant (``ruleset``, ``type``)."""
    members = [m for m in schema.one_of or [] if isinstance(m, Reference)]
    if len(members) < 2 or len(members) != len(schema.one_of or []):
        return
    mapping: dict[str, str] = {}
    field = None
    for member in members:
        target = schemas.get(member.ref.rsplit("/", 1)[-1])
        tags = [
            (name, prop.const)
            for name, prop in ((target.properties or {}) if target else {}).items()
            if isinstance(prop, Schema) and isinstance(prop.const, str)
        ]
        if len(tags) != 1 or field not in (None, tags[0][0]):
            return
        field = tags[0][0]
        mapping[tags[0][1]] = member.ref
    schema.discriminator = Discriminator(property_name=str(field), mapping=mapping)


@dataclass
class AlsoNdjson(Operation):
    """An operation whose 200 reply may also come as NDJSON (one JSON object a line)."""

    def __post_init__(self) -> None:
        response = (self.responses or {}).get("200")
        if isinstance(response, OpenAPIResponse) and response.content is not None:
            response.content[NDJSON] = OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))

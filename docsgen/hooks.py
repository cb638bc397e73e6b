"""MkDocs hooks (``mkdocs.yml``: ``hooks``): the parts of the manual made from the code.

- ``reference/api/``: Swagger UI over the committed ``openapi/openapi.json``, with the script
  and style sheets of the ``swagger-ui-bundle-v2`` package the service itself serves them from,
  so the page works offline and from any static host.
- ``<!-- routes -->`` in a page: a table of every operation of the document (method, path,
  body, reply, statuses). The build fails when a path of the document is missing from the
  page's hand-written overview, so a new route cannot go undocumented.
- ``<!-- events -->`` in a page: each event type's ``data`` fields, from the document's
  ``<Type>Data`` schemas.
- ``<!-- socket-messages -->`` in a page: each message of the game socket and its fields, from
  ``openapi/socket.schema.json``; ``<!-- feed-messages -->`` the player's feed's.
- ``<!-- versions -->`` in a page: each rule set's current version and the earlier ones kept,
  from ``domain.registry``, each linked to its rules page's Versions section.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = ROOT / "openapi" / "openapi.json"
SOCKET_SCHEMA = ROOT / "openapi" / "socket.schema.json"
STATIC = ROOT / "service" / "static"
API_DIR = "reference/api"
METHODS = ("get", "post", "put", "patch", "delete")


def document() -> dict[str, Any]:
    """The committed OpenAPI document."""
    loaded: dict[str, Any] = json.loads(DOCUMENT.read_text())
    return loaded


def swagger_assets() -> dict[str, bytes]:
    """The reference page and its assets, by name under ``reference/api/``."""
    from swagger_ui_bundle import swagger_ui_path

    bundle = Path(str(swagger_ui_path))
    page = (STATIC / "docs.html").read_text()
    page = page.replace("/schema/assets/", "").replace("/schema/openapi.json", "openapi.json")
    files = {
        name: (bundle / name).read_bytes()
        for name in ("swagger-ui-bundle.js", "swagger-ui.css", "index.css", "favicon-32x32.png")
    }
    files["docs.js"] = (STATIC / "docs.js").read_bytes()
    files["openapi.json"] = DOCUMENT.read_bytes()
    files["index.html"] = page.encode()
    return files


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the Swagger UI page and its assets, generated at every build."""
    for name, content in swagger_assets().items():
        files.append(File.generated(config, f"{API_DIR}/{name}", content=content))
    return files


def schema_name(schema: dict[str, Any] | None) -> str:
    """A short name for a schema: its component, ``[X]`` for arrays, ``a | b`` for unions."""
    if not schema:
        return ""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    for union in ("oneOf", "anyOf"):
        if union in schema:
            return " \\| ".join(schema_name(part) for part in schema[union])
    if schema.get("type") == "array":
        return f"[{schema_name(schema.get('items'))}]"
    if "enum" in schema:
        return " \\| ".join(f"`{value}`" for value in schema["enum"])
    return str(schema.get("type", ""))


def body_schema(operation: dict[str, Any]) -> str:
    content = operation.get("requestBody", {}).get("content", {})
    return ", ".join(f"{schema_name(media.get('schema'))}" for media in content.values())


def reply_schema(operation: dict[str, Any]) -> str:
    replies = operation.get("responses", {})
    for status in sorted(replies):
        if status.startswith("2"):
            content = replies[status].get("content", {})
            names = [schema_name(media.get("schema")) or kind for kind, media in content.items()]
            return f"{status} " + ", ".join(names)
    return ""


def routes_table() -> str:
    """Every operation of the document, in its order."""
    lines = [
        "| method | path | body | success | other statuses |",
        "| --- | --- | --- | --- | --- |",
    ]
    for path, operations in document()["paths"].items():
        for method in METHODS:
            if method not in operations:
                continue
            operation = operations[method]
            others = [s for s in sorted(operation.get("responses", {})) if not s.startswith("2")]
            lines.append(
                f"| {method.upper()} | `{path}` | {body_schema(operation)} | "
                f"{reply_schema(operation)} | {', '.join(others)} |"
            )
    return "\n".join(lines)


def field_type(schema: dict[str, Any]) -> str:
    name = schema_name(schema)
    return name.replace("|", "\\|") if "\\|" not in name else name


def fields_section(title: str, schema: dict[str, Any]) -> list[str]:
    """A heading, the schema's description and a table of its fields."""
    out = [f"### {title}\n"]
    description = " ".join(str(schema.get("description", "")).split()).replace("``", "`")
    if description:
        out.append(description + "\n")
    out.append("| field | type | required | default |\n| --- | --- | --- | --- |")
    required = set(schema.get("required", []))
    for field, spec in schema.get("properties", {}).items():
        default = f"`{json.dumps(spec['default'])}`" if "default" in spec else ""
        yes = "yes" if field in required else ""
        out.append(f"| `{field}` | {field_type(spec)} | {yes} | {default} |")
    out.append("")
    return out


def events_tables() -> str:
    """One section per event type: its description and its ``data`` fields."""
    schemas = document()["components"]["schemas"]
    out: list[str] = []
    for name in sorted(schemas):
        if not name.endswith("Data") or not schemas.get(name.removesuffix("Data") + "Event"):
            continue
        out += fields_section(schemas[name].get("title", name.removesuffix("Data")), schemas[name])
    return "\n".join(out)


def socket_document() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SOCKET_SCHEMA.read_text())
    return loaded


def socket_tables(prefix: str = "", heading: str = "") -> str:
    """The client's messages, then the server's, each with its fields: the game socket's, or
    with ``prefix`` ``Feed`` the player's feed's (and a note's fields)."""
    defs = socket_document()["$defs"]
    out: list[str] = []
    for union, says in (
        (f"{prefix}ClientMessage", "the client says"),
        (f"{prefix}ServerMessage", "the server says"),
    ):
        out.append(f"## {heading}{says.capitalize() if not heading else says}\n")
        for part in defs[union].get("anyOf", defs[union].get("oneOf", [])):
            name = schema_name(part)
            kind = defs[name]["properties"]["type"]["enum"][0]
            out += fields_section(
                f"`{kind}`" + (f" ({heading.strip(': ')})" if heading else ""), defs[name]
            )
    if prefix:
        out += fields_section("A note", defs["Note"])
    return "\n".join(out)


def versions_table(page: Page) -> str:
    """Each rule set's current version and the versions games can be replayed under."""
    import sys

    sys.path.insert(0, str(ROOT))
    from domain.registry import RULESETS, versions

    lines = ["| rule set | new games get | games replay under | what each version does |"]
    lines.append("| --- | --- | --- | --- |")
    rules = "../rules" if page.file.src_uri.count("/") else "rules"
    for name in sorted(RULESETS):
        known = ", ".join(str(version) for version in versions(name))
        section = f"[{name}]({rules}/{name}.md#versions)" if len(versions(name)) > 1 else ""
        lines.append(f"| `{name}` | {RULESETS[name].VERSION} | {known} | {section} |")
    return "\n".join(lines)


def undocumented_paths(markdown: str) -> list[str]:
    """Paths of the document that the page's text never names (in backticks)."""

    def shape(path: str) -> str:
        return re.sub(r"\{[^}]*\}", "{}", path)

    named = {shape(path) for path in re.findall(r"`(?:GET |POST )?(/[^`?\s]*)", markdown)}
    return [path for path in document()["paths"] if shape(path) not in named]


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Fill the generated tables in; refuse a routes page that misses a route."""
    if "<!-- routes -->" in markdown:
        missing = undocumented_paths(markdown.split("<!-- routes -->")[0])
        if missing:
            raise PluginError(f"{page.file.src_uri} does not describe {', '.join(missing)}")
        markdown = markdown.replace("<!-- routes -->", routes_table())
    if "<!-- socket-messages -->" in markdown:
        markdown = markdown.replace("<!-- socket-messages -->", socket_tables())
    if "<!-- feed-messages -->" in markdown:
        markdown = markdown.replace("<!-- feed-messages -->", socket_tables("Feed", "The feed: "))
    if "<!-- versions -->" in markdown:
        markdown = markdown.replace("<!-- versions -->", versions_table(page))
    if "<!-- events -->" in markdown:
        markdown = markdown.replace("<!-- events -->", events_tables())
    return markdown

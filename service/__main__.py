"""``python -m service``: serve the API, or export its OpenAPI document."""

from __future__ import annotations

import argparse
import json
import sys

from service.settings import Settings


def parse(argv: list[str]) -> argparse.Namespace:
    defaults = Settings.from_env()
    parser = argparse.ArgumentParser(
        prog="python -m service",
        description="Tabula referee service. Settings also come from TABULA_HOST, TABULA_PORT, "
        "TABULA_DATABASE, TABULA_SYNCHRONOUS, TABULA_LOG_FORMAT, TABULA_LOG_LEVEL.",
    )
    parser.add_argument("--host", default=defaults.host, help="address to bind (%(default)s)")
    parser.add_argument("--port", type=int, default=defaults.port, help="port (%(default)s)")
    parser.add_argument("--database", default=defaults.database, help="SQLite file (%(default)s)")
    parser.add_argument(
        "--log-format", choices=["json", "kv"], default=defaults.log_format, help="%(default)s"
    )
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("serve", help="serve the API (the default)")
    commands.add_parser("openapi", help="print the OpenAPI document as JSON")
    args = parser.parse_args(argv)
    args.settings = Settings(
        host=args.host,
        port=args.port,
        database=args.database,
        synchronous=defaults.synchronous,
        log_format=args.log_format,
        log_level=defaults.log_level,
    )
    return args


def openapi_document() -> str:
    """The app's OpenAPI document, stable key order, as committed under openapi/."""
    from service.app import create_app

    app = create_app(Settings(database=":memory:"))
    return json.dumps(app.openapi_schema.to_schema(), indent=2, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    if args.command == "openapi":
        sys.stdout.write(openapi_document())
        return 0
    import uvicorn

    from service.app import create_app

    settings: Settings = args.settings
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, access_log=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``python -m service``: serve the API, export its OpenAPI document, verify records, rebuild
the games' summaries and the ratings read from them, and keep the apps (frontends)."""

from __future__ import annotations

import argparse
import gc
import json
import secrets
import socket
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from service.settings import Settings
from service.usecases.games.records import GameRecord, verify_record
from service.usecases.players.records import verify_player
from service.usecases.players.wire import PLAYER_FORMAT, PlayerRecord
from service.usecases.tournaments.records import verify_tournament
from service.usecases.tournaments.wire import TOURNAMENT_FORMAT, TournamentRecord

if TYPE_CHECKING:
    import uvicorn

KEEP_ALIVE_SECONDS = 5  # an idle keep-alive connection is closed after this (uvicorn's default)
MAX_WORKERS = 64  # service processes (Settings.workers)
SWITCH_INTERVAL = 0.001  # seconds a thread holds the GIL while another waits (Python's: 0.005)


DESCRIPTION = (
    "Tabula referee service. Settings also come from TABULA_* environment variables, one per"
    " field of service/settings.py (TABULA_HOST, TABULA_PORT, TABULA_DATABASE,"
    " TABULA_DATABASE_URL for PostgreSQL, the limits, TABULA_METRICS_TOKEN, ...); the manual's"
    " settings page lists them all."
)


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line: the server's options go before or after ``serve``, as one likes
    (``python -m service --port 8001`` and ``python -m service serve --port 8001``)."""
    defaults = Settings.from_env()
    parser = argparse.ArgumentParser(
        prog="python -m service",
        parents=[server_options(defaults, default_values=True)],
        description=DESCRIPTION,
    )
    add_commands(parser.add_subparsers(dest="command"), defaults)
    args = parser.parse_args(argv)
    args.settings = msgspec.structs.replace(
        defaults,
        host=args.host,
        port=args.port,
        database=args.database,
        database_url=args.database_url,
        workers=args.workers,
        log_format=args.log_format,
    )
    return args


def add_commands(commands: Any, defaults: Settings) -> None:
    """The commands besides serving (``serve`` itself too, for the explicit form)."""
    commands.add_parser(
        "serve",
        parents=[server_options(defaults, default_values=False)],
        help="serve the API (the default)",
        description="Serve the API. The options may also come before the command.",
    )
    commands.add_parser("openapi", help="print the OpenAPI document as JSON")
    commands.add_parser("socket-schema", help="print the JSON Schema of the game socket's messages")
    commands.add_parser(
        "rebuild-summaries",
        parents=[server_options(defaults, default_values=False)],
        help="make every game's summary (what listings read) again from the logs",
        description="Drop every game's summary and make them all again from the logs, on the "
        "database the options name. The server may run meanwhile.",
    )
    commands.add_parser(
        "rebuild-ratings",
        parents=[server_options(defaults, default_values=False)],
        help="make the summaries again from the logs, then the ratings (ratings rebuild "
        "--summaries)",
        description="Rebuild every game's summary from the logs (as rebuild-summaries), then "
        "every rule set's ratings, as ratings rebuild --summaries does.",
    )
    ratings = commands.add_parser("ratings", help="the ratings: rebuild them")
    rebuild = ratings.add_subparsers(dest="ratings_command", required=True).add_parser(
        "rebuild",
        parents=[server_options(defaults, default_values=False)],
        help="drop every rule set's ratings and fold them again from the games under the rule",
        description="Drop every rule set's ratings (derived rows) on the database the options "
        "name and fold them again from the games under the rule of which games count (their "
        "summaries, and the logs of those that may count), then print them, one JSON line per "
        "rule set (the whole leaderboard, as GET /ratings pages it). A running server reads "
        "the rebuilt ratings at once.",
    )
    rebuild.add_argument(
        "--summaries",
        action="store_true",
        help="make every game's summary again from the logs first (as rebuild-summaries)",
    )
    analyse = commands.add_parser(
        "analyse",
        parents=[server_options(defaults, default_values=False)],
        help="compute a game's analysis (win chances, luck, decisions) and print it as JSON",
        description="Analyse a game afresh from its log on the database the options name, as "
        "its referee sees it (running games included), and print the analysis as JSON: the "
        "same as GET /games/{id}/analysis gives. A finished game's analysis is kept in the "
        "database, replacing the one kept there.",
    )
    analyse.add_argument("game", help="the game's id")
    add_verify(commands)
    add_apps(commands, defaults)


def add_verify(commands: Any) -> None:
    """``verify FILE...``: records checked offline."""
    verify = commands.add_parser(
        "verify", help="check exported game, tournament and player records offline"
    )
    verify.add_argument(
        "records",
        nargs="+",
        help="game records (/export), archives (/archive), tournament records (/record) or "
        "players' records (/players/{handle}/record)",
    )


def add_apps(commands: Any, defaults: Settings) -> None:
    """``apps add NAME``, ``apps list``, ``apps revoke NAME``: the operator's frontends."""
    apps = commands.add_parser(
        "apps",
        help="the apps (frontends with their own users): add, list, revoke",
        description="Register a frontend that vouches for its own users (its players are "
        "NAME:handle), list the apps, or revoke one, on the database the options name.",
    )
    actions = apps.add_subparsers(dest="apps_command", required=True)
    server = [server_options(defaults, default_values=False)]
    add = actions.add_parser("add", parents=server, help="register an app; print its key once")
    add.add_argument("name", help="2 to 32 lower-case letters, digits and -")
    actions.add_parser("list", parents=server, help="every app: name, registered at, revoked")
    revoke = actions.add_parser("revoke", parents=server, help="revoke an app's key at once")
    revoke.add_argument("name")


def server_options(defaults: Settings, *, default_values: bool) -> argparse.ArgumentParser:
    """The server's options, as a parent parser for the main parser and for ``serve``.

    Only the main parser holds default values: ``serve``'s copy leaves an option it was not
    given unset (argparse would otherwise overwrite a value given before ``serve`` with the
    subcommand's default)."""
    options = argparse.ArgumentParser(add_help=False)

    def default(value: object) -> object:
        return value if default_values else argparse.SUPPRESS

    options.add_argument(
        "--host", default=default(defaults.host), help=f"address to bind ({defaults.host})"
    )
    options.add_argument(
        "--port", type=int, default=default(defaults.port), help=f"port ({defaults.port})"
    )
    options.add_argument(
        "--database",
        default=default(defaults.database),
        help=f"SQLite file ({defaults.database})",
    )
    options.add_argument(
        "--database-url",
        default=default(defaults.database_url),
        help="postgresql://user:pass@host/db: the event store on PostgreSQL instead of SQLite",
    )
    options.add_argument(
        "--workers",
        type=int,
        default=default(defaults.workers),
        help=f"service processes sharing the port ({defaults.workers})",
    )
    options.add_argument(
        "--log-format",
        choices=["json", "kv"],
        default=default(defaults.log_format),
        help=f"log line format ({defaults.log_format})",
    )
    return options


def openapi_document() -> str:
    """The app's OpenAPI document, stable key order, as committed under openapi/."""
    from service.app import create_app

    app = create_app(Settings(database=":memory:"))
    return json.dumps(app.openapi_schema.to_schema(), indent=2, sort_keys=True) + "\n"


def rebuild_summaries(settings: Settings) -> int:
    """Rebuild the summaries of the database the settings name; print how many."""
    from service.store import open_store
    from service.usecases.games.summaries import rebuild

    store = open_store(settings.database, settings.synchronous, settings.database_url)
    try:
        print(f"{rebuild(store)} games and tournaments summarised from their logs")
    finally:
        store.close()
    return 0


def rebuild_ratings(settings: Settings, summaries_first: bool) -> int:
    """Drop every rule set's ratings on the database the settings name and fold them again
    under the rule (after the summaries, made again from the logs, with ``summaries_first``);
    print each rule set's whole leaderboard."""
    from service.app import bootstrap
    from service.clock import clock_of
    from service.store import open_store
    from service.usecases.games import summaries
    from service.usecases.ratings.ratings import encode_board

    store = open_store(settings.database, settings.synchronous, settings.database_url)
    try:
        if summaries_first:
            summaries.rebuild(store)
        ratings = bootstrap(store, now=clock_of(settings.clock_offset_file)).ratings
        for ruleset, board in ratings.rebuild():
            sys.stdout.write(encode_board(ruleset, board).decode() + "\n")
    finally:
        store.close()
    return 0


def apps_command(settings: Settings, action: str, name: str | None) -> int:
    """Run ``apps add|list|revoke`` on the database the settings name (an app's key is
    printed once, by ``add``); 1 with the refusal's detail when refused."""
    from service.core.refusal import Refusal
    from service.store import open_store
    from service.usecases.players.apps import Apps
    from service.usecases.writer import Writer

    store = open_store(settings.database, settings.synchronous, settings.database_url)
    try:
        apps = Apps(Writer(store))
        if action == "add":
            print(apps.add(name or ""))
        elif action == "revoke":
            apps.revoke(name or "")
            print(f"app {name} revoked: its key no longer works")
        else:
            for app in apps.listed():
                print(f"{app.name}\t{app.registered_at}\t{'revoked' if app.revoked else 'active'}")
    except Refusal as refusal:
        print(f"tabula: {refusal.detail}", file=sys.stderr)
        return 1
    finally:
        store.close()
    return 0


def verify_files(paths: list[str]) -> int:
    """Verify each record, archive or tournament record file; one verdict per record (a
    tournament's, then each of its games'); 1 when any fails."""
    failed = 0
    for path in paths:
        try:
            records = read_records(path)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError) as error:
            print(f"{path}: unreadable record: {error}")
            failed += 1
            continue
        for name, record in records:
            if isinstance(record, TournamentRecord):
                failed += not report_tournament(name, record)
                records += [(f"{name}#{game.game_id}", game) for game in record.games]
            elif isinstance(record, PlayerRecord):
                failed += not report_player(name, record)
            else:
                failed += not report(name, record)
    return 1 if failed else 0


def read_records(path: str) -> list[tuple[str, GameRecord | TournamentRecord | PlayerRecord]]:
    """The records in a file: one game record, an archive of them (``records``), a
    tournament's record (its games' records within) or a player's."""
    with open(path, "rb") as file:
        document = msgspec.json.decode(file.read())
    if isinstance(document, dict) and document.get("format") == TOURNAMENT_FORMAT:
        return [(path, msgspec.convert(document, TournamentRecord))]
    if isinstance(document, dict) and document.get("format") == PLAYER_FORMAT:
        return [(path, msgspec.convert(document, PlayerRecord))]
    if isinstance(document, dict) and "records" in document:
        archive = msgspec.convert(document["records"], list[GameRecord])
        return [(f"{path}#{record.game_id}", record) for record in archive]
    return [(path, msgspec.convert(document, GameRecord))]


def report(name: str, record: GameRecord) -> bool:
    """Print the verdict on one record; whether it is valid."""
    verdict = verify_record(record)
    if not verdict.valid:
        print(f"{name}: INVALID at event {verdict.first_bad}: {verdict.reason}")
        return False
    chance = "chance checked against the seed" if verdict.chance_checked else "chance not checked"
    print(f"{name}: valid: {verdict.events} events, chain intact, moves legal, {chance}")
    return True


def report_tournament(name: str, record: TournamentRecord) -> bool:
    """Print the verdict on a tournament's own log and on how its games agree with it."""
    verdict = verify_tournament(record)
    if not verdict.valid:
        for problem in verdict.problems:
            print(f"{name}: INVALID: {problem}")
        return False
    state = "finished" if verdict.finished else "running"
    print(
        f"{name}: valid tournament ({state}): {verdict.events} events, chain intact, "
        f"{verdict.games} games, each a table of it with its result"
    )
    return True


def report_player(name: str, record: PlayerRecord) -> bool:
    """Print the verdict on a player's record."""
    verdict = verify_player(record)
    if not verdict.valid:
        print(f"{name}: INVALID: {verdict.problem}")
        return False
    retired = ", retired" if verdict.retired else ""
    print(
        f"{name}: valid player record of {record.handle}: {verdict.events} events, chain "
        f"intact, {verdict.keys} keys issued{retired}"
    )
    return True


def analyse_game(settings: Settings, game_id: str) -> int:
    """Compute a game's analysis afresh and print it; a finished game's is kept in the store
    (replacing the one there). 1 if there is no such game."""
    from service.app import bootstrap
    from service.store import open_store

    store = open_store(settings.database, settings.synchronous, settings.database_url)
    try:
        if store.stream(game_id) is None:
            print(f"no game {game_id!r} in the database", file=sys.stderr)
            return 1
        found = bootstrap(store).analyses.computed(game_id)
    finally:
        store.close()
    sys.stdout.write(msgspec.json.encode(found).decode() + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    if args.command == "openapi":
        sys.stdout.write(openapi_document())
        return 0
    if args.command == "socket-schema":
        from service.api.socket_messages import schema

        sys.stdout.write(json.dumps(schema(), indent=2, sort_keys=True) + "\n")
        return 0
    if args.command == "verify":
        return verify_files(args.records)
    if args.command == "apps":
        return apps_command(args.settings, args.apps_command, getattr(args, "name", None))
    if args.command == "rebuild-summaries":
        return rebuild_summaries(args.settings)
    if args.command in ("rebuild-ratings", "ratings"):
        return rebuild_ratings(args.settings, args.command != "ratings" or args.summaries)
    if args.command == "analyse":
        return analyse_game(args.settings, args.game)
    settings: Settings = args.settings
    if not 1 <= settings.workers <= MAX_WORKERS:
        sys.stderr.write(f"tabula: workers must be 1 to {MAX_WORKERS}, not {settings.workers}\n")
        return 2
    if settings.workers == 1:
        return serve(settings)
    if settings.database == ":memory:" and not settings.database_url:
        sys.stderr.write("tabula: workers share a database; ':memory:' is each process's own\n")
        return 2
    from service.api import logs
    from service.processes import serve_forked

    if not settings.cursor_key:  # one key for every worker's cursors
        settings = msgspec.structs.replace(settings, cursor_key=secrets.token_hex(32))
    listener = server_config(settings, None).bind_socket()  # as uvicorn's own workers bind
    logs.configure(settings.log_format, settings.log_level)  # the parent's lines on its workers
    return serve_forked(
        settings.workers, listener, lambda sock, ready: serve(settings, sock, ready)
    )


def serve(
    settings: Settings,
    listener: socket.socket | None = None,
    ready: Callable[[], None] | None = None,
) -> int:
    """Serve the API in this process (on ``listener``, a worker's shared socket, if given;
    ``ready`` is called once the app has started)."""
    import uvicorn

    from eventstore import StoreError
    from service.app import create_app

    try:
        app = create_app(settings)
    except StoreError as error:  # a lost database, an unreachable server: say so, not a trace
        sys.stderr.write(f"tabula: {error}\n")
        return 1
    if ready is not None:
        app.on_startup.append(ready)
    tune_gc()
    tune_threads()
    uvicorn.Server(server_config(settings, app)).run([listener] if listener else None)
    return 0


def server_config(settings: Settings, app: Any) -> uvicorn.Config:
    """How uvicorn serves ``app``: the one place (``main`` and the tests use it).

    The HTTP/1.1 protocol is uvicorn's httptools (llhttp) one with limits on what a client may
    send (``service.http_limits``, set in ``Settings``: by default 16 KiB and 100 header lines
    per head, else 431; a head within 10 s, a body at 1 KiB/s after 10 s, else 408); WebSocket
    upgrades for the game socket (``service.socket_protocol``, websockets' sans-I/O protocol
    whose close never waits for a stalled reader, with bounded pongs and a budget of messages
    shared with the app: a frame at most the largest request body, else closed with 1009; a
    ping every 20 s, aborted when its pong takes 20 s; no compression, which would cost every
    socket a buffer); no ``server`` header; an idle keep-alive connection is closed after 5 s.
    ``X-Forwarded-For`` is believed only from the addresses in ``settings.trusted_proxies``
    (none by default: any client could otherwise send it and pass for as many addresses as it
    likes, each with its own budgets).
    """
    import uvicorn

    from service.api import logs
    from service.api.socket import PING_SECONDS
    from service.http_limits import ProtocolLimits, bounded_protocol
    from service.socket_protocol import bounded_socket_protocol

    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        http=bounded_protocol(ProtocolLimits.of(settings)),
        ws=bounded_socket_protocol(
            settings.socket_send_buffer,
            settings.socket_send_timeout,
            settings.socket_message_rate,
            settings.socket_message_burst,
        ),
        ws_max_size=settings.max_body_bytes,
        ws_ping_interval=PING_SECONDS,
        ws_ping_timeout=PING_SECONDS,
        ws_per_message_deflate=False,
        server_header=False,
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=settings.trusted_proxies or None,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        access_log=False,
        log_config=logs.server_logging(settings.log_format, settings.log_level),
    )


def tune_gc() -> None:
    """Fewer, cheaper collections while serving: a move allocates thousands of short-lived
    objects, and the default threshold (700) ran a collection every few requests, sweeping
    the app's long-lived objects too. Those are frozen out of collection once built; the
    young generation is collected every 20,000 allocations (bench/api.py: 1.1x moves/s, p99
    two thirds)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 50, 100)


def tune_threads() -> None:
    """Hand the GIL over every millisecond instead of every 5: long work on a worker thread (an
    import, the first audit of a long game) holds the GIL while the event loop waits to
    serve everybody else, each time up to the switch interval. One client importing 6.4 MB
    records one after another: ``/health`` 3.6-4.4 times slower than idle with 5 ms, 1.9-2.7
    with 1 ms; moves/s (bench/api.py, 8 clients) 623-756 before, 691-770 after."""
    sys.setswitchinterval(SWITCH_INTERVAL)


if __name__ == "__main__":
    raise SystemExit(main())

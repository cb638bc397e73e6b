"""Service settings, from arguments or ``TABULA_*`` environment variables."""

from __future__ import annotations

import os
from typing import Literal

import msgspec

LogFormat = Literal["json", "kv"]


class Settings(msgspec.Struct, frozen=True):
    """Everything the composition root needs; defaults suit one local process.

    Server: ``host`` and ``port`` to bind, served by ``workers`` processes (1 to 64: the
    port's connections are shared among them, each process with its own memory of the games
    and event loop, all over the one database; see ``service.processes``);
    ``log_format`` ``kv`` (lines for a terminal) or
    ``json`` (one object a line, for production), at ``log_level`` and above.

    Limits: ``max_body_bytes`` per request body (413), ``max_page`` events per page of
    ``/events`` (400 over it), ``max_streams_per_client`` open event streams and game sockets
    per client address and ``max_streams`` in all (429 with Retry-After; a socket over either
    is closed with 4429), a game socket whose push cannot be sent for ``socket_send_timeout``
    seconds closed with 4409 (a reader that stopped reading; each socket's kernel send buffer
    is ``socket_send_buffer`` bytes; a connection whose send buffer stays full for twice
    ``socket_send_timeout`` is aborted), ``socket_message_rate`` messages a second per game
    socket (JSON messages and protocol pings alike) with bursts of ``socket_message_burst`` (a
    message over it refused ``rate-limited``; a socket that goes on for another burst closed
    with 4429; 0 turns it off), ``write_rate`` writes a second
    per token with bursts of ``write_burst`` (429 with Retry-After; 0 turns it off),
    ``cors_origins`` the comma-separated origins browsers may call from (none by default: no
    CORS headers).

    Storage: ``database_url`` (``postgresql://user:pass@host/db``) puts the event store on
    PostgreSQL, shared by any number of service processes; empty (the default) keeps the
    SQLite file ``database``, in WAL mode with ``synchronous`` (``FULL``: every acknowledged
    write is on disk). ``store_timeout`` bounds every wait for PostgreSQL (a pooled
    connection, a connection): past it, or at once while the server is known to be down, the
    request gets a 503 ``store-unavailable``.

    Idempotency: a key is remembered for ``idempotency_ttl`` seconds (a day); after that the
    same key is a new request.

    Memory: ``max_live_games`` games are kept in memory as projections; beyond it the least
    recently used are forgotten and loaded again (from their latest snapshot) when next used.

    Presence: a seat is present while a game socket or event stream opened as the seat is
    open in this process, and for ``presence_seconds`` after it was last seen (any request
    for the game made as the seat, its last connection closing); a table's absence rule
    counts a seat's time away from then (``docs/guides/presence.md``).

    Tables: at a table created with open or invited seats (``docs/guides/tables.md``), an
    invitation waits ``invite_seconds`` (10 minutes) from the table's creation, then its seat
    opens; a table whose seats are not all taken ``open_table_seconds`` (30 minutes) after its
    creation closes, with no result.

    Quick play: a seek waits ``seek_seconds`` (2 minutes) from its posting (or its owner's
    feed renewing it) unless matched into a table (``docs/guides/quick-play.md``).

    Costly work, per caller (the client address; the write limit keys on the verified caller):
    ``create_rate`` games created a second with bursts of ``create_burst`` (a batch counts each
    table), ``import_rate`` imports a second with bursts of ``import_burst``, and at most
    ``import_concurrency`` imports judged at once in all (each 429 with Retry-After; a rate of
    0 turns its limit off). An import is at most ``max_record_bytes`` of JSON and
    ``max_record_events`` events (413). At most ``analysis_workers`` game analyses are
    computed at once, each on its own thread, and four times as many wait, taking turns; each
    client address may have ``analyses_per_client`` of them under way; a request that would
    start one more is 429. A client address may have ``max_bot_games_per_client`` games with
    bots running at once (those it created or handed a seat to a bot in; 429 with Retry-After
    for more; 0 turns it off), and the bots' thinking is shared round-robin between addresses.

    Refusals: a client address refused (4xx other than 409) more than ``refusal_rate`` times a
    second, with bursts of ``refusal_burst``, gets each further refusal a second late
    (``service.api.tarpit``; a rate of 0 turns it off).

    Budgets across processes: with ``workers`` over 1 or on PostgreSQL, each per-caller
    budget (writes, creations, imports, refusals, streams and sockets per address, analyses
    per client, games with bots per client) is counted once across every process, in the
    database (on SQLite, in a file beside it: ``<database>.budgets``); a process killed without
    a word frees the streams, analyses and games it counted ``budget_lease_seconds`` after its
    last renewal (it renews every third of that). One process on SQLite counts in memory.

    Addresses: a client's address is the connection's, unless it comes from one of
    ``trusted_proxies`` (comma-separated addresses or networks, such as ``10.0.0.0/8``, or
    ``*``; none by default), whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are then
    believed: the client is the last address in ``X-Forwarded-For`` that is not a trusted
    proxy's.

    Protocol (``service.http_limits``): a request head (request line and headers) is at most
    ``max_head_bytes`` and ``max_header_lines`` lines (431) and complete within
    ``head_timeout`` seconds; a body arrives at ``body_min_rate`` bytes a second after a grace
    of ``body_timeout`` seconds (408 and closed otherwise).

    Clock (``service.clock``): ``clock_offset_file`` names a file holding a number of seconds
    to add to the machine's time, read again whenever it changes; for tests that run the
    service on a clock jumping forward and back. Empty (the default): the machine's time.
    With ``database_url`` set, the clock is the database server's instead (read every 10 s,
    counted forward on the monotonic clock), and the machine's time, with its offset, serves
    only until the server's is first read.

    Metrics: ``metrics_token`` set serves ``GET /metrics`` (Prometheus) to callers with
    ``Authorization: Bearer <metrics_token>``; empty (the default), there is no such route.

    Cursors: listings' page cursors are sealed with a key made from ``cursor_key``; empty (the
    default), each process makes a random one, so processes serving one address need it set
    alike. Another key made from it derives the secrets of a creation made with an
    Idempotency-Key (a game's tokens, a player's key), so that its retry shows them again:
    without it set, a retry served by another process, or after a restart, is 409
    ``idempotency-secrets-lost``.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    database: str = "tabula.db"
    database_url: str = ""
    store_timeout: float = 5.0
    synchronous: str = "FULL"
    log_format: LogFormat = "kv"
    log_level: str = "info"
    max_body_bytes: int = 64 * 1024
    max_page: int = 1000
    max_streams_per_client: int = 32
    max_streams: int = 1000
    socket_send_timeout: float = 10.0
    socket_send_buffer: int = 256 * 1024
    socket_message_rate: float = 1000.0
    socket_message_burst: int = 1000
    write_rate: float = 0.0
    write_burst: int = 30
    cors_origins: str = ""
    max_live_games: int = 10_000
    invite_seconds: float = 600.0
    open_table_seconds: float = 1800.0
    presence_seconds: float = 60.0
    seek_seconds: float = 120.0
    create_rate: float = 1.0
    create_burst: int = 60
    import_rate: float = 0.1
    import_burst: int = 10
    import_concurrency: int = 1
    analysis_workers: int = 1
    analyses_per_client: int = 1
    max_bot_games_per_client: int = 16
    max_record_bytes: int = 8 * 1024 * 1024
    max_record_events: int = 20_000
    idempotency_ttl: float = 86_400.0
    refusal_rate: float = 10.0
    refusal_burst: int = 100
    budget_lease_seconds: float = 30.0
    trusted_proxies: str = ""
    max_head_bytes: int = 16 * 1024
    max_header_lines: int = 100
    head_timeout: float = 10.0
    body_timeout: float = 10.0
    body_min_rate: float = 1024.0
    metrics_token: str = ""
    cursor_key: str = ""
    clock_offset_file: str = ""

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        """Settings with any ``TABULA_<FIELD>`` environment variable applied."""
        env = os.environ if environ is None else environ
        given = {
            name: env[f"TABULA_{name.upper()}"]
            for name in cls.__struct_fields__
            if f"TABULA_{name.upper()}" in env
        }
        return msgspec.convert(given, cls, strict=False)

"""Abuse limits: token buckets on writes (per verified caller), on game creation and on
imports (per client address), a cap on imports at once, caps on open event streams
(``streams.py``), page and CORS settings.

Each limit is configured in ``Settings``; ``Limits`` holds their live state for one app and is
reached from handlers through ``app.state.limits``.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from litestar import Request
from litestar.config.cors import CORSConfig
from litestar.connection import ASGIConnection
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, ReceiveMessage, Scope, Send

from service.api.problems import problem_response
from service.api.streams import StreamSlots
from service.core.refusal import Refusal, refuse
from service.settings import Settings
from service.usecases.budgets import Asking, SharedBucket, SharedSlots
from service.usecases.games.queries import Queries
from service.usecases.players.keys import PLAYER_KEY

Clock = Callable[[], float]
CORS_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID", "X-Request-ID"]
CORS_EXPOSED = ["Retry-After", "X-Request-ID"]
MAX_KEYS = 100_000  # buckets kept at most per limit (about 15 MB)
IMPORT = "tabula.import"
"""The ``opt`` of the import route: ``import_limits`` guards it."""

IMPORT_RETRY_SECONDS = 2
REFUSAL_DELAY = 1.0  # seconds a refusal waits for its reply (see ``slow_refusals``) ...
REFUSALS_DELAYED = 64  # ... at most this many with a body over 4 KiB at once (an import's ~320 KiB)
SMALL_REFUSALS_DELAYED = 2048  # ... and this many others (a few KiB each): a wait costs nothing


class TokenBucket:
    """Per-key token buckets: ``rate`` tokens a second, at most ``burst`` saved up.

    Memory stays bounded whatever the number of keys: the buckets are kept in the order they
    were last used, and a bucket left alone for ``burst / rate`` seconds is full again, so it
    is the same as none and goes (each ``take`` drops those at the old end); beyond
    ``max_keys`` the least recently used go too (their keys start afresh).
    """

    def __init__(
        self, rate: float, burst: int, clock: Clock = time.monotonic, max_keys: int = MAX_KEYS
    ) -> None:
        self.rate, self.burst, self.clock = rate, max(burst, 1), clock
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # oldest first
        self._lock = threading.Lock()

    def take(self, key: str, cost: int = 1) -> float:
        """Spend ``cost`` tokens of ``key``'s bucket: 0 when granted, else seconds until they
        are due. A cost over the burst is granted on a full bucket and leaves a debt."""
        with self._lock:
            now = self.clock()
            self._prune(now)
            tokens, then = self._buckets.pop(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - then) * self.rate)
            needed = min(cost, self.burst)
            granted = tokens >= needed
            self._buckets[key] = (tokens - cost if granted else tokens, now)
            return 0.0 if granted else (needed - tokens) / self.rate

    def _prune(self, now: float) -> None:
        """Drop the buckets full again by now, and the oldest beyond ``max_keys`` (under the
        lock). A debt (a cost over the burst) keeps its bucket until it is paid back."""
        buckets = self._buckets
        while buckets:
            key, (tokens, then) = next(iter(buckets.items()))
            full = now - then >= (self.burst - tokens) / self.rate if self.rate > 0 else False
            if not full and len(buckets) < self.max_keys:
                return
            del buckets[key]

    def __len__(self) -> int:
        """How many buckets are kept."""
        with self._lock:
            return len(self._buckets)


BUDGET = "tabula.message_budget"
"""The key of a game socket's ``MessageBudget`` in its scope's ``extensions``, where the
server's protocol (``service.socket_protocol``) puts the one its pings spend."""


class MessageBudget:
    """One game socket's budget of messages (``Settings.socket_message_rate`` a second, bursts
    of ``socket_message_burst``; a rate of 0 is no limit), spent by its JSON messages
    (``service.api.socket``) and its protocol pings (``service.socket_protocol``) alike.

    A message over the budget spends all the same: a caller that goes on sending over it runs
    up a debt, and once that is a whole burst the budget is ``broken`` (the socket is closed).
    A caller that waits the seconds ``spend`` answers is never closed. One bucket, no lock:
    a socket's messages are spent on the event loop, one at a time.
    """

    __slots__ = ("burst", "rate", "then", "tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, max(burst, 1)
        self.tokens, self.then = float(self.burst), time.monotonic()

    def spend(self) -> float:
        """Spend one message: 0 within the budget, else the seconds until one is due again."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.then) * self.rate) - 1
        self.then = now
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate

    @property
    def broken(self) -> bool:
        """Whether the caller went on for a whole burst over the budget."""
        return self.tokens < -self.burst


Bucket = TokenBucket | SharedBucket


def bucket(budgets: Asking | None, name: str, rate: float, burst: int, clock: Clock) -> Bucket:
    """This process's own token bucket, or with ``budgets`` (several processes) one shared by
    every process under ``name`` (the own one standing in while the database does not
    answer)."""
    own = TokenBucket(rate, burst, clock)
    if budgets is None or rate <= 0:
        return own
    return SharedBucket(budgets, name, rate, burst, own.take)


class Limits:
    """The live state of one app's limits: each per-caller budget is this process's own, or
    with ``budgets`` counted once across every process (``service.usecases.budgets``); the
    caps in all (imports at once, refusals waiting, streams in all) are each process's."""

    def __init__(
        self, settings: Settings, clock: Clock = time.monotonic, budgets: Asking | None = None
    ) -> None:
        self.settings = settings
        self.writes = bucket(budgets, "writes", settings.write_rate, settings.write_burst, clock)
        creations = settings.create_rate, settings.create_burst
        self.creations = bucket(budgets, "creations", *creations, clock)
        self.imports = bucket(
            budgets, "imports", settings.import_rate, settings.import_burst, clock
        )
        self.importing = Slots(settings.import_concurrency)
        refusals = settings.refusal_rate, settings.refusal_burst
        self.refusals = bucket(budgets, "refusals", *refusals, clock)
        self.refusing = Slots(REFUSALS_DELAYED)
        self.refusing_small = Slots(SMALL_REFUSALS_DELAYED)
        per_client = settings.max_streams_per_client
        shared = None if budgets is None else SharedSlots(budgets, "streams", per_client)
        self.streams = StreamSlots(per_client, settings.max_streams, shared)

    def check_write(self, key: str) -> None:
        """Refuse a write over the rate limit with 429 ``rate-limited`` and Retry-After."""
        spend(self.writes, key, 1, "writes")

    def check_create(self, client: str, games: int = 1) -> None:
        """Refuse creating ``games`` games over the client's creation budget (429)."""
        spend(self.creations, client, games, "games created")

    def check_import(self, client: str) -> None:
        """Refuse an import over the client's import budget (429)."""
        spend(self.imports, client, 1, "imports")

    async def hold_refusal(self, large: bool = True) -> bool:
        """Wait ``REFUSAL_DELAY`` before a refusal is answered, if a slot is free (of
        ``REFUSALS_DELAYED`` for a ``large`` request, one whose body may be over 4 KiB, else
        of ``SMALL_REFUSALS_DELAYED``); whether it waited."""
        slots = self.refusing if large else self.refusing_small
        if not slots.try_acquire():
            return False
        try:
            await asyncio.sleep(REFUSAL_DELAY)
        finally:
            slots.release()
        return True

    def check_page(self, limit: int | None) -> int:
        """The page size asked for, or the largest allowed; more than that is out of range."""
        largest = self.settings.max_page
        if limit is None:
            return largest
        if limit > largest:
            raise refuse(
                "out-of-range",
                f"limit={limit} is over the largest page, {largest}",
                parameter="limit",
            )
        return limit


def spend(bucket: Bucket, key: str, cost: int, what: str) -> None:
    """Take ``cost`` from ``key``'s bucket or refuse with 429 ``rate-limited`` and Retry-After
    (a rate of 0 is no limit)."""
    if bucket.rate <= 0:
        return
    wait = bucket.take(key, cost)
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise refuse(
            "rate-limited",
            f"too many {what}: at most {bucket.rate:g} a second (bursts of {bucket.burst}); "
            f"retry in {seconds} s",
            retry_after=seconds,
        )


class Slots:
    """At most ``limit`` of some costly work at once, in all; more is refused, not queued
    (a queue would hold each waiting request's body in memory)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.busy = 0
        self._lock = threading.Lock()

    def acquire(self, what: str, retry_after: int) -> None:
        """Take a slot, or refuse with 429 ``rate-limited`` and Retry-After."""
        if not self.try_acquire():
            raise refuse(
                "rate-limited",
                f"the server is busy with {self.limit} {what} at once; retry in {retry_after} s",
                retry_after=retry_after,
            )

    def try_acquire(self) -> bool:
        """Take a slot if one is free; whether it was."""
        with self._lock:
            if self.busy >= self.limit:
                return False
            self.busy += 1
            return True

    def release(self) -> None:
        """Give a slot back."""
        with self._lock:
            self.busy -= 1

    @contextmanager
    def taken(self, what: str, retry_after: int) -> Iterator[None]:
        """Hold a slot for the block (``acquire``, then ``release``)."""
        self.acquire(what, retry_after)
        try:
            yield
        finally:
            self.release()


def client_of(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The client's address (the key of per-client limits)."""
    return connection.client.host if connection.client else "unknown"


def writer_of(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The key of the write rate limit: the verified caller. A token of the game's referee or
    of one of its seats is that seat of that game, however the header spells it; a player's
    key this process has checked before is that player (in that game, on a game's route);
    anything else (no token, a malformed header, a token of no seat, no such game, a key not
    checked here yet) is the client's address, so made-up tokens share one budget instead of
    bringing a new one each."""
    token = bearer_token(connection.headers.get("authorization"))
    game_id = connection.path_params.get("game_id")
    if token is not None and token.startswith(PLAYER_KEY):
        player = connection.app.state.players.known(token)
        if player is not None:
            where = f"game:{game_id}:" if game_id is not None else ""
            return f"{where}player:{player.handle}"
        return "client:" + client_of(connection)
    if token is not None and game_id is not None:
        queries: Queries = connection.app.state.queries
        role = queries.caller(game_id, token)
        if role is not None:
            return f"game:{game_id}:{role}"
    return "client:" + client_of(connection)


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header as the routes read it (scheme
    in any case, spaces around the token ignored), or None without one or when malformed."""
    scheme, _, token = (header or "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


async def write_limit(request: Request[Any, Any, Any]) -> None:
    """Run before every write route: the rate limit per verified caller. A hook, not a guard:
    Litestar copies the handler for each guard call, which cost a write more than the check
    itself."""
    limits: Limits = request.app.state.limits
    if limits.writes.rate > 0:
        limits.check_write(writer_of(request))


async def create_limit(request: Request[Any, Any, Any]) -> None:
    """Run before ``POST /games``: the write limit, then the client's creation budget."""
    await write_limit(request)
    limits: Limits = request.app.state.limits
    limits.check_create(client_of(request))


def import_limits(app: ASGIApp) -> ASGIApp:
    """ASGI middleware of ``POST /games/import``, around everything else (the body checks
    read the body): the size a record may have (by its Content-Length, and by counting the
    body as it comes), one of the server's import slots, held until the reply is sent, and
    the client's import budget (spent only by an import that gets a slot).

    A refused import is answered before its body is read, and a reply sent before the whole
    body came closes the connection: otherwise the server goes on reading (and throwing away)
    the rest of the body, and a client could send a large body again and again on one
    connection for the price of a 429 (8 clients doing so made ``/health`` 67 times slower;
    closing, 5 times). The refusal comes after ``REFUSAL_DELAY`` (a second; Retry-After says
    at least that anyway), so a client that tries again at once costs a connection a second,
    not hundreds (then 1.3 to 2.4 times); at most ``REFUSALS_DELAYED`` wait at once, the rest
    are answered at once. A client that sends ``Expect: 100-continue`` (curl does for bodies
    over 1 MB) gets the refusal before it sends the body.
    """

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        handler = scope.get("route_handler")
        if scope["type"] != ScopeType.HTTP or handler is None or not handler.opt.get(IMPORT):
            await app(scope, receive, send)
            return
        request = Request[Any, Any, Any](scope)
        limits: Limits = request.app.state.limits
        largest = limits.settings.max_record_bytes
        received, whole = 0, False

        async def counted() -> ReceiveMessage:
            nonlocal received, whole
            message = await receive()
            if message["type"] == "http.request":
                received += len(message["body"])
                whole = not message.get("more_body", False)
            if received > largest:
                raise too_large(largest)
            return message

        async def closing(message: Message) -> None:
            if message["type"] == "http.response.start" and not whole:
                message["headers"] = [*message["headers"], (b"connection", b"close")]
            await send(message)

        try:
            admit_import(scope, request, limits)
        except Refusal as refusal:
            await limits.hold_refusal()  # a client sending again at once is slowed
            await problem_response(request, refusal).to_asgi_response(None, request)(
                scope, receive, closing
            )
            return
        try:  # a body over the size is refused by the body checks, which read it
            await app(scope, counted, closing)
        finally:
            limits.importing.release()

    return middleware


def admit_import(scope: Scope, request: Request[Any, Any, Any], limits: Limits) -> None:
    """Refuse an import whose announced size is over the largest record, or take one of the
    import slots and spend the client's budget (only an import that runs spends)."""
    largest = limits.settings.max_record_bytes
    length = next((v for k, v in scope["headers"] if k == b"content-length"), b"0")
    if not length.isdigit() or int(length) > largest:
        raise too_large(largest)
    limits.importing.acquire("imports", IMPORT_RETRY_SECONDS)
    try:
        limits.check_import(client_of(request))
    except Refusal:
        limits.importing.release()
        raise


def too_large(largest: int) -> Refusal:
    """The 413 of a record over ``max_record_bytes``."""
    return refuse(
        "payload-too-large",
        f"a game record may be at most {largest:,} bytes of JSON "
        "(the setting TABULA_MAX_RECORD_BYTES changes it)",
        limit=largest,
        setting="TABULA_MAX_RECORD_BYTES",
    )


def cors_config(settings: Settings) -> CORSConfig | None:
    """CORS for the configured origins (comma-separated), or None (no CORS headers) when unset."""
    origins = [o.strip() for o in settings.cors_origins.split(",") if o.strip()]
    if not origins:
        return None
    return CORSConfig(
        allow_origins=origins,
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=CORS_HEADERS,
        expose_headers=CORS_EXPOSED,
    )

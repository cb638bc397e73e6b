"""Game records: export, audit, and their verification by judging the log again.

A record is checked with no server: its format and header, the versions and the hash chain,
the seed against its commitment, then every event by ``core.rejudge`` (the referee run again
on every recorded command must produce exactly the recorded events).

Exports, audits and archives are streamed: one JSON document in pieces, the events read from
the store and encoded a page at a time, so a long game costs one page of memory however
many ask for it. An audit's verification is kept per (game, version) in ``Verifications``:
the log up to a version never changes, so a finished game is verified once, not per request.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Any, Generic, TypeVar

import msgspec

from domain.events import GameCreated, parse_event
from domain.model import status_of
from domain.replay import Replay
from eventstore import EventStore, StoredEvent, verify_chain
from service.core.referee import Batch
from service.core.refusal import refuse
from service.core.rejudge import Entry, Invalid, rejudge
from service.usecases.games.repository import Game
from service.usecases.replies import EventOut, wire

FORMAT = "tabula-game-record"
FORMAT_VERSION = 1
PAGE = 1000  # events read and encoded at a time by the streamed documents
VERIFICATIONS_KEPT = 4096  # verdicts kept in memory (a few hundred bytes each)
DOCUMENTS_KEPT_BYTES = 64 * 1024 * 1024  # finished games' audits and exports kept in memory
SLICE_BYTES = 256 * 1024  # a kept document is sent in pieces of this size
STREAMED = b""  # kept for a document too large to keep: stream it each time
Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")
BROKEN_CHAIN = "broken hash chain: the hash does not match the event or its predecessor"


class Verification(msgspec.Struct, frozen=True):
    """The verdict on a log: valid, or the first bad event and why."""

    valid: bool
    events: int
    chance_checked: bool
    finished: bool = False
    first_bad: int | None = None
    reason: str | None = None


class RecordHead(msgspec.Struct, frozen=True):
    """A record's fields before its events (``GameRecord`` goes on from them)."""

    game_id: str
    ruleset: str
    ruleset_version: int
    options: dict[str, Any]
    seats: list[str]
    chance: str
    seed_commitment: str


class GameRecord(RecordHead, frozen=True):
    """A self-contained game: header, every event with its hash, the seed once revealed."""

    events: list[EventOut]
    seed: str | None = None
    format: str = FORMAT
    format_version: int = FORMAT_VERSION


class RecordTail(msgspec.Struct, frozen=True):
    """A record's fields after its events."""

    seed: str | None
    format: str = FORMAT
    format_version: int = FORMAT_VERSION


class AuditHead(msgspec.Struct, frozen=True):
    """An audit's fields before its events (``Audit`` goes on from them)."""

    game_id: str
    ruleset: str
    status: str
    seed_commitment: str
    seed: str | None


class Audit(AuditHead, frozen=True):
    """The full log with who did what when, and its verification."""

    events: list[EventOut]
    verification: Verification


class AuditTail(msgspec.Struct, frozen=True):
    """An audit's field after its events."""

    verification: Verification


class Kept(Generic[Key, Value]):
    """Values derived from what never changes, kept by key: a game's log up to a version only
    grows (an undo appends), so neither its verification nor, once it has finished, its
    documents change. The least recently used go when the kept values cost more than
    ``budget`` (``cost`` of each, 1 by default); a value asked for while another thread
    computes it is waited for, not computed twice. ``computed`` counts the computations."""

    def __init__(self, budget: int, cost: Callable[[Value], int] = lambda _: 1) -> None:
        self.budget, self.cost = budget, cost
        self.computed = 0
        self.spent = 0
        self._kept: OrderedDict[Key, Value] = OrderedDict()
        self._running: dict[Key, threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, key: Key, compute: Callable[[], Value]) -> Value:
        """The value kept for ``key``, else ``compute()``'s (kept unless it costs more than a
        quarter of the budget)."""
        with self._lock:
            if (kept := self._kept.get(key)) is not None:
                self._kept.move_to_end(key)
                return kept
            running = self._running.setdefault(key, threading.Lock())
        with running:
            with self._lock:
                if (kept := self._kept.get(key)) is not None:
                    return kept
            try:
                value = compute()
            except BaseException:
                with self._lock:
                    self._running.pop(key, None)
                raise
            with self._lock:
                self.computed += 1
                self._running.pop(key, None)
                self._keep(key, value)
            return value

    def _keep(self, key: Key, value: Value) -> None:
        """Keep ``value`` if it is worth it, forgetting the least recently used (under the
        lock)."""
        cost = self.cost(value)
        if cost > self.budget // 4:
            return
        self._kept[key] = value
        self.spent += cost
        while self.spent > self.budget:
            _, forgotten = self._kept.popitem(last=False)
            self.spent -= self.cost(forgotten)

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept)


class Documents:
    """The JSON documents (audits, exports) of finished games, kept as bytes within a budget
    of ``budget`` bytes: a finished game's document at a version never changes, so anyone
    looping on it is sent bytes from memory. A document over a quarter of the budget is not
    kept but streamed page by page each time (``STREAMED`` is kept for it instead)."""

    def __init__(self, budget: int = DOCUMENTS_KEPT_BYTES) -> None:
        self.kept: Kept[tuple[str, str, int], bytes] = Kept(budget, lambda kept: len(kept) or 1)
        self.largest = budget // 4

    def get(
        self, key: tuple[str, str, int], make: Callable[[], Iterator[bytes]]
    ) -> Iterator[bytes]:
        """The document ``key`` in pieces: from memory when kept, else made by ``make``."""
        streamed: list[Iterator[bytes]] = []

        def gather() -> bytes:
            """The document made and joined, or STREAMED once it is larger than ``largest``
            (what was read of it and the rest go to this caller in ``streamed``)."""
            pieces, gathered, size = make(), [], 0
            for piece in pieces:
                gathered.append(piece)
                size += len(piece)
                if size > self.largest:
                    streamed.append(itertools.chain(gathered, pieces))
                    return STREAMED
            return b"".join(gathered)

        document = self.kept.get(key, gather)
        if streamed:
            return streamed[0]
        return make() if document == STREAMED else slices(document)


def slices(document: bytes, size: int = SLICE_BYTES) -> Iterator[bytes]:
    """A kept document in pieces of ``size`` bytes."""
    view = memoryview(document)
    for start in range(0, len(document), size):
        yield bytes(view[start : start + size])


def record_head(game: Game) -> RecordHead:
    """The fields of a game's record before its events."""
    created = game.created
    return RecordHead(
        game.id,
        created.ruleset,
        game.rules.VERSION,
        created.options,
        list(created.seats),
        created.chance,
        created.seed_commitment,
    )


def streamed_record(game: Game, store: EventStore) -> Iterator[bytes]:
    """``export``'s JSON document in pieces, the events read a page at a time: a record of
    any length costs one page of memory. The game's version now is the record's end (call
    this holding the game; the pieces read the store later, without it)."""
    tail = RecordTail(game.secrets.seed if game.finished else None)
    return document(record_head(game), event_pages(store, game.id, game.version), tail)


def audit_head(game: Game) -> AuditHead:
    """The fields of a game's audit before its events, at its version now."""
    created, finished = game.created, game.finished
    return AuditHead(
        game.id,
        created.ruleset,
        status_of(finished),
        created.seed_commitment,
        game.secrets.seed if finished else None,
    )


def streamed_audit(
    head: AuditHead, store: EventStore, version: int, verification: Verification
) -> Iterator[bytes]:
    """``audit``'s JSON document in pieces: ``head``, the events up to ``version`` (read a
    page at a time) and their ``verification``."""
    events = event_pages(store, head.game_id, version)
    return document(head, events, AuditTail(verification))


def document(
    head: msgspec.Struct, events: Iterator[bytes], tail: msgspec.Struct
) -> Iterator[bytes]:
    """One JSON object in pieces: ``head``'s fields, ``"events"`` (``events`` gives its items
    a page at a time, comma-separated within the page), then ``tail``'s fields; the bytes are
    those of encoding the whole struct at once."""
    yield msgspec.json.encode(head)[:-1] + b',"events":['
    separator = b""
    for page in events:
        yield separator + page
        separator = b","
    yield b"]," + msgspec.json.encode(tail)[1:]


def event_pages(store: EventStore, game_id: str, version: int) -> Iterator[bytes]:
    """A game's events up to ``version``, every field shown (as the referee sees them), as
    JSON a page at a time: each page is the items of a JSON array, comma-separated."""
    after = 0
    while after < version:
        stored = store.read(game_id, after=after, until=version, limit=PAGE)
        if not stored:
            return
        yield msgspec.json.encode([wire(EventOut, e) for e in stored])[1:-1]
        after = stored[-1].version


def verify_stored(
    store: EventStore, game_id: str, version: int, seed: str, chance: str
) -> Verification:
    """The verification of a game's log up to ``version`` as stored (what its audit shows)
    with its sealed ``seed``: the chain, then the referee judging it again. Done on the stored
    events themselves, without the copies a record would make."""
    stored = store.read(game_id, until=version)
    checked = chance == "server"
    try:
        bad = verify_chain(stored)
        if bad is not None:
            raise Invalid(bad, BROKEN_CHAIN)
        replay, _ = rejudge([Entry(e.version, parse(e), e.by) for e in stored], seed)
    except Invalid as bad:
        return Verification(False, len(stored), checked, first_bad=bad.version, reason=bad.reason)
    return Verification(True, len(stored), checked, bool(replay.state.finished))


def verify_record(record: GameRecord, seed: str | None = None) -> Verification:
    """Verify a whole record; ``seed`` overrides the record's (the service's sealed seed)."""
    seed = seed or record.seed
    checked = seed is not None and record.chance == "server"
    try:
        replay, _ = judge_record(record, seed)
    except Invalid as bad:
        return Verification(
            False, len(record.events), checked, first_bad=bad.version, reason=bad.reason
        )
    return Verification(True, len(record.events), checked, bool(replay.state.finished))


def judged_record(record: GameRecord) -> tuple[Replay, Batch]:
    """The game a valid record leaves and its events as the referee made them again; an
    invalid record is refused naming its first bad event."""
    try:
        return judge_record(record, record.seed)
    except Invalid as bad:
        raise refuse(
            "invalid-record", f"event {bad.version}: {bad.reason}", first_bad_event=bad.version
        ) from None


def judge_record(record: GameRecord, seed: str | None) -> tuple[Replay, Batch]:
    """Check a record's header and chain, then judge its events again."""
    check_header(record)
    check_chain(record)
    return rejudge([Entry(e.version, parse(e), e.by) for e in record.events], seed)


def check_header(record: GameRecord) -> None:
    """The record's format and its header agree with its first event."""
    if record.format != FORMAT or record.format_version != FORMAT_VERSION:
        raise Invalid(0, f"unknown record format {record.format!r} {record.format_version}")
    if not record.events or record.events[0].type != "GameCreated":
        raise Invalid(1, "a game record starts with GameCreated")
    created = parse(record.events[0])
    assert isinstance(created, GameCreated)
    header = (record.ruleset, record.options, tuple(record.seats), record.seed_commitment)
    if header != (created.ruleset, created.options, created.seats, created.seed_commitment):
        raise Invalid(1, "the record's header does not match its GameCreated event")
    if record.chance != created.chance:
        raise Invalid(1, "the record's chance does not match its GameCreated event")
    if record.ruleset_version != created.ruleset_version:
        why = f"the record's ruleset_version {record.ruleset_version} does not match its "
        raise Invalid(1, why + f"GameCreated event's {created.ruleset_version}")


def check_chain(record: GameRecord) -> None:
    """Versions 1.. without gaps and an unbroken hash chain."""
    stored = [
        StoredEvent(record.game_id, e.version, e.type, e.data, e.by, e.at, e.prev_hash, e.hash)
        for e in record.events
    ]
    bad = verify_chain(stored)
    if bad is not None:
        raise Invalid(bad, BROKEN_CHAIN)


def parse(event: StoredEvent) -> Any:
    """A record's (or the store's) event as a domain event; an unreadable one is Invalid."""
    try:
        return parse_event(event.type, event.data)
    except (ValueError, msgspec.ValidationError) as error:
        raise Invalid(event.version, f"unreadable {event.type} event: {error}") from None

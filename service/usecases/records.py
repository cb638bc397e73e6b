"""Game records: export, audit, and their verification by judging the log again.

A record is checked with no server: its format and header, the versions and the hash chain,
the seed against its commitment, then every event by ``core.rejudge`` (the referee run again
on every recorded command must produce exactly the recorded events).
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.events import GameCreated, parse_event
from domain.replay import Replay
from eventstore import EventStore, StoredEvent, verify_chain
from service.core.referee import Batch
from service.core.refusal import refuse
from service.core.rejudge import Entry, Invalid, rejudge
from service.usecases.replies import EventOut
from service.usecases.repository import Game
from service.usecases.views import event_out

FORMAT = "tabula-game-record"
FORMAT_VERSION = 1


class GameRecord(msgspec.Struct, frozen=True):
    """A self-contained game: header, every event with its hash, the seed once revealed."""

    game_id: str
    ruleset: str
    ruleset_version: int
    options: dict[str, Any]
    seats: list[str]
    chance: str
    seed_commitment: str
    events: list[EventOut]
    seed: str | None = None
    format: str = FORMAT
    format_version: int = FORMAT_VERSION


class Verification(msgspec.Struct, frozen=True):
    """The verdict on a log: valid, or the first bad event and why."""

    valid: bool
    events: int
    chance_checked: bool
    finished: bool = False
    first_bad: int | None = None
    reason: str | None = None


class Audit(msgspec.Struct, frozen=True):
    """The full log with who did what when, and its verification."""

    game_id: str
    ruleset: str
    status: str
    seed_commitment: str
    seed: str | None
    events: list[EventOut]
    verification: Verification


def export(game: Game, store: EventStore) -> GameRecord:
    """The self-contained record of a game, with the seed once it is revealed."""
    created = game.created
    return GameRecord(
        game_id=game.id,
        ruleset=created.ruleset,
        ruleset_version=game.rules.VERSION,
        options=created.options,
        seats=list(created.seats),
        chance=created.chance,
        seed_commitment=created.seed_commitment,
        events=[event_out(game, e, "referee") for e in store.read(game.id)],
        seed=game.secrets.seed if game.finished else None,
    )


def audit(game: Game, store: EventStore) -> Audit:
    """The export, verified (with the sealed seed while the game runs)."""
    record = export(game, store)
    verdict = verify_record(record, seed=game.secrets.seed)
    status = "finished" if game.finished else "active"
    return Audit(
        game.id, record.ruleset, status, record.seed_commitment, record.seed, record.events, verdict
    )


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


def check_chain(record: GameRecord) -> None:
    """Versions 1.. without gaps and an unbroken hash chain."""
    stored = [
        StoredEvent(record.game_id, e.version, e.type, e.data, e.by, e.at, e.prev_hash, e.hash)
        for e in record.events
    ]
    bad = verify_chain(stored)
    if bad is not None:
        raise Invalid(
            bad, "broken hash chain: the hash does not match the event or its predecessor"
        )


def parse(event: EventOut) -> Any:
    """A record's event as a domain event."""
    try:
        return parse_event(event.type, event.data)
    except (ValueError, msgspec.ValidationError) as error:
        raise Invalid(event.version, f"unreadable {event.type} event: {error}") from None

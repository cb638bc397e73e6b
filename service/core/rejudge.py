"""Checking a game record with no server: the hash chain, the seed, and every event's legality.

The record is replayed with the domain alone. At each point the next event must be what the
rules make happen by themselves (automatic events), a legal decision of a pending seat with
exactly the events that decision causes, a chance outcome the pending draw or roll allows
(equal to the seed's outcome when the seed is known and chance is the server's), an undo of
the latest decision, or the seed's reveal.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.events import (
    Adjudicated,
    CardDrawn,
    CardsDealt,
    DiceRolled,
    Event,
    GameCreated,
    GameFinished,
    MovePlayed,
    MoveUndone,
    SeedRevealed,
    TimeExpired,
    TurnPassed,
    parse_event,
)
from domain.model import CHANCE_KINDS, ChanceNeed, Deal, Draw, GameError, Roll
from domain.replay import Replay
from eventstore import StoredEvent, verify_chain
from service import chance
from service.wire import EventOut

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


class Invalid(Exception):
    """The first bad event of a record."""

    def __init__(self, version: int, reason: str) -> None:
        super().__init__(f"event {version}: {reason}")
        self.version, self.reason = version, reason


def verify_record(record: GameRecord, seed: str | None = None) -> Verification:
    """Verify a whole record; ``seed`` overrides the record's (the service's sealed seed)."""
    seed = seed or record.seed
    checked = seed is not None and record.chance == "server"
    try:
        check_header(record)
        check_chain(record)
        if seed is not None and chance.commitment(seed) != record.seed_commitment:
            raise Invalid(1, "the seed does not match its commitment")
        checker = Checker(record, seed if checked else None)
        checker.run()
    except Invalid as bad:
        return Verification(
            False, len(record.events), checked, first_bad=bad.version, reason=bad.reason
        )
    return Verification(True, len(record.events), checked, bool(checker.replay.state.finished))


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


def parse(event: EventOut) -> Event:
    """A record's event as a domain event."""
    try:
        return parse_event(event.type, event.data)
    except (ValueError, msgspec.ValidationError) as error:
        raise Invalid(event.version, f"unreadable {event.type} event: {error}") from None


class Checker:
    """Replays a record event by event, checking each against the rules."""

    def __init__(self, record: GameRecord, seed: str | None) -> None:
        created = parse(record.events[0])
        assert isinstance(created, GameCreated)
        try:
            self.replay = Replay(created)
        except (GameError, KeyError) as error:
            raise Invalid(1, f"bad game setup: {error}") from None
        self.seed = seed
        self.events = [(e.version, parse(e), e.by) for e in record.events[1:]]
        self.at = 0

    def run(self) -> None:
        """Check every event after GameCreated."""
        while self.at < len(self.events):
            version, event, by = self.events[self.at]
            batch = self.expected(version, event, by)
            self.take(batch)

    def expected(self, version: int, event: Event, by: int | str) -> list[Event]:
        """The events the rules allow next, given that the next recorded one is ``event``."""
        rules, state = self.replay.rules, self.replay.state
        automatic = rules.automatic(state)
        if automatic:
            return automatic
        match event:
            case MoveUndone(reverts=reverts):
                if reverts != self.replay.last_decision():
                    raise Invalid(version, f"undo of version {reverts}, not the latest decision")
                return [event]
            case SeedRevealed(seed=seed):
                if chance.commitment(seed) != self.replay.created.seed_commitment:
                    raise Invalid(version, "the revealed seed does not match its commitment")
                return [event]
            case GameFinished() if by == "referee" or self.after_timeout("forfeit"):
                return [event]
            case TurnPassed(seat=seat) if self.after_timeout("pass", seat):
                return [event]
            case Adjudicated() | TimeExpired() if by in ("referee", "server"):
                return [event]
            case CardDrawn() | DiceRolled() | CardsDealt():
                return [self.outcome(version, event)]
        return self.decision(version, event)

    def after_timeout(self, consequence: str, seat: int | None = None) -> bool:
        """Whether the previous event was ``seat``'s clock running out with ``consequence``."""
        if self.at == 0:
            return False
        previous = self.events[self.at - 1][1]
        return (
            isinstance(previous, TimeExpired)
            and previous.consequence == consequence
            and seat in (None, previous.seat)
        )

    def outcome(self, version: int, event: Event) -> Event:
        """A chance event, checked against what the pending draw or roll allows."""
        rules, state = self.replay.rules, self.replay.state
        seat = getattr(event, "seat", getattr(event, "dealer", -1))
        pending = [p for p in rules.to_act(state) if p.kind in CHANCE_KINDS and p.seat == seat]
        need = rules.chance(state)
        if not pending or need is None:
            raise Invalid(version, f"seat {seat} was not due to draw or roll")
        if self.seed is not None:
            due = chance.outcome(self.seed, self.replay.chance_count, need, seat)
            if due != event:
                raise Invalid(version, f"the outcome does not match the seed: expected {due}")
        elif not possible(need, event):
            raise Invalid(version, f"an impossible outcome for {type(need).__name__.lower()}")
        return event

    def decision(self, version: int, event: Event) -> list[Event]:
        """A seat's decision: the events its legal move causes."""
        rules, state = self.replay.rules, self.replay.state
        seat = getattr(event, "seat", None)
        if not isinstance(seat, int) or seat not in {p.seat for p in rules.to_act(state)}:
            raise Invalid(version, f"{type(event).__name__} by seat {seat}, who was not to act")
        for move in rules.legal_moves(state, seat):
            if isinstance(event, MovePlayed) and move.id != event.move:
                continue
            batch = rules.decide(state, seat, move.id)
            if batch and batch[0] == event:
                return batch
        raise Invalid(version, f"illegal move by seat {seat}: {describe(event)}")

    def take(self, batch: list[Event]) -> None:
        """Consume the recorded events that must equal ``batch``."""
        for expected in batch:
            if self.at >= len(self.events):
                raise Invalid(self.replay.version + 1, f"the log ends before {describe(expected)}")
            version, event, _ = self.events[self.at]
            if event != expected:
                raise Invalid(version, f"expected {describe(expected)}, found {describe(event)}")
            self.replay.push(version, event)
            self.at += 1


def possible(need: ChanceNeed, event: Event) -> bool:
    """Whether a chance outcome could have come from ``need``."""
    match need, event:
        case Roll(dice=count), DiceRolled(dice=dice):
            return len(dice) == count and all(1 <= d <= 6 for d in dice)
        case Draw(pile=pile), CardDrawn(card=card):
            return card in pile
        case Deal(pile=pile, seats=seats, count=count), CardsDealt(seats=dealt, hands=hands):
            cards = [c for hand in hands for c in hand]
            left = list(pile)
            for card in cards:
                if card not in left:
                    return False
                left.remove(card)
            enough = len(hands) == len(seats) and all(len(hand) == count for hand in hands)
            return dealt == seats and enough
    return False


def describe(event: Event) -> str:
    """A short description of an event for messages."""
    fields = msgspec.to_builtins(event)
    fields.pop("type", None)
    return f"{type(event).__name__} {msgspec.json.encode(fields).decode()}"

"""Checking a game's log by judging it again: the referee runs once more on every command the
log records and must produce exactly the events recorded (with the same ``by``).

Each recorded act (a decision, a draw or roll, a posted outcome, an undo, an adjudication, a
clock running out) is turned back into the command that caused it and judged by ``judge``;
what follows by itself (automatic moves, automatic chance, the seed's reveal) comes out of the
same call. So the API, the import and the verifier cannot disagree: they are one code path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from domain.events import (
    Adjudicated,
    CardDrawn,
    CardExchanged,
    CardsDealt,
    DeckShuffled,
    DiceRolled,
    Event,
    GameCreated,
    GameFinished,
    HintsShown,
    MovePlayed,
    MoveUndone,
    SeatHandedOver,
    SeedRevealed,
    TimeExpired,
)
from domain.model import GameError
from domain.replay import CHANCE_EVENTS, Replay
from service.core import chance
from service.core.actor import Actor
from service.core.clocks import by_absence
from service.core.commands import (
    Adjudicate,
    Command,
    HandOver,
    PlayMove,
    PostChance,
    ShowHints,
    Timeout,
    Undo,
)
from service.core.luck import Luck, Recorded, Seeded
from service.core.referee import Batch, Verdict, describe, judge, open_game
from service.core.refusal import Refusal
from service.core.tables import recorded


class Entry(NamedTuple):
    """One event of a log as the referee checks it."""

    version: int
    event: Event
    by: int | str


class Invalid(Exception):
    """The first bad event of a log, and why."""

    def __init__(self, version: int, reason: str) -> None:
        super().__init__(f"event {version}: {reason}")
        self.version, self.reason = version, reason


def rejudge(log: Sequence[Entry], seed: str | None) -> tuple[Replay, Batch]:
    """The game folded from ``log``, and the events the referee made of it (equal to the
    log's), after checking that every event is what the referee makes
    of the recorded commands; Invalid names the first event that is not. ``seed`` checks server
    chance against the seed; without it each outcome needs only to be possible."""
    if not log or not isinstance(log[0].event, GameCreated):
        raise Invalid(1, "a game's log starts with GameCreated")
    created = log[0].event
    if seed is not None and chance.commitment(seed) != created.seed_commitment:
        raise Invalid(1, "the seed does not match its commitment")
    seeded = seed is not None and created.chance == "server"
    at = 0
    replay: Replay | None = None
    judged: Batch = []
    events = [e.event for e in log]
    while at < len(log):
        entry = log[at]
        luck: Luck = Seeded(seed) if seeded and seed else Recorded(events, at)
        try:
            if replay is None:
                verdict = open_game(created, luck)
            else:
                verdict = judge(replay, actor_of(entry), command_of(replay, entry, log, at), luck)
        except (Refusal, GameError) as refused:
            raise Invalid(entry.version, f"{describe(entry.event)}: {refused}") from None
        except (KeyError, ValueError) as error:
            raise Invalid(entry.version, f"bad game setup: {error}") from None
        compare(verdict, log, at, created.seed_commitment)
        at += len(verdict.batch)
        judged += verdict.batch
        replay = verdict.after
    assert replay is not None
    return replay, judged


def actor_of(entry: Entry) -> Actor:
    """The recorded ``by`` as an actor."""
    match entry.by:
        case int(seat):
            return seat
        case "referee":
            return "referee"
        case "server":
            return "server"
        case "bot":
            return "bot"
    raise Invalid(entry.version, f"unknown actor {entry.by!r}")


def command_of(replay: Replay, entry: Entry, log: Sequence[Entry], at: int) -> Command:
    """The command that made a recorded act."""
    event, version = entry.event, entry.version
    if (seating := recorded(event, entry.by)) is not None:
        return seating
    if entry.by == "server":
        if isinstance(event, TimeExpired):
            following = log[at + 1].event if at + 1 < len(log) else None
            handed = isinstance(following, SeatHandedOver) and following.seat == event.seat
            reason = getattr(following, "reason", None)
            absent = by_absence(replay.created, event.consequence, reason)
            return Timeout(event.seat, following.version if handed else 0, absent)  # type: ignore[union-attr]
        raise Invalid(version, f"{describe(event)} by the server, which nothing caused")
    match event:
        case MovePlayed(seat=seat, move=move):
            return PlayMove(move=move, seat=seat)
        case CardExchanged(seat=seat):
            return PlayMove(move=decision_id(replay, seat, event), seat=seat)
        case CardDrawn() | DiceRolled() | CardsDealt() if replay.created.chance == "external":
            return posted(event)
        case CardDrawn(seat=seat):
            return PlayMove(move="draw", seat=seat)
        case DiceRolled(seat=seat):
            return PlayMove(move="roll", seat=seat)
        case CardsDealt(dealer=seat):
            return PlayMove(move="deal", seat=seat)
        case MoveUndone(reason=reason):
            return Undo(reason=reason)
        case SeatHandedOver(seat=seat, bot=bot, version=level_version, reason=reason):
            return HandOver(bot or None, reason, seat=seat, version=level_version)
        case Adjudicated(kind=kind, reason=reason, seat=seat):
            following = log[at + 1].event if at + 1 < len(log) else None
            winners = list(following.winners) if isinstance(following, GameFinished) else None
            return Adjudicate(kind, reason, seat, winners)  # type: ignore[arg-type]
        case HintsShown(seat=seat, method=method):
            return ShowHints(seat, method)
        case DeckShuffled() if at + 1 < len(log):  # the reshuffle a draw finds due
            return command_of(replay, log[at + 1], log, at + 1)
        case SeedRevealed() | GameFinished():
            raise Invalid(version, f"{describe(event)}, which nothing caused")
    raise Invalid(version, f"{describe(event)} is not something {entry.by!r} does")


def decision_id(replay: Replay, seat: int, event: Event) -> str:
    """The id of the legal move of ``seat`` whose decision is ``event``."""
    for move in replay.rules.legal_moves(replay.state, seat):
        if move.uses == getattr(event, "card", None) and move.id.startswith("exchange:"):
            return move.id
    return "exchange:?"


def posted(event: Event) -> PostChance:
    """The referee's chance body that records ``event``."""
    match event:
        case CardDrawn(card=card):
            return PostChance(card=card)
        case DiceRolled(dice=dice):
            return PostChance(dice=list(dice))
        case CardsDealt(hands=hands):
            return PostChance(hands=[list(hand) for hand in hands])
    raise TypeError(event)


def compare(verdict: Verdict, log: Sequence[Entry], at: int, commitment: str) -> None:
    """The recorded events from ``at`` must be the verdict's batch, ``by`` included."""
    for offset, (by, expected) in enumerate(verdict.batch):
        if at + offset >= len(log):
            version = log[-1].version + 1
            raise Invalid(version, f"the log ends before {describe(expected)}")
        entry = log[at + offset]
        same_kind = type(entry.event) is type(expected)
        if isinstance(expected, CHANCE_EVENTS) and same_kind and entry.event != expected:
            raise Invalid(
                entry.version,
                f"the outcome does not match the seed: expected {describe(expected)}, "
                f"found {describe(entry.event)}",
            )
        if (entry.by, entry.event) != (by, expected):
            raise Invalid(
                entry.version,
                f"expected {describe(expected)} by {by!r}, found {describe(entry.event)} "
                f"by {entry.by!r}",
            )
        if isinstance(expected, SeedRevealed) and chance.commitment(expected.seed) != commitment:
            raise Invalid(entry.version, "the revealed seed does not match its commitment")

"""The referee: (the game so far, who acts, a command) -> the events it causes, or a refusal.

``judge`` is the one path from a command to events. It checks who may act and the expected
version, lets the rule set's ``decide`` judge a decision (only ``decide`` judges legality),
produces chance through a ``Luck``, and appends what follows by itself: automatic moves,
automatic chance and the seed's reveal. Live play, the import of a record and its verification
all call it; they differ only in their ``Luck`` (the sealed seed, or the record's outcomes).

Who acted is the truth: a seat acting is ``by`` that seat; the referee acting for a seat is
``by: "referee"`` on an event that names the seat; what follows by itself is ``by: "server"``.
"""

from __future__ import annotations

from typing import NamedTuple

import msgspec

from domain.events import (
    Adjudicated,
    CardDrawn,
    CardsDealt,
    DiceRolled,
    Event,
    GameCreated,
    GameFinished,
    MoveUndone,
    SeedRevealed,
    TimeExpired,
    TurnPassed,
)
from domain.model import CHANCE_KINDS, ChanceNeed, Deal, Draw, Move, Pending, Roll
from domain.replay import Replay
from service.core.actor import Actor, Role
from service.core.clocks import Clock
from service.core.commands import Adjudicate, Command, PlayMove, PostChance, Timeout, Undo
from service.core.luck import Luck, possible
from service.core.refusal import refuse

MAX_AUTOMATIC = 10_000
Batch = list[tuple[Actor, Event]]


class Verdict(NamedTuple):
    """What a command causes: the events (with who caused each) and the game after them."""

    batch: Batch
    after: Replay


def open_game(created: GameCreated, luck: Luck) -> Verdict:
    """A new game: its creation by the referee and what follows by itself."""
    return settle(Replay(created), [("referee", created)], luck, was_finished=False)


def judge(replay: Replay, actor: Role | Actor, command: Command, luck: Luck) -> Verdict:
    """The events ``command`` by ``actor`` causes on the game ``replay``, or a Refusal (or a
    domain GameError from ``decide``) that says why not. ``replay`` is not changed."""
    if actor is None:
        raise refuse("unauthorized", "writing needs a seat's or the referee's token")
    if isinstance(command, Timeout):
        if actor != "server":
            raise refuse("forbidden", "only the server's clock times a seat out")
        return follow(replay, timeout(replay, command.seat, luck), luck)
    if actor == "server":
        raise refuse("forbidden", "the server only acts on its own")
    check_version(replay, command.expected_version)
    if replay.state.finished and not isinstance(command, Undo):
        raise refuse("game-over", "the game is finished")
    match command:
        case PlayMove():
            batch = decision(replay, actor, command, luck)
        case Undo():
            batch = undo(replay, actor, command)
        case PostChance():
            batch = external_outcome(replay, actor, command)
        case Adjudicate():
            batch = adjudication(replay, actor, command)
    return follow(replay, batch, luck)


def check_version(replay: Replay, expected: int | None) -> None:
    """Refuse a write based on a version the game is no longer at."""
    if expected is not None and expected != replay.version:
        raise refuse(
            "version-conflict",
            f"expected_version {expected} but the game is at version {replay.version}",
            current_version=replay.version,
        )


def decision(replay: Replay, actor: Actor, command: PlayMove, luck: Luck) -> Batch:
    """A seat's decision, or its draw or roll, by the seat or by the referee for it."""
    seat = acting_seat(replay, actor, command.seat)
    rules, state = replay.rules, replay.state
    pending = rules.to_act(state)
    mine = [p for p in pending if p.seat == seat]
    if not mine:
        raise refuse("not-your-turn", not_your_turn(pending, seat))
    move_id = resolve_move(rules.legal_moves(state, seat), command)
    if move_id in CHANCE_KINDS and any(p.kind == move_id for p in mine):
        if replay.created.chance == "external":
            raise refuse("waiting-for-chance", "the referee posts the outcome in this game")
        need = rules.chance(state)
        if need is None:
            raise refuse("illegal-move", f"seat {seat} has nothing to draw or roll")
        return [(actor, luck.outcome(replay.chance_count, need, seat))]
    return [(actor, event) for event in rules.decide(state, seat, move_id)]


def acting_seat(replay: Replay, actor: Actor, asked: int | None) -> int:
    """The seat a move is for: the token's own, or for the referee the one asked or pending."""
    if isinstance(actor, int):
        if asked is not None and asked != actor:
            raise refuse("forbidden", f"this token plays for seat {actor}, not seat {asked}")
        return actor
    if asked is not None:
        count = len(replay.created.seats)
        if not 0 <= asked < count:
            raise refuse("validation-failed", f"seats are numbered 0 to {count - 1}")
        return asked
    seats = sorted({p.seat for p in replay.rules.to_act(replay.state)})
    if len(seats) != 1:
        raise refuse("validation-failed", f"seats {seats} are pending: say which with 'seat'")
    return seats[0]


def resolve_move(moves: list[Move], command: PlayMove) -> str:
    """The move id named by id or by steps; any id goes on to ``decide``, which judges it."""
    if (command.move is None) == (command.steps is None):
        raise refuse("validation-failed", "give exactly one of 'move' (an id) or 'steps'")
    if command.move is not None:
        return command.move
    wanted = tuple(command.steps or ())
    for move in moves:
        if move.steps == wanted:
            return move.id
    shown = ", ".join(f"{s.piece} {s.from_}>{s.to}" for s in wanted) or "no steps"
    raise refuse("illegal-move", f"no legal move has the steps {shown}")


def not_your_turn(pending: list[Pending], seat: int) -> str:
    """Who is to act instead of ``seat``."""
    if not pending:
        return f"seat {seat} has nothing to do now"
    waiting = ", ".join(f"seat {p.seat} ({p.kind})" for p in pending)
    return f"it is not seat {seat}'s turn: waiting for {waiting}"


def undo(replay: Replay, actor: Actor, command: Undo) -> Batch:
    """Revert the latest decision, or for the referee of an external-chance game the latest
    outcome no decision has followed (a mistyped card or die). Needs a complete replay."""
    if actor == "referee":
        target = replay.last_chance() if replay.created.chance == "external" else None
        target = target or replay.last_decision()
    else:
        target = replay.last_decision()
    if target is None:
        raise refuse("nothing-to-undo", "there is no decision left to undo")
    if actor != "referee":
        check_own_undo(replay, actor, target)
    return [(actor, MoveUndone(target, command.reason))]


def check_own_undo(replay: Replay, seat: Actor, target: int) -> None:
    """A seat may undo only its own decision, where the game allows it, while nobody else has
    acted and no card or die it had not seen has come out since."""
    if not replay.created.allow_undo:
        raise refuse("forbidden", "this game allows undo by the referee only")
    decided, *since = replay.since(target)
    if decided.by != seat:
        raise refuse("forbidden", f"the latest decision was made by {who(decided.by)}, not you")
    for frame in since:
        if frame.by not in (seat, "server"):
            raise refuse("forbidden", f"{who(frame.by)} has acted since your decision")
        if frame.chance:
            raise refuse(
                "forbidden", "a card or die has come out since your decision; ask the referee"
            )


def who(by: int | str | None) -> str:
    """An actor in words."""
    return f"seat {by}" if isinstance(by, int) else f"the {by}"


def external_outcome(replay: Replay, actor: Actor, command: PostChance) -> Batch:
    """The referee's outcome for the pending draw, deal or roll, checked against the rules."""
    if actor != "referee":
        raise refuse("forbidden", "only the referee posts chance outcomes")
    if replay.created.chance != "external":
        raise refuse("forbidden", "this game's chance is the server's, not external")
    rules, state = replay.rules, replay.state
    pending = [p for p in rules.to_act(state) if p.kind in CHANCE_KINDS]
    need = rules.chance(state)
    if not pending or need is None:
        raise refuse("not-your-turn", "no draw or roll is pending")
    seat = pending[0].seat
    match need:
        case Roll() if command.dice is not None:
            event: Event = DiceRolled(seat, tuple(command.dice))
        case Draw() if command.card is not None:
            event = CardDrawn(seat, command.card)
        case Deal(seats=seats) if command.hands is not None:
            event = CardsDealt(seat, seats, tuple(tuple(h) for h in command.hands))
        case _:
            raise refuse("validation-failed", f"seat {seat} must {pending[0].kind}: {wanted(need)}")
    if not possible(need, event):
        raise refuse("illegal-move", f"{describe(event)} is not possible now: {wanted(need)}")
    return [("referee", event)]


def wanted(need: ChanceNeed) -> str:
    """What a chance body must hold for ``need``."""
    match need:
        case Roll(dice=count):
            return f"post {{'dice': [...]}} with {count} value(s) from 1 to 6"
        case Draw(pile=pile):
            return f"post {{'card': ...}}, one of {sorted(set(pile))}"
        case Deal(seats=seats, count=count):
            return (
                f"post {{'hands': [...]}}: {count} cards for each of seats {list(seats)}, "
                "one list per seat in that order"
            )
    return "an outcome"


def adjudication(replay: Replay, actor: Actor, command: Adjudicate) -> Batch:
    """A referee's decision on record; a forfeit or an agreement ends the game."""
    if actor != "referee":
        raise refuse("forbidden", "only the referee adjudicates")
    seats = range(len(replay.created.seats))
    named = [s for s in [command.seat, *(command.winners or [])] if s is not None]
    if any(s not in seats for s in named):
        raise refuse("validation-failed", f"seats are numbered 0 to {len(seats) - 1}")
    decision = Adjudicated(command.kind, command.reason, command.seat)
    if command.kind == "penalty":
        return [("referee", decision)]
    if command.kind == "forfeit":
        if command.seat is None:
            raise refuse("validation-failed", "a forfeit names the seat that forfeits")
        others = [s for s in seats if s != command.seat]
        winners = command.winners if command.winners is not None else others
    else:
        if command.winners is None:
            raise refuse("validation-failed", "an agreement names its winners (may be [])")
        winners = command.winners
    finished = GameFinished(tuple(winners), f"{command.kind}: {command.reason}")
    return [("referee", decision), ("referee", finished)]


def timeout(replay: Replay, seat: int, luck: Luck) -> Batch:
    """What a seat running out of time causes, as the game's clock says.

    A pending draw, deal or roll is made for the seat whatever the clock says (chance is
    never skipped). ``pass`` forfeits a pending move's card or throw as when no move exists;
    a pending exchange or discard cannot be passed, so it gets a random legal choice.
    """
    rules, state, created = replay.rules, replay.state, replay.created
    kinds = {p.kind for p in rules.to_act(state) if p.seat == seat}
    if created.clock is None or not kinds or state.finished:
        raise refuse("not-your-turn", f"seat {seat} is not on a clock now")
    consequence = msgspec.convert(created.clock, Clock).on_timeout
    if consequence == "pass" and "move" not in kinds:
        consequence = "random_move"
    expired: Batch = [("server", TimeExpired(seat, consequence))]
    if consequence == "forfeit":
        others = tuple(s for s in range(len(created.seats)) if s != seat)
        return [*expired, ("server", GameFinished(others, f"seat {seat} ran out of time"))]
    if consequence == "pass":
        return [*expired, ("server", TurnPassed(seat, "ran out of time: the turn passes"))]
    move = luck.pick(replay.version, rules.legal_moves(state, seat))
    if move.id in CHANCE_KINDS:
        need = rules.chance(state)
        assert need is not None
        return [*expired, ("server", luck.outcome(replay.chance_count, need, seat))]
    return [*expired, *(("server", e) for e in rules.decide(state, seat, move.id))]


def follow(replay: Replay, batch: Batch, luck: Luck) -> Verdict:
    """``batch`` played on a fork of ``replay``, and what follows it by itself."""
    after = fork(replay)
    for by, event in batch:
        after.push(after.version + 1, event, by)
    return settle(after, batch, luck, was_finished=bool(replay.state.finished))


def settle(after: Replay, batch: Batch, luck: Luck, was_finished: bool) -> Verdict:
    """The batch (already folded into ``after``) and what follows it by itself: automatic
    events, automatic chance, and the seed's reveal when the game ends."""
    batch = list(batch)
    for _ in range(MAX_AUTOMATIC):
        step = after.rules.automatic(after.state)
        if not step and not after.state.finished and after.created.auto_chance:
            step = auto_chance(after, luck)
        if not step:
            break
        for event in step:
            after.push(after.version + 1, event, "server")
            batch.append(("server", event))
    else:
        raise RuntimeError("automatic events did not settle")
    if after.state.finished and not was_finished:
        revealed = SeedRevealed(luck.seed())
        after.push(after.version + 1, revealed, "server")
        batch.append(("server", revealed))
    return Verdict(batch, after)


def auto_chance(replay: Replay, luck: Luck) -> list[Event]:
    """The pending draw or roll made at once (games with ``auto_chance`` and server chance)."""
    if replay.created.chance != "server":
        return []
    for pending in replay.rules.to_act(replay.state):
        if pending.kind in CHANCE_KINDS:
            need = replay.rules.chance(replay.state)
            assert need is not None
            return [luck.outcome(replay.chance_count, need, pending.seat)]
    return []


def fork(replay: Replay) -> Replay:
    """A replay that shares ``replay``'s frames (immutable) and goes on from them."""
    copy = Replay.__new__(Replay)
    copy.__dict__.update(replay.__dict__)
    copy.snapshots = dict(replay.snapshots)
    return copy


def describe(event: Event) -> str:
    """A short description of an event for messages."""
    fields = msgspec.to_builtins(event)
    fields.pop("type", None)
    return f"{type(event).__name__} {msgspec.json.encode(fields).decode()}"

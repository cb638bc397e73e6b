"""The referee: (the game so far, who acts, a command) -> the events it causes, or a refusal.

``judge`` is the one path from a command to events. It checks who may act and the expected
version, lets the rule set's ``decide`` judge a decision (only ``decide`` judges legality),
produces chance through a ``Luck``, and appends what follows by itself: automatic moves,
automatic chance and the seed's reveal. Live play, the import of a record and its verification
all call it; they differ only in their ``Luck`` (the sealed seed, or the record's outcomes).

Who acted is the truth: a seat acting is ``by`` that seat; the referee acting for a seat is
``by: "referee"`` on an event that names the seat; a bot playing a seat (``GameCreated.bots``,
``SeatHandedOver``) is ``by: "bot"`` on an event that names the seat, and while a bot plays a
seat that seat's own token cannot move; what follows by itself is ``by: "server"``.

A seat that belongs to a registered player (``GameCreated.players``) is that player's alone:
the referee's token plays no move for it, hands it to no bot and back, names it in no
adjudication (nor ends its game: a forfeit or an agreement settles every seat's result) and
undoes none of its decisions; the player hands it to a bot and back (``by`` that seat), and
the clock's consequences (``by: "server"``) apply as to any seat.

A table that gathers (``domain.tables``: open or invited seats) takes only the commands that
seat it (``service.core.tables``) and refuses every other with 409 ``table-gathering``: no
move, draw, undo, adjudication, hand-over or hint, and nothing follows by itself. The seat
that fills it starts it (``TableStarted`` by the server), and what follows by itself comes in
the same verdict: the first chance, as in a new game.
"""

from __future__ import annotations

from typing import NamedTuple

import msgspec

from domain.events import (
    Adjudicated,
    CardDrawn,
    CardsDealt,
    DeckShuffled,
    DiceRolled,
    Event,
    GameCreated,
    GameFinished,
    HintsShown,
    MoveUndone,
    SeatHandedOver,
    SeedRevealed,
    TableStarted,
    TimeExpired,
    TurnPassed,
)
from domain.model import CHANCE_KINDS, ChanceNeed, Deal, Draw, Pending, Roll
from domain.replay import Frame, Replay
from service.core.actor import Actor, Role
from service.core.clocks import Clock, absence_of, absence_reason
from service.core.commands import (
    TABLE_COMMANDS,
    Adjudicate,
    Command,
    HandOver,
    PlayMove,
    PostChance,
    ShowHints,
    Timeout,
    Undo,
)
from service.core.fields import Path, bad_field, field_range
from service.core.luck import Luck, possible
from service.core.refusal import Refusal, refuse
from service.core.seating import timeout_bot
from service.core.tables import ready, seating

MAX_AUTOMATIC = 100_000
"""The most automatic steps one command causes. A race35 game with server chance plays itself
whole at creation (a six-seat one on the default layout: about 2,000 events, 15,544 the most in
3,000 games); race35 refuses a layout whose games could not end or would be far longer, so this
bound is met only by extraordinary luck, and the command is then refused, nothing written."""
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
    if isinstance(command, TABLE_COMMANDS):
        return follow(replay, seating(replay, actor, command), luck)
    if actor is None:
        raise refuse("unauthorized", "writing needs a seat's or the referee's token")
    if replay.gathering:
        seats = ", ".join(str(s + 1) for s in replay.gathering)
        why = f"the table is gathering: seats {seats} wait for players, and nobody acts before"
        raise refuse("table-gathering", why, seats=list(replay.gathering))
    if isinstance(command, Timeout):
        if actor != "server":
            raise refuse("forbidden", "only the server's clock times a seat out")
        return follow(replay, timeout(replay, command, luck), luck)
    if actor == "server":
        raise refuse("forbidden", "the server only acts on its own")
    if actor == "bot" and not isinstance(command, PlayMove):
        raise refuse("forbidden", "a bot only plays its seat's moves")
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
        case HandOver():
            batch = hand_over(replay, actor, command)
        case ShowHints():
            batch = hints_shown(replay, actor, command)
    return follow(replay, batch, luck)


def hints_shown(replay: Replay, actor: Actor, command: ShowHints) -> Batch:
    """A seat shown hints, in a game that allows them, by that seat alone."""
    if not replay.created.allow_hints:
        raise refuse("hints-not-allowed", "this game was not created with allow_hints: true")
    if actor != command.seat:
        raise refuse("forbidden", "hints are for a seat alone, asked with its own token")
    return [(actor, HintsShown(command.seat, replay.version, command.method))]


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
    if actor == "referee":
        not_for_player(replay, seat, "plays no move for it")
    rules, state = replay.rules, replay.state
    pending = rules.to_act(state)
    mine = [p for p in pending if p.seat == seat]
    if not mine:
        raise refuse("not-your-turn", not_your_turn(pending, seat))
    move_id = resolve_move(replay, seat, command)
    if move_id in CHANCE_KINDS and any(p.kind == move_id for p in mine):
        if replay.created.chance == "external":
            raise refuse("waiting-for-chance", "the referee posts the outcome in this game")
        need = rules.chance(state)
        if need is None:
            raise refuse("illegal-move", f"seat {seat + 1} has nothing to draw or roll")
        outcome = luck.outcome(replay.chance_count, need, seat)
        return [(actor, event) for event in drawn(need, outcome)]
    return [(actor, event) for event in rules.decide(state, seat, move_id)]


def acting_seat(replay: Replay, actor: Actor, asked: int | None) -> int:
    """The seat a move is for: the token's own, or for the referee the one asked or pending;
    a seat a bot plays takes moves from its bot and the referee only."""
    if isinstance(actor, int):
        if asked is not None and asked != actor:
            why = f"this token plays for seat {actor + 1}, not seat {asked + 1}"
            raise refuse("forbidden", why)
        if (level := replay.bot_of(actor)) is not None:
            back = "its player" if player_of(replay, actor) else "the referee"
            why = f"seat {actor + 1} is played by the bot `{level}`; {back} can hand it back"
            raise refuse("forbidden", why)
        return actor
    if actor == "bot":
        if asked is None or replay.bot_of(asked) is None:
            seat = "that seat" if asked is None else f"seat {asked + 1}"
            raise refuse("forbidden", f"no bot plays {seat}")
        return asked
    if asked is not None:
        count = len(replay.created.seats)
        if not 0 <= asked < count:
            raise bad_field(("seat",), field_range(count, asked))
        return asked
    seats = sorted({p.seat for p in replay.rules.to_act(replay.state)})
    if len(seats) != 1:
        pending = ", ".join(str(s + 1) for s in seats)
        why = f"seats {pending} are pending: say which in `seat`"
        raise bad_field(("seat",), why, allowed=seats)
    return seats[0]


def resolve_move(replay: Replay, seat: int, command: PlayMove) -> str:
    """The move id named by id, or by steps (looked up among the seat's legal moves, which
    only then are listed); any id goes on to ``decide``, which judges it."""
    if (command.move is None) == (command.steps is None):
        raise bad_field(("move",), "give exactly one of `move` (an id) or `steps`")
    if command.move is not None:
        return command.move
    wanted = tuple(command.steps or ())
    for move in replay.rules.legal_moves(replay.state, seat):
        if move.steps == wanted:
            return move.id
    shown = ", ".join(f"{s.piece} {s.from_}>{s.to}" for s in wanted) or "no steps"
    raise refuse("illegal-move", f"no legal move has the steps {shown}")


def not_your_turn(pending: list[Pending], seat: int) -> str:
    """Who is to act instead of ``seat``."""
    if not pending:
        return f"seat {seat + 1} has nothing to do now"
    waiting = ", ".join(f"seat {p.seat + 1} ({p.kind})" for p in pending)
    return f"it is not seat {seat + 1}'s turn: waiting for {waiting}"


def undo(replay: Replay, actor: Actor, command: Undo) -> Batch:
    """Revert the latest decision, or for the referee of an external-chance game the latest
    outcome no decision has followed (a mistyped card or die). Needs a complete replay."""
    chance = None
    if actor == "referee" and replay.created.chance == "external":
        chance = replay.last_chance()
    target = chance or replay.last_decision()
    if target is None:
        raise refuse("nothing-to-undo", "there is no decision left to undo")
    if actor != "referee":
        check_own_undo(replay, actor, target)
    elif chance is None:
        for seat in decided_for(replay, replay.since(target)[0]):
            not_for_player(replay, seat, "undoes none of its decisions")
    return [(actor, MoveUndone(target, command.reason))]


def decided_for(replay: Replay, decided: Frame) -> list[int]:
    """The seats a decision may have been made for: its seat's own, else (the referee's or a
    bot's) the seats pending before it (of those, the ones a bot played, for a bot's)."""
    if isinstance(decided.by, int) or decided.parent is None:
        return [decided.by] if isinstance(decided.by, int) else []
    before = decided.parent
    pending = sorted({p.seat for p in replay.rules.to_act(before.state)})
    if decided.by == "bot":
        return [seat for seat in pending if seat < len(before.bots) and before.bots[seat]]
    return pending


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
    return f"seat {by + 1}" if isinstance(by, int) else f"the {by}"


def external_outcome(replay: Replay, actor: Actor, command: PostChance) -> Batch:
    """The referee's outcome for the pending draw, deal or roll, checked against the rules."""
    if actor != "referee":
        raise refuse("forbidden", "only the referee posts chance outcomes")
    if replay.created.chance != "external":
        raise refuse("forbidden", "this game's chance is the server's, not external")
    if replay.created.rated and replay.created.players:
        why = "a rated game with players' seats takes its chance from the server"
        raise refuse("forbidden", why)
    rules, state = replay.rules, replay.state
    pending = [p for p in rules.to_act(state) if p.kind in CHANCE_KINDS]
    need = rules.chance(state)
    if not pending or need is None:
        raise refuse("not-your-turn", "no draw or roll is pending")
    event = posted(need, pending[0], command)
    if not possible(need, event):
        raise unavailable(need, event)
    return [("referee", drawn_event) for drawn_event in drawn(need, event)]


def posted(need: ChanceNeed, pending: Pending, command: PostChance) -> Event:
    """The outcome a chance body holds for ``need``; a body of the wrong shape (the wrong
    field, dice or hands too many or too few, a die off 1..6) is refused naming the field."""
    seat, must = pending.seat, f"seat {pending.seat + 1} must {pending.kind}"
    match need:
        case Roll(dice=count):
            dice, thrown = command.dice, "1 die" if count == 1 else f"{count} dice"
            if dice is None:
                raise bad_field(("dice",), f"{must}: post `dice`, {thrown} from 1 to 6")
            if len(dice) != count:
                raise bad_field(("dice",), f"{thrown} thrown, not {len(dice)}")
            for index, die in enumerate(dice):
                if not 1 <= die <= 6:
                    raise bad_field(("dice", index), f"a die shows 1 to 6, not {die}")
            return DiceRolled(seat, tuple(dice))
        case Draw(pile=pile):
            if command.card is None:
                cards = sorted(set(pile))
                raise bad_field(
                    ("card",), f"{must}: post `card`, a card of the pile", allowed=cards
                )
            return CardDrawn(seat, command.card)
        case Deal(seats=seats, count=count):
            hands, order = command.hands, ", ".join(str(s + 1) for s in seats)
            if hands is None or len(hands) != len(seats):
                given = "" if hands is None else f", not {len(hands)}"
                raise bad_field(
                    ("hands",),
                    f"{must}: post `hands`, {len(seats)} lists of {count} cards (for seats "
                    f"{order}, in that order){given}",
                )
            for index, hand in enumerate(hands):
                if len(hand) != count:
                    raise bad_field(
                        ("hands", index),
                        f"seat {seats[index] + 1} is dealt {count} cards, not {len(hand)}",
                    )
            return CardsDealt(seat, seats, tuple(tuple(hand) for hand in hands))
    raise TypeError(f"unknown chance need {type(need).__name__}")


def unavailable(need: ChanceNeed, event: Event) -> Refusal:
    """The 422 of a well-formed outcome that cannot come now: a card not left in the pile."""
    match need, event:
        case Draw(pile=pile), CardDrawn(card=card):
            cards = sorted(set(pile))
            why = f"card `{card}` is not in the draw pile now; post one of {listed(cards)}"
            return bad_field(("card",), why, "illegal-move", cards)
        case Deal(pile=pile), CardsDealt(hands=hands):
            left = list(pile)
            for index, hand in enumerate(hands):
                for place, card in enumerate(hand):
                    if card not in left:
                        cards = sorted(set(left))
                        why = f"card `{card}` is not left in the pile to deal: {listed(cards)}"
                        return bad_field(("hands", index, place), why, "illegal-move", cards)
                    left.remove(card)
    return refuse("illegal-move", f"{describe(event)} is not possible now")


def listed(values: list[str]) -> str:
    """Values for a detail: `a`, `b`, `c`."""
    return ", ".join(f"`{value}`" for value in values)


def adjudication(replay: Replay, actor: Actor, command: Adjudicate) -> Batch:
    """A referee's decision on record; a forfeit or an agreement ends the game."""
    if actor != "referee":
        raise refuse("forbidden", "only the referee adjudicates")
    seats = range(len(replay.created.seats))
    named: list[tuple[Path, int]] = [(("seat",), command.seat)] if command.seat is not None else []
    named += [(("winners", index), s) for index, s in enumerate(command.winners or [])]
    for path, named_seat in named:
        if named_seat not in seats:
            raise bad_field(path, field_range(len(seats), named_seat))
    owned = [seat for seat in seats if player_of(replay, seat) is not None]
    if command.kind != "penalty":
        settles = f"ends no game it sits in (a {command.kind} settles every seat's result)"
        for seat in owned:
            not_for_player(replay, seat, settles)
    elif command.seat is not None:
        not_for_player(replay, command.seat, "names it in no penalty")
    decision = Adjudicated(command.kind, command.reason, command.seat)
    if command.kind == "penalty":
        return [("referee", decision)]
    if command.kind == "forfeit":
        if command.seat is None:
            raise bad_field(("seat",), "a forfeit names the seat that forfeits")
        others = [s for s in seats if s != command.seat]
        winners = command.winners if command.winners is not None else others
    else:
        if command.winners is None:
            raise bad_field(("winners",), "an agreement names its winners (may be [])")
        winners = command.winners
    finished = GameFinished(tuple(winners), f"{command.kind}: {command.reason}")
    return [("referee", decision), ("referee", finished)]


def hand_over(replay: Replay, actor: Actor, command: HandOver) -> Batch:
    """The referee, or the player a seat belongs to, hands the seat to a bot (checked by the
    use case: the level exists and plays this rule set) or back to its player."""
    own = actor == command.seat and player_of(replay, command.seat) is not None
    if actor != "referee" and not own:
        why = "only the referee, or the player a seat belongs to, hands it to a bot or back"
        raise refuse("forbidden", why)
    seats = len(replay.created.seats)
    if not 0 <= command.seat < seats:
        raise bad_field(("seat",), field_range(seats, command.seat))
    if actor == "referee":
        not_for_player(replay, command.seat, "hands it to no bot, nor back")
    held = replay.bot_of(command.seat)
    if command.bot is None:
        if held is None:
            why = f"no bot plays seat {command.seat + 1}: nothing to hand back"
            raise refuse("not-your-turn", why)
        return [(actor, SeatHandedOver(command.seat, reason=command.reason))]
    if held == command.bot:
        raise refuse("not-your-turn", f"the bot `{held}` plays seat {command.seat + 1} already")
    handed = SeatHandedOver(command.seat, command.bot, command.version, command.reason)
    return [(actor, handed)]


def player_of(replay: Replay, seat: int) -> str | None:
    """The handle of the registered player ``seat`` belongs to, or None (a free name)."""
    for owned in replay.players:
        if owned.seat == seat:
            return owned.handle
    return None


def not_for_player(replay: Replay, seat: int, act: str) -> None:
    """Refuse the referee's ``act`` for a seat that belongs to a registered player."""
    if (handle := player_of(replay, seat)) is not None:
        why = f"seat {seat + 1} belongs to the player `{handle}`: the referee's token {act}"
        raise refuse("forbidden", f"{why}; only the player's key acts for it")


def timeout(replay: Replay, command: Timeout, luck: Luck) -> Batch:
    """What a seat running out of time causes, as the game's clock says; or, for a seat away
    too long (``command.absent``), as the game's absence rule says, the reason saying so.

    A pending draw, deal or roll is made for the seat whatever the clock says (chance is
    never skipped). ``pass`` forfeits a pending move's card or throw as when no move exists;
    a pending exchange or discard cannot be passed, so it gets a random legal choice.
    ``bot:<level>`` hands the seat to that bot (of the level's ``version``), which plays on.
    """
    rules, state, created, seat = replay.rules, replay.state, replay.created, command.seat
    kinds = {p.kind for p in rules.to_act(state) if p.seat == seat}
    consequence, why = timed_out(created, command.absent)
    if consequence is None or not kinds or state.finished:
        raise refuse("not-your-turn", f"seat {seat + 1} is not on a clock now")
    if consequence == "pass" and "move" not in kinds:
        consequence = "random_move"
    expired: Batch = [("server", TimeExpired(seat, consequence))]
    if consequence == "forfeit":
        others = tuple(s for s in range(len(created.seats)) if s != seat)
        return [*expired, ("server", GameFinished(others, f"seat {seat + 1} {why}"))]
    if consequence == "pass":
        return [*expired, ("server", TurnPassed(seat, f"{why}: the turn passes"))]
    if (level := timeout_bot(consequence)) is not None and replay.bot_of(seat) != level:
        handed = SeatHandedOver(seat, level, command.version, why)
        return [*expired, ("server", handed)]
    move = luck.pick(replay.version, rules.legal_moves(state, seat))
    if move.id in CHANCE_KINDS:
        need = rules.chance(state)
        assert need is not None
        outcome = luck.outcome(replay.chance_count, need, seat)
        return [*expired, *(("server", event) for event in drawn(need, outcome))]
    return [*expired, *(("server", e) for e in rules.decide(state, seat, move.id))]


def timed_out(created: GameCreated, absent: bool) -> tuple[str | None, str]:
    """The consequence of a seat's time out (None: the game has no such rule) and the reason
    its events give: the clock's ``on_timeout``, or the absence rule's ``then``."""
    if absent:
        absence = absence_of(created)
        return (absence.then, absence_reason(absence)) if absence else (None, "")
    if created.clock is None:
        return None, ""
    return msgspec.convert(created.clock, Clock).on_timeout, "ran out of time"


def follow(replay: Replay, batch: Batch, luck: Luck) -> Verdict:
    """``batch`` played on a fork of ``replay``, and what follows it by itself."""
    after = fork(replay)
    for by, event in batch:
        after.push(after.version + 1, event, by)
    return settle(after, batch, luck, was_finished=bool(replay.state.finished))


def settle(after: Replay, batch: Batch, luck: Luck, was_finished: bool) -> Verdict:
    """The batch (already folded into ``after``) and what follows it by itself: a gathering
    table's start once its last seat is taken, automatic events, automatic chance, and the
    seed's reveal when the game ends. Nothing follows while a table gathers."""
    batch = list(batch)
    if ready(after):
        after.push(after.version + 1, TableStarted(), "server")
        batch.append(("server", TableStarted()))
    for _ in range(MAX_AUTOMATIC):
        if after.gathering:
            break
        step = after.rules.automatic(after.state)
        if not step and not after.state.finished and after.created.auto_chance:
            step = auto_chance(after, luck)
        if not step:
            break
        for event in step:
            after.push(after.version + 1, event, "server")
            batch.append(("server", event))
    else:
        raise refuse(
            "bad-setup",
            f"the game's automatic play did not settle within {MAX_AUTOMATIC:,} steps (a "
            "race35 game with server chance plays itself whole): nothing was written; try "
            "another seed or a layout with fewer red squares",
        )
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
            return drawn(need, luck.outcome(replay.chance_count, need, pending.seat))
    return []


def drawn(need: ChanceNeed, outcome: Event) -> list[Event]:
    """A chance outcome, after the reshuffle its draw finds due (``Draw.reshuffled``): the
    ``DeckShuffled`` comes with the draw, by whoever draws."""
    if isinstance(need, Draw) and need.reshuffled:
        return [DeckShuffled(cards=need.reshuffled), outcome]
    return [outcome]


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

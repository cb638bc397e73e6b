"""The referee's side of a game: undo rights, external chance, adjudication, timeouts.

Pure functions of a game's projection that return the events to append (or raise a problem);
``Games`` appends them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain.events import (
    Adjudicated,
    CardDrawn,
    CardsDealt,
    DiceRolled,
    Event,
    GameFinished,
    TimeExpired,
    TurnPassed,
)
from domain.model import CHANCE_KINDS, ChanceNeed, Deal, Draw, Roll, Viewer
from eventstore import StoredEvent
from service import chance
from service.problems import problem
from service.verify import describe, possible
from service.wire import Adjudicate, PostChance

if TYPE_CHECKING:
    from service.games import Actor, Game


def check_own_undo(game: Game, role: Viewer, target: int, since: list[StoredEvent]) -> None:
    """A seat may undo only its own decision, where allowed, if nobody has acted since."""
    if not game.secrets.allow_undo:
        raise problem("forbidden", "this game allows undo by the referee only")
    if since[0].by != role:
        raise problem("forbidden", f"the latest decision is seat {since[0].by}'s, not yours")
    others = [e for e in since[1:] if e.by not in (role, "server")]
    if others:
        raise problem("forbidden", f"{others[0].by} has acted since your decision")


def external_outcome(game: Game, command: PostChance) -> Event:
    """The referee's outcome for the pending draw, deal or roll, checked against the rules."""
    rules, state = game.rules, game.replay.state
    pending = [p for p in rules.to_act(state) if p.kind in CHANCE_KINDS]
    need = rules.chance(state)
    if not pending or need is None:
        raise problem("not-your-turn", "no draw or roll is pending")
    seat = pending[0].seat
    match need:
        case Roll() if command.dice is not None:
            event: Event = DiceRolled(seat, tuple(command.dice))
        case Draw() if command.card is not None:
            event = CardDrawn(seat, command.card)
        case Deal(seats=seats) if command.hands is not None:
            event = CardsDealt(seat, seats, tuple(tuple(h) for h in command.hands))
        case _:
            raise problem(
                "validation-failed", f"seat {seat} must {pending[0].kind}: {wanted(need)}"
            )
    if not possible(need, event):
        raise problem("illegal-move", f"{describe(event)} is not possible now: {wanted(need)}")
    return event


def wanted(need: ChanceNeed) -> str:
    """What a chance body must hold for ``need``."""
    match need:
        case Roll(dice=count):
            return f"post {{'dice': [...]}} with {count} value(s) from 1 to 6"
        case Draw(pile=pile):
            return f"post {{'card': ...}}, one of {sorted(set(pile))}"
        case Deal(seats=seats, count=count):
            return f"post {{'hands': [...]}}: {count} cards for each of seats {list(seats)}"
    return "an outcome"


def adjudication(game: Game, command: Adjudicate) -> list[Event]:
    """The events of a referee's decision, checked against the game's seats."""
    seats = range(len(game.created.seats))
    named = [s for s in [command.seat, *(command.winners or [])] if s is not None]
    if any(s not in seats for s in named):
        raise problem("validation-failed", f"seats are numbered 0 to {len(seats) - 1}")
    decision = Adjudicated(command.kind, command.reason, command.seat)
    if command.kind == "penalty":
        return [decision]
    if command.kind == "forfeit":
        if command.seat is None:
            raise problem("validation-failed", "a forfeit names the seat that forfeits")
        others = [s for s in seats if s != command.seat]
        winners = command.winners if command.winners is not None else others
    else:
        if command.winners is None:
            raise problem("validation-failed", "an agreement names its winners (may be [])")
        winners = command.winners
    return [decision, GameFinished(tuple(winners), f"{command.kind}: {command.reason}")]


def timeout_events(game: Game, seat: int) -> list[tuple[Actor, Event]]:
    """What a seat running out of time causes, as the game's clock says.

    A pending draw, deal or roll is made for the seat whatever the clock says (chance is
    never skipped). ``pass`` forfeits a pending move's card or throw as when no move exists;
    a pending exchange or discard cannot be passed, so it gets a random legal choice.
    """
    assert game.clock is not None
    rules, state = game.rules, game.replay.state
    consequence = game.clock.clock.on_timeout
    kinds = {p.kind for p in rules.to_act(state) if p.seat == seat}
    if consequence == "pass" and "move" not in kinds:
        consequence = "random_move"
    expired: list[tuple[Actor, Event]] = [("server", TimeExpired(seat, consequence))]
    if consequence == "forfeit":
        others = tuple(s for s in range(len(game.created.seats)) if s != seat)
        return [*expired, ("server", GameFinished(others, f"seat {seat} ran out of time"))]
    if consequence == "pass":
        return [*expired, ("server", TurnPassed(seat, "ran out of time: the turn passes"))]
    moves = rules.legal_moves(state, seat)
    move = moves[chance.draw_number(game.secrets.seed, game.version, part=-1) % len(moves)]
    if move.id in CHANCE_KINDS:
        need = rules.chance(state)
        assert need is not None
        outcome = chance.outcome(game.secrets.seed, game.replay.chance_count, need, seat)
        return [*expired, ("server", outcome)]
    return [*expired, *(("server", e) for e in rules.decide(state, seat, move.id))]

"""The old French 35-square odds-and-evens race (rule set ``race35``, rules/race35.md).

One pawn per player on squares 1..35. Even throws and 3 go forward, 1 and 5 go back; the
throw plays itself, so a seat's only action is ``roll``. Positions: ``track:1`` .. ``track:34``
and ``home`` for the goal square 35.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec.structs import replace

from domain import model
from domain.events import DiceRolled, Event, GameFinished, MovePlayed, TurnPassed, no_secrets
from domain.model import (
    ChanceNeed,
    Effect,
    GameOver,
    IllegalMove,
    Move,
    NotYourTurn,
    Pending,
    Piece,
    Roll,
    Step,
    Viewer,
    chance_move,
    check_players,
    home_counts,
    parse_options,
    piece_id,
    status_of,
)
from domain.race35_layout import FORWARD_THROWS as FORWARD_THROWS
from domain.race35_layout import GOAL as GOAL
from domain.race35_layout import check, travel

NAME = "race35"
VERSION = 1
MIN_PLAYERS = 2
MAX_PLAYERS = 6
Square = Literal[
    "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18",
    "19", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29", "30", "31", "32", "33", "34",
]  # fmt: skip
"""A square that may be special: any but the first and the goal."""
SquareType = Literal["green", "blue", "red", "tricolour"]
DEFAULT_SQUARES: dict[Square, SquareType] = {
    **dict.fromkeys(("9", "18", "27"), "green"),
    "21": "blue",
    **dict.fromkeys(("14", "32"), "red"),
    **dict.fromkeys(("5", "12", "24", "29"), "tricolour"),
}


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The options of race35."""

    special_squares: Annotated[
        dict[Square, SquareType],
        msgspec.Meta(
            description="the type of each special square (the rest are plain): green misses a "
            "turn, blue waits, red restarts, tricolour moves again"
        ),
    ] = msgspec.field(default_factory=lambda: dict(DEFAULT_SQUARES))
    red_square_effect: Annotated[
        Literal["restart_game", "restart_player"],
        msgspec.Meta(
            description="restart_game: every pawn goes back to square 1; restart_player: only "
            "the pawn that landed"
        ),
    ] = "restart_game"
    max_players: Annotated[
        int, msgspec.Meta(ge=MIN_PLAYERS, le=MAX_PLAYERS, description="the most seats a game takes")
    ] = MAX_PLAYERS


OPTIONS: dict[str, Any] = msgspec.to_builtins(Options())


class State(msgspec.Struct, frozen=True):
    """Squares, statuses and whose turn it is; ``throw`` is a die not yet played."""

    layout: tuple[str, ...]
    restart_whole_game: bool
    squares: tuple[int, ...]
    skip: tuple[bool, ...]
    waiting: tuple[bool, ...]
    turn: int = 0
    throw: int | None = None
    finished: bool = False
    winners: tuple[int, ...] = ()


class Landing(msgspec.Struct, frozen=True):
    """A throw resolved: the state it leads to, and how to show it."""

    state: State
    steps: tuple[Step, ...]
    effects: tuple[Effect, ...]
    won: bool


def setup(options: dict[str, Any], seats: int) -> State:
    """Every pawn on square 1, the first seat to throw."""
    opts = parse_options(NAME, Options, options)
    check_players(NAME, seats, MIN_PLAYERS, opts.max_players)
    layout = parse_layout(opts.special_squares)
    restart_whole_game = opts.red_square_effect == "restart_game"
    check(layout, seats, restart_whole_game)
    return State(
        layout=layout,
        restart_whole_game=restart_whole_game,
        squares=(1,) * seats,
        skip=(False,) * seats,
        waiting=(False,) * seats,
    )


def parse_layout(special: dict[Square, SquareType]) -> tuple[str, ...]:
    """The type of every square 0..35 (``""`` for plain) from valid ``special_squares``."""
    layout = [""] * (GOAL + 1)
    for square, kind in special.items():
        layout[int(square)] = kind
    return tuple(layout)


def position(square: int) -> str:
    """``track:N``, or ``home`` for the goal."""
    return "home" if square == GOAL else f"track:{square}"


def resolve(state: State, seat: int, throw: int) -> Landing:
    """Play ``throw`` for ``seat`` (section 5.3)."""
    forward = throw in FORWARD_THROWS
    pawn = piece_id(seat, 1)
    origin = state.squares[seat]
    final = travel(origin, throw, forward)
    steps = [Step(pawn, position(origin), position(final))]
    if final != GOAL and state.layout[final] == "tricolour":
        again = travel(final, throw, forward)
        steps.append(Step(pawn, position(final), position(again)))
        final = again
    if final == GOAL:
        won = replace(state, squares=_put(state.squares, seat, GOAL), throw=None)
        return Landing(won, tuple(steps), (), True)
    if state.layout[final] == "red":
        return _restart(state, seat, final, tuple(steps))
    return _land(state, seat, origin, final, tuple(steps))


def _land(state: State, seat: int, origin: int, final: int, steps: tuple[Step, ...]) -> Landing:
    """Land on ``final``: swap with its occupant, then the square's effect for the lander."""
    squares, waiting, effects = list(state.squares), list(state.waiting), []
    occupant = _occupant(state, seat, final)
    if occupant is not None:
        squares[occupant], waiting[occupant] = origin, False
        why = f"displaced to square {origin}"
        effects.append(Effect(piece_id(occupant, 1), position(final), position(origin), why))
    squares[seat] = final
    kind = state.layout[final]
    waiting[seat] = kind == "blue"
    skip = _put(state.skip, seat, kind == "green")
    landed = replace(
        state,
        squares=tuple(squares),
        waiting=tuple(waiting),
        skip=skip,
        throw=None,
        turn=_next(state),
    )
    return Landing(landed, steps, tuple(effects), False)


def _restart(state: State, seat: int, red: int, steps: tuple[Step, ...]) -> Landing:
    """A red square: the whole game (or only the lander) starts again from square 1."""
    squares = _put(state.squares, seat, red)
    movers = range(len(squares)) if state.restart_whole_game else (seat,)
    why = f"red square {red}: " + ("the game restarts" if state.restart_whole_game else "back to 1")
    effects = tuple(
        Effect(piece_id(s, 1), position(squares[s]), position(1), why)
        for s in movers
        if squares[s] != 1
    )
    new_squares, skip, waiting = list(squares), list(state.skip), list(state.waiting)
    for s in movers:
        new_squares[s], skip[s], waiting[s] = 1, False, False
    restarted = replace(
        state,
        squares=tuple(new_squares),
        skip=tuple(skip),
        waiting=tuple(waiting),
        throw=None,
        turn=_next(state),
    )
    return Landing(restarted, steps, effects, False)


def _occupant(state: State, seat: int, square: int) -> int | None:
    """Another pawn on ``square`` (never on square 1, which holds any number)."""
    if square == 1:
        return None
    for other, at in enumerate(state.squares):
        if other != seat and at == square:
            return other
    return None


def _put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _next(state: State) -> int:
    return (state.turn + 1) % len(state.squares)


def finished(state: State) -> dict[int, int]:
    """Pieces home per seat."""
    return home_counts(view(state, "referee").pieces)


class Status(msgspec.Struct, frozen=True):
    """A seat's standing orders: turns still to skip, and whether it waits to be released."""

    seat: int
    skip_turns: int
    waiting: bool


class Race35View(model.View, frozen=True, kw_only=True, tag=NAME):
    """race35's view: the shared fields and each seat's status."""

    statuses: list[Status]


class Race35:
    """race35's turn as named hooks (the protocol functions)."""

    def to_act(self, state: State) -> list[Pending]:
        """The seat to throw, unless the game is over or the turn passes by itself."""
        if state.finished or self.automatic(state):
            return []
        return [Pending(state.turn, "roll")]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """``roll`` for the seat to throw; nothing for anyone else."""
        return [chance_move(p) for p in self.to_act(state) if p.seat == seat]

    def chance(self, state: State) -> ChanceNeed | None:
        """One die when a seat is to throw."""
        return Roll(1) if self.to_act(state) else None

    def automatic(self, state: State) -> list[Event]:
        """The throw plays itself; a waiting or skipping seat's turn passes."""
        if state.finished:
            return []
        seat = state.turn
        if state.throw is not None:
            landing = resolve(state, seat, state.throw)
            moved = MovePlayed(
                seat,
                f"throw:{state.throw}",
                (state.throw,),
                landing.steps,
                landing.effects,
                auto=True,
            )
            return [moved, GameFinished((seat,), "reached square 35")] if landing.won else [moved]
        square = state.squares[seat]
        if state.waiting[seat]:
            return [TurnPassed(seat, f"waits on blue square {square} until another pawn takes it")]
        if state.skip[seat]:
            return [TurnPassed(seat, f"misses this turn after landing on green square {square}")]
        return []

    def decide(self, state: State, seat: int, move_id: str) -> list[Event]:
        """race35 has no choices: the throw plays itself."""
        if state.finished:
            raise GameOver("the game is over")
        if seat != state.turn:
            raise NotYourTurn(f"it is seat {state.turn + 1}'s turn, not seat {seat + 1}'s")
        raise IllegalMove(f"move {move_id!r} is not legal: in race35 the only action is 'roll'")

    def apply(self, state: State, event: Event) -> State:
        """The reducer."""
        match event:
            case DiceRolled(dice=dice):
                return replace(state, throw=dice[0])
            case MovePlayed(seat=seat) if state.throw is not None:
                return resolve(state, seat, state.throw).state
            case TurnPassed(seat=seat):
                return replace(state, skip=_put(state.skip, seat, False), turn=_next(state))
            case GameFinished(winners=winners):
                return replace(state, finished=True, winners=winners)
        return state

    def view(self, state: State, viewer: Viewer) -> Race35View:
        """Everything is public in race35."""
        return Race35View(
            status=status_of(state.finished),
            pieces=[
                Piece(piece_id(seat, 1), seat, position(square))
                for seat, square in enumerate(state.squares)
            ],
            to_act=self.to_act(state),
            chance=None,
            winners=list(state.winners),
            statuses=[
                Status(seat, int(skip), bool(waiting))
                for seat, (skip, waiting) in enumerate(zip(state.skip, state.waiting, strict=True))
            ],
        )


RULES = Race35()
"""The rule set's one instance: the module's protocol functions are its bound methods."""
to_act = RULES.to_act
legal_moves = RULES.legal_moves
chance = RULES.chance
automatic = RULES.automatic
decide = RULES.decide
apply = RULES.apply
view = RULES.view
redact = no_secrets

"""Ludo as the Parchís seed describes it (rule set ``ludo``, rules/parchis.md §9).

Seats and colours (§9.1): 4 players are Red, Green, Yellow, Blue (seats 0..3, clockwise, the
turn order); 3 players Red, Green, Yellow; 2 players Red and Yellow (opposite, as in Parchís).
Piece ids: ``red-1`` .. ``blue-4``.

Positions: ``start`` (yard), ``track:0`` .. ``track:51`` (L0..L51), ``lane:1`` .. ``lane:5``
(the own home column H1..H5), ``home`` (the final square, r 56).

Move ids: ``<die>:<from>><to>``, e.g. ``6:start>track:0`` or ``3:track:10>track:13``. Every
square holds one piece, so (from, to) identifies a move.

Turn machinery: ``die`` is the throw to play (0 when the seat must throw), ``sixes`` the 6s
thrown in a row, ``trying`` whether the turn is still in its three tries (§9.2.1) and ``tries``
the throws left after this one. A throw with no legal move passes by itself (``TurnPassed``
with the reason): during the tries it uses up a try, whatever it shows, and the third ends the
turn; after the tries the same seat throws again after a 6 (§9.2.2). The third 6 in a row
(§9.2.3) sends the last moved piece to the yard (``MovePlayed`` with ``auto``, move
``three-sixes``) or, with ``forfeit_turn`` or nothing to send, ends the turn.

This is version 2. Version 1 (``domain/ludo_v1.py``, kept to replay the games recorded under
it) let an unusable 6 during the tries throw again without using a try and counted every 6 of
the turn towards the three; the hooks of ``Ludo`` hold what the two versions do differently.

Errors: ``GameError`` > ``BadSetup``, ``IllegalMove``, ``NotYourTurn``, ``GameOver``.
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
    Outcome,
    Pending,
    Roll,
    Step,
    Viewer,
    chance_move,
    check_players,
    parse_options,
    status_of,
)
from domain.parchis_board import LUDO, LUDO_SAFE, PIECES, START

NAME = "ludo"
VERSION = 2
MIN_PLAYERS = 2
MAX_PLAYERS = 4
STACKING = False


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The options of ludo."""

    win_condition: Annotated[
        Literal["home_column", "home"],
        msgspec.Meta(
            description="home_column: a player wins with all four pieces in the home column or "
            "home; home: all four must be home"
        ),
    ] = "home_column"
    three_sixes: Annotated[
        Literal["return_last_piece", "forfeit_turn"],
        msgspec.Meta(
            description="the third 6 in a turn: return_last_piece sends the piece moved last "
            "back to the yard; forfeit_turn only ends the turn"
        ),
    ] = "return_last_piece"
    three_tries: Annotated[
        Literal["first_turn_only", "whenever_no_piece_out"],
        msgspec.Meta(
            description="when a player may throw up to three times for a 6: on its first turn "
            "only, or on every turn that starts with no piece out"
        ),
    ] = "first_turn_only"
    safe_squares: Annotated[
        Literal["none", "starts", "starts_and_stars"],
        msgspec.Meta(
            description="squares where a piece cannot be captured: none, the four start "
            "squares, or those and the four star squares"
        ),
    ] = "none"


OPTIONS: dict[str, Any] = msgspec.to_builtins(Options())
BOARD = LUDO
GOAL = BOARD.goal
LANE = BOARD.track_steps
SIX = 6
PENALTY = 3
EXTRA_TRIES = 2


class Rules(msgspec.Struct, frozen=True):
    """The options."""

    win_at: int = LANE
    return_last: bool = True
    tries_always: bool = False
    safe: str = "none"


class State(msgspec.Struct, frozen=True):
    """Relative numbers of all pieces (seat * 4 + n) and the turn."""

    rules: Rules
    colours: tuple[int, ...]
    pos: tuple[int, ...]
    started: tuple[bool, ...]
    turn: int = 0
    die: int = 0
    sixes: int = 0
    tries: int = 0
    last_moved: int = -1
    trying: bool = False
    finished: bool = False
    winners: tuple[int, ...] = ()


def setup(options: dict[str, Any], seats: int) -> State:
    """All pieces in the yard, Red (seat 0) to throw, with three tries."""
    opts = parse_options(NAME, Options, options)
    check_players(NAME, seats, MIN_PLAYERS, MAX_PLAYERS)
    rules = Rules(
        win_at=GOAL if opts.win_condition == "home" else LANE,
        return_last=opts.three_sixes == "return_last_piece",
        tries_always=opts.three_tries == "whenever_no_piece_out",
        safe=opts.safe_squares,
    )
    state = State(rules, BOARD.seatings[seats], (START,) * (seats * PIECES), (False,) * seats)
    return start_turn(state, 0)


def own(seat: int) -> range:
    """The piece indices of ``seat``."""
    return range(seat * PIECES, seat * PIECES + PIECES)


def occupancy(state: State) -> dict[int, int]:
    """The piece on each cell (the home square has no cell)."""
    cells = BOARD.cells
    return {
        cells[state.colours[piece // PIECES]][r]: piece
        for piece, r in enumerate(state.pos)
        if r != START and r != GOAL
    }


def land(state: State, occ: dict[int, int], seat: int, cell: int) -> int | None:
    """-1 to land on an empty cell, the piece captured there, or None when it is closed."""
    here = occ.get(cell)
    if here is None:
        return -1
    if here // PIECES == seat or cell in LUDO_SAFE[state.rules.safe]:
        return None
    return here


def moves(state: State) -> list[Move]:
    """Every legal move of the seat to move with ``state.die`` (§9.3)."""
    seat, die = state.turn, state.die
    occ = occupancy(state)
    cells = BOARD.cells[state.colours[seat]]
    found: list[tuple[int, Move]] = []
    jailed = [piece for piece in own(seat) if state.pos[piece] == START]
    if die == SIX and jailed:
        captured = land(state, occ, seat, cells[0])
        if captured is not None:
            found.append((START, make_move(state, jailed[0], 0, captured)))
    for piece in own(seat):
        r = state.pos[piece]
        if r == START or r + die > GOAL:
            continue
        target = r + die
        captured = -1 if target == GOAL else land(state, occ, seat, cells[target])
        if captured is not None:
            found.append((r, make_move(state, piece, target, captured)))
    return [move for _, move in sorted(found, key=lambda item: item[0])]


def make_move(state: State, piece: int, target: int, captured: int) -> Move:
    """The public move of ``piece`` to ``target``."""
    colour = state.colours[state.turn]
    name = BOARD.piece_name(state.colours, piece)
    origin, to = BOARD.place(colour, state.pos[piece]), BOARD.place(colour, target)
    effects: tuple[Effect, ...] = ()
    if captured >= 0:
        victim = BOARD.piece_name(state.colours, captured)
        effects = (Effect(victim, to, "start", f"captured by {name}: back to the yard"),)
    step = Step(name, origin, to)
    return Move(f"{state.die}:{origin}>{to}", state.turn, (state.die,), (step,), effects)


def pending(state: State) -> Pending | None:
    """The seat to act and how, ignoring automatic events."""
    if state.finished:
        return None
    return Pending(state.turn, "move" if state.die else "roll")


def penalty(state: State) -> Event:
    """The third 6: not played; the last piece moved may go back to the yard (§9.2)."""
    seat, piece = state.turn, state.last_moved
    r = state.pos[piece] if piece >= 0 else START
    if not state.rules.return_last or r in (START, GOAL):
        return TurnPassed(seat, "third 6 in a row: not played, turn over")
    why = "third 6 in a row: the last piece moved goes back to the yard"
    effect = Effect(
        BOARD.piece_name(state.colours, piece), BOARD.place(state.colours[seat], r), "start", why
    )
    return MovePlayed(seat, "three-sixes", (SIX,), (), (effect,), auto=True)


def events_of(state: State, move: Move) -> list[Event]:
    """MovePlayed, and GameFinished when the move completes the seat's four pieces."""
    events: list[Event] = [MovePlayed(move.seat, move.id, move.uses, move.steps, move.effects)]
    colour = state.colours[state.turn]
    piece = BOARD.piece_index(state.colours, move.steps[0].piece)
    target = BOARD.parse(colour, move.steps[0].to)
    at = [target if p == piece else state.pos[p] for p in own(state.turn)]
    if min(at) >= state.rules.win_at:
        where = "home" if state.rules.win_at == GOAL else "in the home column"
        events.append(GameFinished((state.turn,), f"all four pieces {where}"))
    return events


def moved(state: State, event: MovePlayed) -> State:
    """Apply a move's steps and captures."""
    colours = state.colours
    pos, last = list(state.pos), state.last_moved
    for step in event.steps:
        last = BOARD.piece_index(colours, step.piece)
        pos[last] = BOARD.parse(colours[last // PIECES], step.to)
    for effect in event.effects:
        pos[BOARD.piece_index(colours, effect.piece)] = START
    return replace(state, pos=tuple(pos), last_moved=last, tries=0, trying=False)


def end_turn(state: State) -> State:
    """The next seat throws."""
    return start_turn(state, (state.turn + 1) % len(state.colours))


def start_turn(state: State, seat: int) -> State:
    """``seat``'s turn begins, with three tries on its first turn (or, by option, whenever it
    has no piece out)."""
    out = any(START < state.pos[piece] < GOAL for piece in own(seat))
    tries = not state.started[seat] or (state.rules.tries_always and not out)
    started = (*state.started[:seat], True, *state.started[seat + 1 :])
    return replace(
        state,
        turn=seat,
        die=0,
        sixes=0,
        last_moved=-1,
        tries=EXTRA_TRIES if tries else 0,
        trying=tries,
        started=started,
    )


def finished(state: State) -> dict[int, int]:
    """Pieces that count towards the win, per seat: home, and with ``win_condition``
    ``home_column`` (the default) the home column too."""
    seats = range(len(state.colours))
    counts = {seat: sum(state.pos[p] >= state.rules.win_at for p in own(seat)) for seat in seats}
    return {seat: count for seat, count in counts.items() if count}


class LudoView(model.View, frozen=True, kw_only=True, tag=NAME):
    """ludo's view: colours, sixes in a row and the tries left to throw a six."""

    colours: list[str]
    sixes_in_a_row: int
    tries_left: int


class Ludo:
    """Ludo's turn as named hooks: the protocol functions, and what a version decides about
    throws (``sixes_after``, ``passed``, ``unused_reason``), which ``ludo_v1.LudoV1``
    overrides."""

    def to_act(self, state: State) -> list[Pending]:
        """The seat to throw or to move, unless the game is over or the rules act by themselves."""
        now = pending(state)
        if now is None or self.automatic(state):
            return []
        return [now]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """``roll`` for the seat to throw; every legal move for the seat to move."""
        now = self.to_act(state)
        if not now or now[0].seat != seat:
            return []
        return [chance_move(now[0])] if now[0].kind == "roll" else moves(state)

    def chance(self, state: State) -> ChanceNeed | None:
        """One die when a seat is to throw."""
        now = self.to_act(state)
        return Roll(1) if now and now[0].kind == "roll" else None

    def automatic(self, state: State) -> list[Event]:
        """The three-6 penalty, and throws that cannot be used."""
        if state.finished or not state.die:
            return []
        if state.sixes == PENALTY:
            return [penalty(state)]
        if moves(state):
            return []
        return [TurnPassed(state.turn, self.unused_reason(state))]

    def decide(self, state: State, seat: int, move_id: str) -> list[Event]:
        """The events of ``seat`` playing ``move_id``; raises a GameError saying why not."""
        if state.finished:
            raise GameOver(f"the game is over: move {move_id!r} cannot be played")
        now = self.to_act(state)
        if not now:
            raise NotYourTurn(f"no seat may act before the automatic events: not seat {seat + 1}")
        if now[0].seat != seat:
            raise NotYourTurn(f"it is seat {now[0].seat + 1}'s turn, not seat {seat + 1}'s")
        if now[0].kind == "roll":
            raise IllegalMove(
                f"move {move_id!r} is not legal: seat {seat + 1} must throw first ('roll')"
            )
        legal = moves(state)
        for move in legal:
            if move.id == move_id:
                return events_of(state, move)
        ids = [move.id for move in legal]
        raise IllegalMove(
            f"move {move_id!r} is not legal with a {state.die}: legal moves are {ids}"
        )

    def apply(self, state: State, event: Event) -> State:
        """The reducer."""
        match event:
            case DiceRolled(dice=dice):
                return replace(state, die=dice[0], sixes=self.sixes_after(state, dice[0]))
            case MovePlayed():
                after = moved(state, event)
                if state.sixes == PENALTY or state.die != SIX:
                    return end_turn(after)
                return replace(after, die=0)
            case TurnPassed():
                return self.passed(state)
            case GameFinished(winners=winners):
                return replace(state, finished=True, winners=winners)
        return state

    def view(self, state: State, viewer: Viewer) -> LudoView:
        """Everything is public in Ludo."""
        return LudoView(
            status=status_of(state.finished),
            pieces=BOARD.pieces(state.colours, state.pos),
            to_act=self.to_act(state),
            chance=Outcome(dice=[state.die]) if state.die else None,
            winners=list(state.winners),
            colours=[BOARD.colours[colour] for colour in state.colours],
            sixes_in_a_row=state.sixes,
            tries_left=state.tries,
        )

    def sixes_after(self, state: State, die: int) -> int:
        """6s in a row after a throw of ``die`` (§9.2.3: consecutive)."""
        return state.sixes + 1 if die == SIX else 0

    def passed(self, state: State) -> State:
        """After a throw that could not be used (§9.2.1, §9.2.2)."""
        if state.sixes == PENALTY:
            return end_turn(state)
        if state.trying:
            return replace(state, die=0, tries=state.tries - 1) if state.tries else end_turn(state)
        return replace(state, die=0) if state.die == SIX else end_turn(state)

    def unused_reason(self, state: State) -> str:
        """Why a throw passes: during the tries, the tries left (none: the turn is over); after
        them, a 6 throws again (§9.2.1, §9.2.2)."""
        reason = f"no legal move for a {state.die}"
        if state.trying:
            if state.tries:
                return reason + f"; {state.tries} more {'try' if state.tries == 1 else 'tries'}"
            return reason + "; no tries left"
        return reason + "; throws again" if state.die == SIX else reason


RULES = Ludo()
"""The rule set's one instance: the module's protocol functions are its bound methods."""
to_act = RULES.to_act
legal_moves = RULES.legal_moves
chance = RULES.chance
automatic = RULES.automatic
decide = RULES.decide
apply = RULES.apply
view = RULES.view

redact = no_secrets

"""Parchís with one die (rule set ``parchis``, rules/parchis.md §2-7); also the engine of
``parchis-2dice`` (§8), which only sets up two dice.

Seats and colours (§2, §3.1): 4 players are Yellow, Blue, Red, Green (seats 0..3, the turn
order); 3 players Yellow, Blue, Red; 2 players Yellow, Red. Piece ids: ``yellow-1`` ..
``green-4``.

Positions: ``start`` (jail), ``track:1`` .. ``track:68``, ``lane:1`` .. ``lane:7`` (the own
home column H1..H7), ``home`` (the goal).

Move ids: the sub-moves of a play joined by ``,``; each is ``<label>:<from>><to>`` where the
label is the die used (``3``), both dice taking one piece out of jail on a sum of 5 (``1+4``)
or a bonus count (``bonus20``). Examples: ``5:start>track:5``, ``3:track:9>track:12``,
``2:track:30>track:32,4:track:32>track:36``, ``bonus20:track:5>track:25``. Pieces of one
colour on one square are interchangeable, so (from, to) identifies a sub-move; of two-dice
plays that end in the same position only the first generated is listed.

Turn machinery: ``throw`` is the latest throw, ``dice`` the part of it still to play,
``bonus`` the bonus counts still owed (first is next), ``repeats`` the 6s (one die) or doubles
(two dice) thrown this turn. A throw or bonus that cannot be used passes by itself
(``TurnPassed`` with the reason, then the same seat throws again after a 6 or doubles); the
third repeat sends the last moved piece to jail (``MovePlayed`` with ``auto``, move
``three-sixes`` or ``three-doubles``) or, with nothing to send back, passes the turn.
The protocol is the methods of ``Parchis``, whose one instance ``RULES`` gives this module its
protocol functions; a variant subclasses it and overrides what it plays differently:
``parchis_throw.WholeThrow`` (``parchis-2dice`` from version 2) decides a two-dice throw as one
unit, keeping in ``origin`` where the throw began and in ``played`` the decisions made in it so
far.

Errors: ``GameError`` > ``BadSetup``, ``IllegalMove``, ``NotYourTurn``, ``GameOver``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from typing import Annotated, Any, NamedTuple

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
from domain.parchis_board import PARCHIS, PIECES, START

NAME = "parchis"
VERSION = 1
MIN_PLAYERS = 2
MAX_PLAYERS = 4
STACKING = True
"""Two pieces of one colour may share a square (a barrier)."""

MAX_BONUS = 100
"""The largest bonus an option may set: more than any piece can travel (the track and a home
column), so a larger one could never be played."""


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The options of parchis and parchis-2dice."""

    capture_bonus: Annotated[
        int,
        msgspec.Meta(
            ge=0,
            le=MAX_BONUS,
            description="squares one own piece must move after a capture (0: none; the "
            "published rules say 20)",
        ),
    ] = 0
    home_bonus: Annotated[
        int,
        msgspec.Meta(
            ge=0,
            le=MAX_BONUS,
            description="squares one own piece must move after a piece reaches the goal (0: "
            "none; the published rules say 10)",
        ),
    ] = 0
    six_counts_seven: Annotated[
        bool,
        msgspec.Meta(description="a 6 moves 7 squares while the player has no piece in jail"),
    ] = False
    three_sixes_exempt_home_column: Annotated[
        bool,
        msgspec.Meta(
            description="the third 6 (or third double) does not send back a piece that is in "
            "its home column"
        ),
    ] = False


OPTIONS: dict[str, Any] = msgspec.to_builtins(Options())
BOARD = PARCHIS
GOAL = BOARD.goal
EXIT_DIE = 5
PENALTY = 3


class Rules(msgspec.Struct, frozen=True):
    """The options, and how many dice a throw has."""

    dice: int = 1
    capture_bonus: int = 0
    home_bonus: int = 0
    six_counts_seven: bool = False
    exempt_home_column: bool = False


class State(msgspec.Struct, frozen=True):
    """Relative numbers of all pieces (seat * 4 + n), arrival stamps, and the turn."""

    rules: Rules
    colours: tuple[int, ...]
    pos: tuple[int, ...]
    stamp: tuple[int, ...]
    clock: int = 1
    turn: int = 0
    throw: tuple[int, ...] = ()
    dice: tuple[int, ...] = ()
    repeats: int = 0
    bonus: tuple[int, ...] = ()
    last_moved: int = -1
    finished: bool = False
    winners: tuple[int, ...] = ()
    origin: Spot | None = None
    """Under ``WholeThrow``: the position the throw started from."""
    played: tuple[str, ...] = ()
    """Under ``WholeThrow``: the decisions already made in this throw."""


class Spot(NamedTuple):
    """A position during move generation."""

    pos: tuple[int, ...]
    stamp: tuple[int, ...]
    clock: int


class Sub(NamedTuple):
    """One piece movement of a play; ``opens`` when it leaves an own barrier."""

    piece: int
    origin: int
    target: int
    captured: int = -1
    opens: bool = False
    label: str = ""
    uses: tuple[int, ...] = ()


class Play(NamedTuple):
    """A legal move and the position it leads to."""

    move: Move
    end: Spot


Occupancy = dict[int, list[int]]
Scored = tuple[tuple[Sub, ...], Spot, int]


def setup(options: dict[str, Any], seats: int) -> State:
    """All pieces in jail, Yellow (seat 0) to throw one die."""
    return new_state(NAME, options, seats, dice=1)


def new_state(name: str, options: dict[str, Any], seats: int, dice: int) -> State:
    """The initial state of ``parchis`` or ``parchis-2dice``."""
    opts = parse_options(name, Options, options)
    check_players(name, seats, MIN_PLAYERS, MAX_PLAYERS)
    rules = Rules(
        dice=dice,
        capture_bonus=opts.capture_bonus,
        home_bonus=opts.home_bonus,
        six_counts_seven=opts.six_counts_seven,
        exempt_home_column=opts.three_sixes_exempt_home_column,
    )
    count = seats * PIECES
    return State(rules, BOARD.seatings[seats], (START,) * count, (0,) * count)


# --- geometry questions -------------------------------------------------------------------


def own(seat: int) -> range:
    """The piece indices of ``seat``."""
    return range(seat * PIECES, seat * PIECES + PIECES)


def occupancy(colours: tuple[int, ...], spot: Spot) -> Occupancy:
    """Pieces on each cell, in order of arrival."""
    occ: Occupancy = {}
    cells = BOARD.cells
    for piece, r in enumerate(spot.pos):
        if r != START and r != GOAL:
            occ.setdefault(cells[colours[piece // PIECES]][r], []).append(piece)
    for pieces in occ.values():
        if len(pieces) > 1:
            pieces.sort(key=spot.stamp.__getitem__)
    return occ


def barrier_seat(occ: Occupancy, cell: int) -> int:
    """The seat whose barrier stands on ``cell``, or -1."""
    here = occ.get(cell)
    if cell >= BOARD.track or not here or len(here) != 2:
        return -1
    seat = here[0] // PIECES
    return seat if here[1] // PIECES == seat else -1


def movers(spot: Spot, seat: int) -> list[int]:
    """One piece per occupied square of ``seat`` (the latest arrival), by relative number."""
    best: dict[int, int] = {}
    for piece in own(seat):
        r = spot.pos[piece]
        if r != START and r != GOAL and (r not in best or spot.stamp[piece] >= spot.stamp[best[r]]):
            best[r] = piece
    return [best[r] for r in sorted(best)]


def forward(colours: tuple[int, ...], spot: Spot, occ: Occupancy, piece: int, n: int) -> Sub | None:
    """Move ``piece`` ``n`` squares if §5.1 allows it."""
    seat = piece // PIECES
    cells = BOARD.cells[colours[seat]]
    origin = spot.pos[piece]
    target = origin + n
    if target > GOAL:
        return None
    for r in range(origin + 1, target):
        if barrier_seat(occ, cells[r]) not in (-1, seat):
            return None
    opens = barrier_seat(occ, cells[origin]) == seat
    if target == GOAL:
        return Sub(piece, origin, target, opens=opens)
    cell = cells[target]
    here = occ.get(cell, [])
    if len(here) >= 2:
        return None
    if here and here[0] // PIECES != seat and cell not in BOARD.safe:
        return Sub(piece, origin, target, here[0], opens=opens)
    return Sub(piece, origin, target, opens=opens)


def leave_jail(colours: tuple[int, ...], spot: Spot, occ: Occupancy, seat: int) -> Sub | None:
    """Take a piece out of jail onto the exit square if §5.3 allows it."""
    jailed = [piece for piece in own(seat) if spot.pos[piece] == START]
    if not jailed:
        return None
    here = occ.get(BOARD.cells[colours[seat]][0], [])
    if len(here) < 2:
        return Sub(jailed[0], START, 0)
    others = [piece for piece in here if piece // PIECES != seat]
    return Sub(jailed[0], START, 0, others[-1]) if others else None


def do(spot: Spot, sub: Sub) -> Spot:
    """The position after one sub-move."""
    pos, stamp = list(spot.pos), list(spot.stamp)
    pos[sub.piece], stamp[sub.piece] = sub.target, spot.clock
    if sub.captured >= 0:
        pos[sub.captured] = START
    return Spot(tuple(pos), tuple(stamp), spot.clock + 1)


def has_won(pos: tuple[int, ...], seat: int) -> bool:
    """All four pieces of ``seat`` in the goal."""
    return all(pos[piece] == GOAL for piece in own(seat))


def is_repeat(throw: tuple[int, ...]) -> bool:
    """A 6 (one die) or doubles (two dice): throw again, barrier duty, penalty count."""
    return throw == (6,) if len(throw) == 1 else len(throw) == 2 and throw[0] == throw[1]


# --- legal plays --------------------------------------------------------------------------


def part_plays(state: State) -> tuple[Play, ...]:
    """The legal plays when a throw is played a part at a time (a bonus, or the dice until a
    part earns a bonus)."""
    if state.bonus:
        return tuple(bonus_plays(state))
    if state.dice:
        return tuple(dice_plays(state))
    return ()


def bonus_plays(state: State) -> list[Play]:
    """Move one piece the owed bonus count (§5.6; no barrier duty)."""
    count = state.bonus[0]
    spot = Spot(state.pos, state.stamp, state.clock)
    occ = occupancy(state.colours, spot)
    plays = []
    for piece in movers(spot, state.turn):
        sub = forward(state.colours, spot, occ, piece, count)
        if sub is not None:
            sub = sub._replace(label=f"bonus{count}")
            plays.append(make_play(state, (sub,), do(spot, sub)))
    return plays


def dice_plays(state: State) -> list[Play]:
    """Compulsory exits first, then as many forward die moves as possible (§5, §8.1)."""
    seat = state.turn
    exits, spot, dice, stopped = jail_exits(state, Spot(state.pos, state.stamp, state.clock))
    if stopped or not dice:
        return [make_play(state, exits, spot)] if exits else []
    duty = is_repeat(state.throw) and owns_barrier(state.colours, spot, seat)
    tails = best(sequences(state, spot, dice), duty)
    if not tails:
        return [make_play(state, exits, spot)] if exits else []
    return unique(state, [(exits + subs, end) for subs, end, _ in tails])


def jail_exits(state: State, spot: Spot) -> tuple[tuple[Sub, ...], Spot, tuple[int, ...], bool]:
    """The compulsory exits: one per 5 while possible, else one for a sum of 5."""
    seat, dice, subs = state.turn, state.dice, []
    while EXIT_DIE in dice:
        sub = leave_jail(state.colours, spot, occupancy(state.colours, spot), seat)
        if sub is None:
            break
        sub = sub._replace(label=str(EXIT_DIE), uses=(EXIT_DIE,))
        subs.append(sub)
        spot, dice = do(spot, sub), without(dice, EXIT_DIE)
        if stops(state, sub, spot):
            return tuple(subs), spot, dice, True
    if len(dice) == 2 and EXIT_DIE not in dice and sum(dice) == EXIT_DIE:
        sub = leave_jail(state.colours, spot, occupancy(state.colours, spot), seat)
        if sub is not None:
            sub = sub._replace(label=f"{dice[0]}+{dice[1]}", uses=dice)
            subs.append(sub)
            spot, dice = do(spot, sub), ()
            return tuple(subs), spot, dice, stops(state, sub, spot)
    return tuple(subs), spot, dice, False


def sequences(state: State, spot: Spot, dice: tuple[int, ...]) -> list[Scored]:
    """Forward moves using ``dice`` in every order, scored by dice used (a stop uses all)."""
    found: list[Scored] = []
    for i, die in enumerate(dice):
        if die in dice[:i]:
            continue
        rest = dice[:i] + dice[i + 1 :]
        occ = occupancy(state.colours, spot)
        n = distance(state.rules, state.turn, spot, die)
        for piece in movers(spot, state.turn):
            sub = forward(state.colours, spot, occ, piece, n)
            if sub is None:
                continue
            sub = sub._replace(label=str(die), uses=(die,))
            end = do(spot, sub)
            if not rest or stops(state, sub, end):
                found.append(((sub,), end, len(dice)))
                continue
            tails = sequences(state, end, rest)
            found.extend(((sub, *subs), last, score + 1) for subs, last, score in tails)
            if not tails:
                found.append(((sub,), end, 1))
    return found


def best(found: list[Scored], duty: bool) -> list[Scored]:
    """Those using the most dice; under barrier duty, those opening a barrier if any do."""
    if not found:
        return found
    top = max(score for _, _, score in found)
    found = [item for item in found if item[2] == top]
    if duty:
        opening = [item for item in found if any(sub.opens for sub in item[0])]
        return opening or found
    return found


def distance(rules: Rules, seat: int, spot: Spot, die: int) -> int:
    """Squares a die moves: 6 counts 7 with the option when no own piece is in jail."""
    if die != 6 or not rules.six_counts_seven:
        return die
    return 7 if all(spot.pos[piece] != START for piece in own(seat)) else die


def stops(state: State, sub: Sub, end: Spot) -> bool:
    """A sub-move that earns a bonus (resolved before any further die) or wins."""
    rules = state.rules
    return (
        (sub.captured >= 0 and rules.capture_bonus > 0)
        or (sub.target == GOAL and rules.home_bonus > 0)
        or has_won(end.pos, state.turn)
    )


def owns_barrier(colours: tuple[int, ...], spot: Spot, seat: int) -> bool:
    """Whether ``seat`` has a barrier on the track."""
    occ = occupancy(colours, spot)
    return any(barrier_seat(occ, cell) == seat for cell in occ)


def unique(state: State, found: list[tuple[tuple[Sub, ...], Spot]]) -> list[Play]:
    """One play per final position (own pieces, pieces captured, dice used), the first found."""
    seen: set[tuple[Any, ...]] = set()
    plays = []
    for subs, end in found:
        mine = tuple(sorted(end.pos[state.turn * PIECES : (state.turn + 1) * PIECES]))
        captured = tuple(sorted(sub.captured for sub in subs if sub.captured >= 0))
        key = (mine, captured, tuple(sorted(u for sub in subs for u in sub.uses)))
        if key not in seen:
            seen.add(key)
            plays.append(make_play(state, subs, end))
    return plays


def make_play(state: State, subs: tuple[Sub, ...], end: Spot) -> Play:
    """The public move of a sequence of sub-moves."""
    colours = state.colours
    colour = colours[state.turn]
    labels, steps, effects = [], [], []
    for sub in subs:
        name = BOARD.piece_name(colours, sub.piece)
        origin, target = BOARD.place(colour, sub.origin), BOARD.place(colour, sub.target)
        labels.append(f"{sub.label}:{origin}>{target}")
        steps.append(Step(name, origin, target))
        if sub.captured >= 0:
            why = f"captured by {name}: back to jail"
            victim = BOARD.piece_name(colours, sub.captured)
            effects.append(Effect(victim, target, "start", why))
    uses = tuple(u for sub in subs for u in sub.uses)
    move = Move(",".join(labels), state.turn, uses, tuple(steps), tuple(effects))
    return Play(move, end)


def without(dice: tuple[int, ...], die: int) -> tuple[int, ...]:
    """``dice`` less one ``die``."""
    i = dice.index(die)
    return dice[:i] + dice[i + 1 :]


# --- the protocol -------------------------------------------------------------------------


def pending(state: State) -> Pending | None:
    """The seat to act and how, ignoring automatic events."""
    if state.finished:
        return None
    return Pending(state.turn, "move" if state.dice or state.bonus else "roll")


@lru_cache(maxsize=256)
def cached_choices(rules: Parchis, state: State) -> tuple[Play, ...]:
    """``rules.plays(state)``, memoised: ``to_act``, ``legal_moves``, ``automatic`` and
    ``decide`` all ask for the same state."""
    return rules.plays(state)


class Parchis:
    """Parchís's turn as named hooks: the protocol functions, and what a variant plays
    differently (``plays``, ``ignoring_duty``, ``rolled``, ``recorded``), which it overrides."""

    def plays(self, state: State) -> tuple[Play, ...]:
        """Every legal play of the seat to move (empty when it must roll)."""
        return part_plays(state)

    def ignoring_duty(self, state: State) -> list[str]:
        """The plays there would be without the barrier duty (for error messages)."""
        spot = Spot(state.pos, state.stamp, state.clock)
        exits, spot, dice, _ = jail_exits(state, spot)
        found = best(sequences(state, spot, dice), duty=False) if dice else []
        return [play.move.id for play in unique(state, [(exits + s, e) for s, e, _ in found])]

    def rolled(self, state: State, dice: tuple[int, ...]) -> State:
        """The state once ``dice`` are thrown."""
        return replace(state, throw=dice, dice=dice, repeats=state.repeats + is_repeat(dice))

    def recorded(self, after: State, event: MovePlayed) -> State:
        """What the state keeps of a play besides its pieces (nothing here)."""
        return after

    def choices(self, state: State) -> tuple[Play, ...]:
        """``plays``, memoised."""
        return cached_choices(self, state)

    def to_act(self, state: State) -> list[Pending]:
        """The seat to throw or to move, unless the game is over or the rules act by
        themselves."""
        now = pending(state)
        if now is None or self.automatic(state):
            return []
        return [now]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """``roll`` for the seat to throw; every legal play for the seat to move."""
        now = self.to_act(state)
        if not now or now[0].seat != seat:
            return []
        if now[0].kind == "roll":
            return [chance_move(now[0])]
        return [play.move for play in self.choices(state)]

    def chance(self, state: State) -> ChanceNeed | None:
        """One die (or two) when a seat is to throw."""
        now = self.to_act(state)
        return Roll(state.rules.dice) if now and now[0].kind == "roll" else None

    def automatic(self, state: State) -> list[Event]:
        """The three-repeat penalty, and throws or bonuses that cannot be used."""
        if state.finished or not (state.dice or state.bonus):
            return []
        seat = state.turn
        if state.dice and state.repeats == PENALTY:
            return [penalty(state)]
        if self.choices(state):
            return []
        if state.bonus:
            why = f"no legal move for the bonus of {state.bonus[0]}: it is lost"
            return [TurnPassed(seat, why)]
        again = "; throws again" if is_repeat(state.throw) else ""
        return [TurnPassed(seat, f"no legal move for {describe(state.dice)}{again}")]

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
        plays = self.choices(state)
        for play in plays:
            if play.move.id == move_id:
                return events_of(state, play)
        raise IllegalMove(self.why_not(state, move_id, [play.move.id for play in plays]))

    def why_not(self, state: State, move_id: str, legal: list[str]) -> str:
        """An error message for a move that is not among the legal ones."""
        what = f"the bonus of {state.bonus[0]}" if state.bonus else describe(state.dice)
        reason = "it is not a legal move"
        if legal and all(":start>" in move for move in legal) and ":start>" not in move_id:
            reason = "a piece must leave jail first"
        elif state.dice and is_repeat(state.throw) and len(legal) < len(self.ignoring_duty(state)):
            reason = "a barrier must be opened"
        return f"move {move_id!r} is not legal with {what}: {reason}; legal: {legal}"

    def apply(self, state: State, event: Event) -> State:
        """The reducer."""
        match event:
            case DiceRolled(dice=dice):
                return self.rolled(state, dice)
            case MovePlayed():
                return moved(state, event, self.recorded)
            case TurnPassed():
                if state.dice and state.repeats == PENALTY:
                    return end_turn(state)
                if state.bonus:
                    return advance(replace(state, bonus=state.bonus[1:]))
                return advance(replace(state, dice=()))
            case GameFinished(winners=winners):
                return replace(state, finished=True, winners=winners)
        return state

    def view(self, state: State, viewer: Viewer) -> ParchisView | ParchisTwoDiceView:
        """Everything is public in Parchís."""
        return view_with(state, self.to_act(state))


RULES = Parchis()
"""The rule set's one instance: the module's protocol functions are its bound methods."""
to_act = RULES.to_act
legal_moves = RULES.legal_moves
chance = RULES.chance
automatic = RULES.automatic
decide = RULES.decide
apply = RULES.apply
view = RULES.view


def penalty(state: State) -> Event:
    """The third 6 (or doubles): the last piece moved goes back to jail (§5.5)."""
    seat, piece = state.turn, state.last_moved
    what, move = ("6", "three-sixes") if state.rules.dice == 1 else ("doubles", "three-doubles")
    r = state.pos[piece] if piece >= 0 else START
    exempt = state.rules.exempt_home_column and r >= BOARD.track_steps
    if r in (START, GOAL) or exempt:
        return TurnPassed(seat, f"third {what} in a row: not played, nothing goes back, turn over")
    colour = state.colours[seat]
    why = f"third {what} in a row: the last piece moved goes back to jail"
    name = BOARD.piece_name(state.colours, piece)
    effect = Effect(name, BOARD.place(colour, r), "start", why)
    return MovePlayed(seat, move, state.throw, (), (effect,), auto=True)


def describe(dice: tuple[int, ...]) -> str:
    """``a 3`` or ``(3, 4)``."""
    return f"a {dice[0]}" if len(dice) == 1 else f"({dice[0]}, {dice[1]})"


def events_of(state: State, play: Play) -> list[Event]:
    """MovePlayed, and GameFinished when the play brings the fourth piece home."""
    move = play.move
    events: list[Event] = [MovePlayed(move.seat, move.id, move.uses, move.steps, move.effects)]
    if has_won(play.end.pos, state.turn):
        events.append(GameFinished((state.turn,), "all four pieces reached the goal"))
    return events


def moved(state: State, event: MovePlayed, recorded: Callable[[State, MovePlayed], State]) -> State:
    """Apply a play (its steps and captures, and what ``recorded`` keeps of it), then owe its
    bonuses or end the throw."""
    colours = state.colours
    pos, stamp, clock, last = list(state.pos), list(state.stamp), state.clock, state.last_moved
    for step in event.steps:
        piece = BOARD.piece_index(colours, step.piece)
        pos[piece] = BOARD.parse(colours[piece // PIECES], step.to)
        stamp[piece], clock, last = clock, clock + 1, piece
    for effect in event.effects:
        pos[BOARD.piece_index(colours, effect.piece)] = START
    after = replace(state, pos=tuple(pos), stamp=tuple(stamp), clock=clock, last_moved=last)
    after = recorded(after, event)
    if state.dice and state.repeats == PENALTY:
        return end_turn(after)
    earned = earned_bonus(state.rules, event)
    if state.bonus:
        return advance(replace(after, bonus=earned + state.bonus[1:]))
    dice = state.dice
    for die in event.uses if isinstance(event.uses, tuple) else ():
        dice = without(dice, die)
    return advance(replace(after, bonus=earned, dice=dice if earned else ()))


def earned_bonus(rules: Rules, event: MovePlayed) -> tuple[int, ...]:
    """Bonus counts a play earns: one per capture and one per piece reaching the goal."""
    captures = (rules.capture_bonus,) * len(event.effects)
    homes = (rules.home_bonus,) * sum(step.to == "home" for step in event.steps)
    return tuple(count for count in (*captures, *homes) if count > 0)


def advance(state: State) -> State:
    """After a throw is used up: throw again on a 6 (doubles), else the next seat's turn."""
    if state.dice or state.bonus:
        return state
    if is_repeat(state.throw):
        return replace(state, throw=(), origin=None, played=())
    return end_turn(state)


def end_turn(state: State) -> State:
    """The next seat throws."""
    return replace(
        state,
        turn=(state.turn + 1) % len(state.colours),
        throw=(),
        dice=(),
        repeats=0,
        bonus=(),
        last_moved=-1,
        origin=None,
        played=(),
    )


def finished(state: State) -> dict[int, int]:
    """Pieces home per seat."""
    return dict(Counter(piece // PIECES for piece, r in enumerate(state.pos) if r == BOARD.goal))


class ParchisView(model.View, frozen=True, kw_only=True, tag=NAME):
    """parchis' view: colours, the dice still to play, bonuses pending, sixes in a row."""

    colours: list[str]
    dice_left: list[int]
    bonus_pending: list[int]
    sixes_in_a_row: int


class ParchisTwoDiceView(model.View, frozen=True, kw_only=True, tag="parchis-2dice"):
    """parchis-2dice's view: as parchis', counting doubles in a row."""

    colours: list[str]
    dice_left: list[int]
    bonus_pending: list[int]
    doubles_in_a_row: int


def view_with(state: State, to_act: list[Pending]) -> ParchisView | ParchisTwoDiceView:
    """Everything is public in Parchís: the state with the seats ``to_act``."""
    shared: dict[str, Any] = {
        "status": status_of(state.finished),
        "pieces": BOARD.pieces(state.colours, state.pos),
        "to_act": to_act,
        "chance": Outcome(dice=list(state.throw)) if state.dice and not state.bonus else None,
        "winners": list(state.winners),
        "colours": [BOARD.colours[colour] for colour in state.colours],
        "dice_left": list(state.dice),
        "bonus_pending": list(state.bonus),
    }
    if state.rules.dice == 1:
        return ParchisView(**shared, sixes_in_a_row=state.repeats)
    return ParchisTwoDiceView(**shared, doubles_in_a_row=state.repeats)


redact = no_secrets

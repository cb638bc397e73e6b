"""Classic Sorry!, one card drawn and played per turn (rule set ``sorry``, rules/sorry.md).

Seats and colours follow sorry.md and ``domain.model.COLOURS``: seat 0 red (track offset 0),
seat 1 blue (15), seat 2 yellow (30), seat 3 green (45). With 2 or 3 players the last colours
have no pawns, but their slides still work. Turns go in seat order (sorry.md section 4).

Positions: ``start``, ``track:N`` (T0..T59), ``lane:K`` (Safety(colour, K), K = 1..5) and
``home``. Internally a pawn's location is a code: 0..59 track, 60..64 lane 1..5, 65 home,
66 start; pawn ``seat * 4 + i`` is the piece ``piece_id(seat, i + 1)``.

Chance: the draw pile is a multiset kept sorted in ``CARDS`` order; each ``CardDrawn`` takes
one card out of it. The draw that finds the pile empty shuffles the discard pile back first
(sorry.md section 4, step 1): ``chance`` then names the discards as the pile to draw from and
says how many go back (``Draw.reshuffled``), and the referee records ``DeckShuffled`` just
before that ``CardDrawn`` (no order is recorded since draws are uniform). Until that draw the
state shows the empty pile and every discard. Version 1 (``domain/sorry_v1.py``) shuffled as
soon as the pile was empty with no card held, so with the move that used the last card.

Move ids (``<to>`` is where a count or a placement lands, before any slide):

=============================  ===============================================================
``<card>:<from>><to>``         start move, forward or backward count, Sorry! placement:
                               ``1:start>track:4``, ``10:track:5>track:4``, ``sorry:start>track:16``
``7:<from>><to>+<from>><to>``  split 7, parts in execution order; when both orders are legal
                               and end in the same position the part leaving the lower
                               location (track before lane) is written first (the other order
                               is accepted by ``decide`` too)
``11:<mine><><theirs>``        11 swap of the own pawn on ``<mine>`` with the opponent on
                               ``<theirs>``
``decline``                    decline the optional swap of an 11 that has no forward move
=============================  ===============================================================

A move's ``steps`` are each moved pawn's own displacement (execution order); its ``effects``
are bumps, slides, sweeps and swaps, in order. ``apply`` replays steps, then effects. The loop,
its walks, the scratch board and the card dispatch are ``domain.track``'s; ``Board.ended`` is
the hook a variant's landing rule overrides (sorry-hand's rule L4).

Errors (``domain.model``)::

    GameError
     +-- BadSetup        (player count, deck, fast_start, first_player)
     +-- IllegalMove     (says why)
     +-- NotYourTurn
     +-- GameOver
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Annotated, Any, Literal, NamedTuple

import msgspec
from msgspec.structs import replace

from domain import model, track
from domain.events import (
    CardDrawn,
    DeckShuffled,
    Event,
    GameFinished,
    MovePlayed,
    TurnPassed,
    no_secrets,
)
from domain.model import (
    COLOURS,
    ChanceNeed,
    Draw,
    Effect,
    GameOver,
    IllegalMove,
    Move,
    NotYourTurn,
    Outcome,
    Pending,
    Piece,
    Step,
    Viewer,
    chance_move,
    check_players,
    check_seat,
    home_counts,
    parse_options,
    piece_id,
    status_of,
)
from domain.track import NOWHERE, Loop, Plays, Scratch, listed, walks

NAME = "sorry"
VERSION = 2
MIN_PLAYERS = 2
MAX_PLAYERS = 4


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The options of sorry."""

    deck: Annotated[
        Literal["standard45", "classic44"],
        msgspec.Meta(
            description="standard45: five 1s and four of every other card (45 cards); "
            "classic44: four 1s (44 cards, the first edition)"
        ),
    ] = "standard45"
    fast_start: Annotated[
        bool, msgspec.Meta(description="each colour starts with one pawn on its start circle")
    ] = False
    first_player: Annotated[
        int,
        msgspec.Meta(ge=0, le=MAX_PLAYERS - 1, description="the seat that draws first"),
    ] = 0


OPTIONS: dict[str, Any] = msgspec.to_builtins(Options())

# Board geometry (sorry.md section 3), as location codes.
PAWNS = 4
TRACK = 60
SIDE = 15
LANE = 5
HOME = TRACK + LANE
START = HOME + 1
TURN_REL = 2
CIRCLE_REL = 4
SLIDES_REL = ((1, 4), (9, 13))
MOST_STEPS = 12

CARDS = ("1", "2", "3", "4", "5", "7", "8", "10", "11", "12", "sorry")
CARD_RANK = {card: rank for rank, card in enumerate(CARDS)}
DECKS: dict[str, dict[str, int]] = {
    "standard45": {**dict.fromkeys(CARDS, 4), "1": 5},
    "classic44": dict.fromkeys(CARDS, 4),
}
DECLINE = "decline"

# What each card allows (sorry.md 5.3): (kind of move, number of squares).
PLAYS: Plays = {
    "1": (("start", 0), ("forward", 1)),
    "2": (("start", 0), ("forward", 2)),
    "3": (("forward", 3),),
    "4": (("backward", 4),),
    "5": (("forward", 5),),
    "7": (("forward", 7), ("split", 7)),
    "8": (("forward", 8),),
    "10": (("forward", 10), ("backward", 1)),
    "11": (("forward", 11), ("swap", 0)),
    "12": (("forward", 12),),
    "sorry": (("sorry", 0),),
}


class Slide(NamedTuple):
    """A slide: its colour, its end square and the squares it sweeps (after the triangle)."""

    colour: int
    end: int
    swept: tuple[int, ...]


def _location_names() -> tuple[str, ...]:
    track = (f"track:{n}" for n in range(TRACK))
    lane = (f"lane:{k}" for k in range(1, LANE + 1))
    return (*track, *lane, "home", "start")


LOOP = Loop(TRACK, ahead=LANE + 1, behind=LANE)
"""The loop, each colour's five lane squares and home (3.3)."""


def _walk_tables(colour: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """(forward, backward) walks of ``colour``: the turn square leads into the lane."""
    forward, backward = LOOP.steps(colour * SIDE + TURN_REL, START + 1)
    return walks(forward, MOST_STEPS), walks(backward, MOST_STEPS)


def _interiors() -> tuple[int, ...]:
    """The colour of the slide whose interior (between triangle and end) each square is, or -1."""
    colours = [NOWHERE] * TRACK
    for colour in range(MAX_PLAYERS):
        for first, last in SLIDES_REL:
            for rel in range(first + 1, last):
                colours[colour * SIDE + rel] = colour
    return tuple(colours)


def _slides() -> tuple[Slide | None, ...]:
    """The slide whose triangle is each track square, if any."""
    at: list[Slide | None] = [None] * TRACK
    for colour in range(MAX_PLAYERS):
        for first, last in SLIDES_REL:
            triangle, end = colour * SIDE + first, colour * SIDE + last
            at[triangle] = Slide(colour, end, tuple(range(triangle + 1, end + 1)))
    return tuple(at)


LOCATION = _location_names()
CODE = {name: code for code, name in enumerate(LOCATION)}
FORWARD, BACKWARD = zip(*(_walk_tables(colour) for colour in range(MAX_PLAYERS)), strict=True)
SLIDE_AT = _slides()
INTERIOR_OF = _interiors()
NAMES = tuple(
    piece_id(seat, number) for seat in range(MAX_PLAYERS) for number in range(1, PAWNS + 1)
)
PIECE = {name: index for index, name in enumerate(NAMES)}


class State(msgspec.Struct, frozen=True):
    """Pawn locations (codes), the piles, whose turn it is and the card being played."""

    seats: int
    pawns: tuple[int, ...]
    pile: tuple[str, ...]
    discard: tuple[str, ...] = ()
    turn: int = 0
    card: str | None = None
    finished: bool = False
    winners: tuple[int, ...] = ()


# --- setup ------------------------------------------------------------------------------------


def setup(options: dict[str, Any], seats: int) -> State:
    """Pawns in Start (one on its start circle with ``fast_start``), the full deck to draw."""
    opts = parse_options(NAME, Options, options)
    check_table(NAME, seats, opts.first_player)
    pile = tuple(card for card in CARDS for _ in range(DECKS[opts.deck][card]))
    pawns = start_pawns(seats, opts.fast_start)
    return State(seats=seats, pawns=pawns, pile=pile, turn=opts.first_player)


def check_table(name: str, seats: int, first_player: int) -> None:
    """Refuse a player count or a first player the board does not have (sorry, sorry-hand)."""
    check_players(name, seats, MIN_PLAYERS, MAX_PLAYERS)
    check_seat("first_player", first_player, seats)


def start_pawns(seats: int, fast_start: bool) -> tuple[int, ...]:
    """Every pawn in Start, or with ``fast_start`` one per colour on its start circle."""
    pawns = [START] * (seats * PAWNS)
    if fast_start:
        for seat in range(seats):
            pawns[seat * PAWNS] = _circle(seat)
    return tuple(pawns)


def _circle(seat: int) -> int:
    return seat * SIDE + CIRCLE_REL


# --- move generation ---------------------------------------------------------------------------


class Board(Scratch):
    """The scratch board of a move: pawn locations and the pawn on each track square."""

    __slots__ = ("occ",)

    def __init__(self, locs: list[int], occ: list[int]) -> None:
        super().__init__(locs)
        self.occ = occ

    @classmethod
    def of(cls, pawns: tuple[int, ...]) -> Board:
        occ = [NOWHERE] * TRACK
        for pawn, loc in enumerate(pawns):
            if loc < TRACK:
                occ[loc] = pawn
        return cls(list(pawns), occ)

    def copy_into(self, board: Board) -> None:
        board.occ = self.occ.copy()

    def ended(self, pawn: int, square: int) -> None:
        """A movement of ``pawn`` ends on the track ``square``, not a slide of another colour:
        nothing more happens in sorry (the hook of sorry-hand's rule L4)."""


def _blocked(board: Board, pawn: int, dest: int) -> bool:
    """L1: a pawn of the mover's colour already stands on ``dest`` (track or lane)."""
    first = pawn - pawn % PAWNS
    return dest != HOME and dest in board.locs[first : first + PAWNS]


def to_start(board: Board, pawn: int, why: str) -> None:
    """``pawn`` goes back to its Start (an effect saying why)."""
    loc = board.locs[pawn]
    board.effects.append(Effect(NAMES[pawn], LOCATION[loc], "start", why))
    board.occ[loc] = NOWHERE
    board.locs[pawn] = START


def _land(board: Board, pawn: int, dest: int, why: str) -> None:
    """Move ``pawn`` to ``dest`` (L1 already checked), then bump (L2) and slide (L3)."""
    locs, occ = board.locs, board.occ
    origin = locs[pawn]
    board.steps.append(Step(NAMES[pawn], LOCATION[origin], LOCATION[dest]))
    if origin < TRACK:
        occ[origin] = NOWHERE
    locs[pawn] = dest
    if dest >= TRACK:
        return
    other = occ[dest]
    if other >= 0:
        to_start(board, other, f"{why} by {NAMES[pawn]}")
    occ[dest] = pawn
    _slide(board, pawn, dest)


def _slide(board: Board, pawn: int, square: int) -> None:
    """L3: on a triangle of another colour, slide to its end and sweep the slide to Start."""
    slide = SLIDE_AT[square]
    if slide is None or slide.colour == pawn // PAWNS:
        board.ended(pawn, square)
        return
    board.occ[square] = NOWHERE
    why = f"slide of {COLOURS[slide.colour]}"
    board.effects.append(Effect(NAMES[pawn], LOCATION[square], LOCATION[slide.end], why))
    for swept in slide.swept:
        other = board.occ[swept]
        if other >= 0:
            to_start(board, other, f"swept by the slide of {NAMES[pawn]}")
    board.occ[slide.end] = pawn
    board.locs[pawn] = slide.end


def _count(board: Board, pawn: int, walk: tuple[int, ...]) -> bool:
    """Move ``pawn`` along ``walk`` in place; False (board untouched) when illegal."""
    dest = walk[board.locs[pawn]]
    if dest == NOWHERE or _blocked(board, pawn, dest):
        return False
    _land(board, pawn, dest, "bumped")
    return True


def _own(seat: int) -> range:
    return range(seat * PAWNS, (seat + 1) * PAWNS)


def _in_start(board: Board, seat: int) -> int | None:
    """The lowest-numbered pawn of ``seat`` in Start (pawns in Start are interchangeable)."""
    for pawn in _own(seat):
        if board.locs[pawn] == START:
            return pawn
    return None


def _opponents(board: Board, seat: int) -> list[int]:
    """Opponent pawns on the track, by square."""
    return [pawn for pawn in board.occ if pawn >= 0 and pawn // PAWNS != seat]


def _start_moves(board: Board, seat: int, card: str, _: int) -> list[Move]:
    pawn = _in_start(board, seat)
    if pawn is None or _blocked(board, pawn, _circle(seat)):
        return []
    moved = board.copy()
    _land(moved, pawn, _circle(seat), "bumped")
    return [moved.move(f"{card}:start>{LOCATION[_circle(seat)]}", seat, card)]


def _walk_moves(board: Board, seat: int, card: str, walk: tuple[int, ...]) -> list[Move]:
    moves = []
    for pawn in _own(seat):
        origin = board.locs[pawn]
        dest = walk[origin]
        if dest == NOWHERE or _blocked(board, pawn, dest):
            continue
        moved = board.copy()
        _land(moved, pawn, dest, "bumped")
        moves.append(moved.move(f"{card}:{LOCATION[origin]}>{LOCATION[dest]}", seat, card))
    return moves


def _forward_moves(board: Board, seat: int, card: str, steps: int) -> list[Move]:
    return _walk_moves(board, seat, card, FORWARD[seat][steps])


def _backward_moves(board: Board, seat: int, card: str, steps: int) -> list[Move]:
    return _walk_moves(board, seat, card, BACKWARD[seat][steps])


def _in_order(board: Board, first: int, second: int, steps: int) -> Board | None:
    """Split 7: ``first`` forward ``steps`` completely, then ``second`` the rest, or None."""
    moved = board.copy()
    if not _count(moved, first, FORWARD[first // PAWNS][steps]):
        return None
    if not _count(moved, second, FORWARD[second // PAWNS][7 - steps]):
        return None
    return moved


def _split_id(moved: Board) -> str:
    parts = (f"{step.from_}>{step.to}" for step in moved.steps)
    return "7:" + "+".join(parts)


def _position(locs: list[int], seats: int) -> tuple[tuple[int, ...], ...]:
    """Final position up to interchangeable pawns of one colour."""
    return tuple(tuple(sorted(locs[s * PAWNS : (s + 1) * PAWNS])) for s in range(seats))


def _split_pair(board: Board, seat: int, p: int, q: int, steps: int) -> list[Move]:
    """The moves of ``p`` forward ``steps`` and ``q`` forward ``7 - steps``, in either order."""
    orders = [_in_order(board, p, q, steps), _in_order(board, q, p, 7 - steps)]
    legal = [moved for moved in orders if moved is not None]
    if len(legal) == 2:
        seats = len(board.locs) // PAWNS
        if _position(legal[0].locs, seats) == _position(legal[1].locs, seats):
            legal = [legal[0] if board.locs[p] < board.locs[q] else legal[1]]
    return [moved.move(_split_id(moved), seat, "7") for moved in legal]


def _split_moves(board: Board, seat: int, card: str, total: int) -> list[Move]:
    walks = FORWARD[seat]
    movers = [pawn for pawn in _own(seat) if board.locs[pawn] < HOME]
    moves = []
    for i, p in enumerate(movers):
        for q in movers[i + 1 :]:
            for steps in range(1, total):
                if walks[steps][board.locs[p]] == NOWHERE:
                    continue
                if walks[total - steps][board.locs[q]] == NOWHERE:
                    continue
                moves.extend(_split_pair(board, seat, p, q, steps))
    return moves


def _swap_moves(board: Board, seat: int, card: str, _: int) -> list[Move]:
    moves = []
    theirs = _opponents(board, seat)
    for pawn in _own(seat):
        mine = board.locs[pawn]
        if mine >= TRACK:
            continue
        for other in theirs:
            target = board.locs[other]
            moved = board.copy()
            moved.steps.append(Step(NAMES[pawn], LOCATION[mine], LOCATION[target]))
            why = f"swapped with {NAMES[pawn]}"
            moved.effects.append(Effect(NAMES[other], LOCATION[target], LOCATION[mine], why))
            moved.locs[pawn], moved.locs[other] = target, mine
            moved.occ[target], moved.occ[mine] = pawn, other
            _slide(moved, pawn, target)
            move_id = f"{card}:{LOCATION[mine]}<>{LOCATION[target]}"
            moves.append(moved.move(move_id, seat, card))
    return moves


def _sorry_moves(board: Board, seat: int, card: str, _: int) -> list[Move]:
    pawn = _in_start(board, seat)
    if pawn is None:
        return []
    moves = []
    for other in _opponents(board, seat):
        target = board.locs[other]
        moved = board.copy()
        _land(moved, pawn, target, "sorry!")
        moves.append(moved.move(f"{card}:start>{LOCATION[target]}", seat, card))
    return moves


GENERATORS: dict[str, track.Generator[Board]] = {
    "start": _start_moves,
    "forward": _forward_moves,
    "backward": _backward_moves,
    "split": _split_moves,
    "swap": _swap_moves,
    "sorry": _sorry_moves,
}


def _legal(state: State) -> list[Move]:
    """Every legal move for the card being played by the seat to act."""
    if state.card is None or state.finished:
        return []
    return list(_moves(state.pawns, state.turn, state.card))


def _moves(pawns: tuple[int, ...], seat: int, card: str) -> tuple[Move, ...]:
    """The legal moves of ``seat`` for ``card``, declining an optional swap included."""
    moves = card_moves(pawns, seat, card)
    if card == "11" and moves and all(is_swap(move) for move in moves):
        # 5.4: with no forward 11 the swap is optional, so declining is a legal move.
        return (*moves, Move(DECLINE, seat, card))
    return moves


@lru_cache(maxsize=256)
def card_moves(
    pawns: tuple[int, ...], seat: int, card: str, board: type[Board] = Board
) -> tuple[Move, ...]:
    """Every move ``card`` allows ``seat`` on ``pawns`` (never ``decline``), worked out on a
    ``board`` (a subclass for a variant's landing rule). Memoised, since legal_moves and
    decide ask for the same ones (a pure function of its arguments, so the cache is
    invisible)."""
    return tuple(track.card_moves(board.of(pawns), seat, card, PLAYS, GENERATORS))


def is_swap(move: Move) -> bool:
    """Whether a move is an 11 swap (``11:<mine><><theirs>``)."""
    return "<>" in move.id


def _can_count(own: tuple[int, ...], walk: tuple[int, ...]) -> bool:
    """Whether some pawn can count along ``walk`` to a square free of own pawns."""
    return any((dest := walk[loc]) != NOWHERE and (dest == HOME or dest not in own) for loc in own)


def _opponent_on_track(state: State, seat: int) -> bool:
    first = seat * PAWNS
    others = state.pawns[:first] + state.pawns[first + PAWNS :]
    return any(loc < TRACK for loc in others)


def _can_start(state: State, seat: int, own: tuple[int, ...], _: int) -> bool:
    return START in own and _circle(seat) not in own


def _can_forward(state: State, seat: int, own: tuple[int, ...], steps: int) -> bool:
    return _can_count(own, FORWARD[seat][steps])


def _can_backward(state: State, seat: int, own: tuple[int, ...], steps: int) -> bool:
    return _can_count(own, BACKWARD[seat][steps])


def _can_split(state: State, seat: int, own: tuple[int, ...], steps: int) -> bool:
    return bool(_split_moves(Board.of(state.pawns), seat, "7", steps))


def _can_swap(state: State, seat: int, own: tuple[int, ...], _: int) -> bool:
    return any(loc < TRACK for loc in own) and _opponent_on_track(state, seat)


def _can_sorry(state: State, seat: int, own: tuple[int, ...], _: int) -> bool:
    return START in own and _opponent_on_track(state, seat)


CHECKS: dict[str, Callable[[State, int, tuple[int, ...], int], bool]] = {
    "start": _can_start,
    "forward": _can_forward,
    "backward": _can_backward,
    "split": _can_split,
    "swap": _can_swap,
    "sorry": _can_sorry,
}


def _has_move(state: State, card: str) -> bool:
    """Whether the seat to act has a legal move, without building the moves."""
    seat = state.turn
    own = state.pawns[seat * PAWNS : (seat + 1) * PAWNS]
    return any(CHECKS[kind](state, seat, own, steps) for kind, steps in PLAYS[card])


# --- what a move does --------------------------------------------------------------------------


def played_events(move: Move, pawns: tuple[int, ...]) -> list[Event]:
    """MovePlayed for ``move`` made on ``pawns``, and GameFinished when all 4 of its seat's
    pawns are then home."""
    played = MovePlayed(move.seat, move.id, move.uses, move.steps, move.effects)
    after = moved_pawns(pawns, played)
    if all(after[pawn] == HOME for pawn in _own(move.seat)):
        colour = COLOURS[move.seat]
        return [played, GameFinished((move.seat,), f"{colour} has all 4 pawns home")]
    return [played]


def reversed_split(move_id: str) -> str:
    """The same split written in the other order (used when that order is the canonical one)."""
    card, _, parts = move_id.partition(":")
    first, plus, second = parts.partition("+")
    return f"{card}:{second}+{first}" if plus else ""


def reshuffled(state: State) -> State:
    """The discards shuffled back into the draw pile."""
    return replace(state, pile=_sorted(state.pile + state.discard), discard=())


def _sorted(cards: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=CARD_RANK.__getitem__))


def moved_pawns(pawns: tuple[int, ...], played: MovePlayed) -> tuple[int, ...]:
    """The pawns after ``played``: its steps, then its effects."""
    after = list(pawns)
    for step in played.steps:
        after[PIECE[step.piece]] = CODE[step.to]
    for effect in played.effects:
        after[PIECE[effect.piece]] = CODE[effect.to]
    return tuple(after)


def pieces(pawns: tuple[int, ...]) -> list[Piece]:
    """The pawns as the public model shows them."""
    return [Piece(NAMES[pawn], pawn // PAWNS, LOCATION[loc]) for pawn, loc in enumerate(pawns)]


def _card_done(state: State) -> State:
    """Discard the card; the turn passes unless it was a 2 (section 4, step 6)."""
    card = state.card or ""
    turn = state.turn if card == "2" else (state.turn + 1) % state.seats
    return replace(state, discard=(*state.discard, card), card=None, turn=turn)


def finished(state: State) -> dict[int, int]:
    """Pieces home per seat."""
    return home_counts(pieces(state.pawns))


class SorryView(model.View, frozen=True, kw_only=True, tag=NAME):
    """sorry's view: whose turn, the seats' colours, the draw pile's size and the discards."""

    turn: int
    colours: list[str]
    draw_pile: int
    discard: list[str]


# --- the rule set surface ----------------------------------------------------------------------


class Sorry:
    """sorry's turn as named hooks (the protocol functions); ``sorry_v1.SorryV1`` overrides
    what version 1 did differently."""

    def to_act(self, state: State) -> list[Pending]:
        """The seat to draw, or to move with the card drawn; nothing when a pass is automatic."""
        if state.finished or self.automatic(state):
            return []
        return [Pending(state.turn, "draw" if state.card is None else "move")]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """``draw`` for a seat that must draw; the card's moves for a seat that must move."""
        for pending in self.to_act(state):
            if pending.seat == seat:
                return [chance_move(pending)] if pending.kind == "draw" else _legal(state)
        return []

    def chance(self, state: State) -> ChanceNeed | None:
        """One card when a seat must draw: from the draw pile, or when it is empty from the
        discards, which are shuffled back first (``reshuffled``)."""
        if state.finished or state.card is not None:
            return None
        if not state.pile:
            pile = _sorted(state.discard)
            return Draw(pile=pile, reshuffled=len(pile)) if pile else None
        return Draw(pile=state.pile)

    def automatic(self, state: State) -> list[Event]:
        """Forfeit a card with no legal move."""
        if state.finished or state.card is None or _has_move(state, state.card):
            return []
        again = f"; {COLOURS[state.turn]} draws again" if state.card == "2" else ""
        return [TurnPassed(state.turn, f"no legal move for card '{state.card}'{again}")]

    def decide(self, state: State, seat: int, move_id: str) -> list[Event]:
        """MovePlayed for a legal move (and GameFinished when all 4 pawns are home)."""
        if state.finished:
            raise GameOver("the game is over")
        if seat != state.turn:
            raise NotYourTurn(f"it is seat {state.turn + 1}'s turn, not seat {seat + 1}'s")
        if state.card is None:
            raise IllegalMove(
                f"move {move_id!r} is not legal: {COLOURS[seat]} must draw a card first"
            )
        moves = {move.id: move for move in _legal(state)}
        move = moves.get(move_id) or moves.get(reversed_split(move_id))
        if move is None:
            raise IllegalMove(explain(state, move_id, list(moves)))
        return played_events(move, state.pawns)

    def apply(self, state: State, event: Event) -> State:
        """The reducer."""
        match event:
            case CardDrawn(card=card):
                if not state.pile:  # the bare outcome of a draw that reshuffles (bots, analysis)
                    state = reshuffled(state)
                at = state.pile.index(card)
                return replace(state, pile=state.pile[:at] + state.pile[at + 1 :], card=card)
            case MovePlayed():
                return _card_done(replace(state, pawns=moved_pawns(state.pawns, event)))
            case TurnPassed():
                return _card_done(state)
            case DeckShuffled():
                return reshuffled(state)
            case GameFinished(winners=winners):
                return replace(state, finished=True, winners=winners)
        return state

    def view(self, state: State, viewer: Viewer) -> SorryView:
        """Everything is public in sorry except the order of the draw pile (which is not kept)."""
        return SorryView(
            status=status_of(state.finished),
            pieces=pieces(state.pawns),
            to_act=self.to_act(state),
            chance=None if state.card is None else Outcome(card=state.card),
            winners=list(state.winners),
            turn=state.turn,
            colours=list(COLOURS[: state.seats]),
            draw_pile=len(state.pile),
            discard=list(state.discard),
        )


RULES = Sorry()
"""The rule set's one instance: the module's protocol functions are its bound methods."""
to_act = RULES.to_act
legal_moves = RULES.legal_moves
chance = RULES.chance
automatic = RULES.automatic
decide = RULES.decide
apply = RULES.apply
view = RULES.view


# --- why a move is illegal ---------------------------------------------------------------------


def explain(state: State, move_id: str, legal: list[str]) -> str:
    """Why ``move_id`` is not legal for the card being played (a lower-case sentence)."""
    card = state.card or ""
    if move_id == DECLINE:
        if card != "11":
            return f"move 'decline' is not legal: only an 11 swap can be declined, not {card!r}"
        return "card '11' cannot be declined: a forward 11 is possible, so a move is compulsory"
    used, _, rest = move_id.partition(":")
    if used != card:
        return f"move {move_id!r} uses card {used!r}, but the card drawn is {card!r}"
    parts = [_parse_part(part) for part in rest.split("+")]
    if len(parts) > 2 or any(part is None for part in parts):
        return f"move {move_id!r} is not a move id: expected '{card}:<from>><to>'"
    reason = _reason(state, card, [part for part in parts if part is not None])
    if reason:
        return reason
    return f"move {move_id!r} is not legal with card {card!r}; legal moves: {listed(legal)}"


def _parse_part(part: str) -> tuple[int, int] | None:
    origin, sep, dest = part.partition(">")
    origin = origin.removesuffix("<")
    if not sep or origin not in CODE or dest not in CODE:
        return None
    return CODE[origin], CODE[dest]


def _reason(state: State, card: str, parts: list[tuple[int, int]]) -> str | None:
    """A specific reason, when one is evident, why these displacements cannot be made."""
    seat = state.turn
    for origin, _ in parts:
        reason = _origin_reason(state, seat, card, origin)
        if reason:
            return reason
    if len(parts) == 2:
        return _split_reason(state, seat, parts)
    origin, dest = parts[0]
    if card == "sorry" and not _opponent_at(state, seat, dest):
        return f"card 'sorry' needs an opponent pawn on the track at {LOCATION[dest]}"
    if origin == START or (card == "11" and dest != FORWARD[seat][11][origin]):
        return None
    pawn = next(p for p in _own(seat) if state.pawns[p] == origin)
    return _count_reason(state, card, pawn, dest)


def _opponent_at(state: State, seat: int, square: int) -> bool:
    return square < TRACK and any(
        loc == square for pawn, loc in enumerate(state.pawns) if pawn // PAWNS != seat
    )


def _origin_reason(state: State, seat: int, card: str, origin: int) -> str | None:
    colour = COLOURS[seat]
    if origin == START:
        if card not in ("1", "2", "sorry"):
            return f"card {card!r} cannot move a pawn out of start: only 1, 2 and sorry! can"
        if START not in state.pawns[seat * PAWNS : (seat + 1) * PAWNS]:
            return f"card {card!r} cannot start a pawn: {colour} has no pawn in start"
        return None
    if origin == HOME:
        return f"card {card!r} cannot move a pawn out of home: a pawn at home never moves again"
    if origin not in state.pawns[seat * PAWNS : (seat + 1) * PAWNS]:
        return f"card {card!r} cannot move from {LOCATION[origin]}: no {colour} pawn is there"
    return None


def _split_reason(state: State, seat: int, parts: list[tuple[int, int]]) -> str | None:
    """A split whose parts are not two different pawns moving forward 7 squares in all."""
    if parts[0][0] == parts[1][0]:
        return "a split 7 must move two different pawns"
    walks = FORWARD[seat]
    counts = [next((n for n in range(1, 7) if walks[n][o] == d), 0) for o, d in parts]
    if 0 in counts or sum(counts) != 7:
        return "the two parts of a split 7 must move forward 7 squares in all"
    return None


def _count_reason(state: State, card: str, pawn: int, dest: int) -> str | None:
    """Why ``pawn`` cannot count to ``dest`` with ``card``."""
    name, origin, colour = NAMES[pawn], state.pawns[pawn], pawn // PAWNS
    tables = {"forward": FORWARD[colour], "backward": BACKWARD[colour]}
    walks = [(n, tables[kind][n][origin]) for kind, n in PLAYS[card] if kind in tables]
    if any(reached == dest for _, reached in walks):
        if _blocked(Board.of(state.pawns), pawn, dest):
            return f"card {card!r} cannot move {name} to {LOCATION[dest]}: an own pawn is there"
        return None
    steps, reached = walks[0]
    if reached == NOWHERE:
        return f"card {card!r} cannot move {name} {steps} squares: it would pass home"
    there = LOCATION[reached]
    return f"card {card!r} moves {name} from {LOCATION[origin]} to {there}, not {LOCATION[dest]}"


redact = no_secrets

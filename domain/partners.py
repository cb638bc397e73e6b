"""Partners, the Danish team race game with 4-card hands (rule set ``partners``, partners.md).

Exactly 4 seats in two teams: seats 0 + 2 (team A, yellow and blue) and 1 + 3 (team B, red
and green). Colours follow partners.md, not ``domain.model.COLOURS``: seat 0 yellow, 1 red,
2 blue, 3 green, so piece ids are ``yellow-1`` .. ``green-4`` (colour, dash, number).

Positions: ``start`` (the home circle), ``track:N`` (P0..P{4L-1}, L = ``section_length``; the
start space of seat s is ``track:{L*s}``), and ``lane:K`` (the own finish zone, K = 1..4, 4 the
innermost). There is no ``home``: a pawn in the finish zone stays ``lane:K``; it is finished
(never moves again) once every deeper lane square is occupied, and the view lists the done
seats. Internally a location is a code: 0..4L-1 track, 4L + K - 1 lane K, 4L + 4 the circle;
pawn ``seat * 4 + i`` is the piece ``<colour>-<i + 1>``.

Card type ids (``uses`` of a move, and the cards of a hand): ``N2 N3 N5 N6 N9 N10 N12``
(forward that many), ``START``, ``START_8``, ``START_13`` (start, or forward 8 / 13),
``BACK_4``, ``ONE_14`` (forward 1 or 14), ``SEVEN`` (split 7) and ``SWAP``.

A deal cycle: ``deal`` (chance: ``Deal`` of 4 cards to each seat from the dealer's left) ->
``exchange`` (all four seats pending at once, ``CardExchanged``; the cards change hands when
all four have chosen) -> ``play`` (from the dealer's left, clockwise, seats with cards only;
a seat with no playable card lays its hand down: automatic ``TurnPassed``) -> the next deal.
Each dealer deals three times in a row. ``DeckShuffled`` (automatic) gathers the discard into
the draw pile before every deal (``reshuffle = every_deal``) or before a dealer's first deal
(``per_dealer``). The pile is a multiset kept in card order; draws are uniform.

Move ids (a pawn of the partner's colour, moved by a done player, is written ``<colour>@<from>``):

================================  ==============================================================
``exchange:<card>``               the card given to the partner: ``exchange:SEVEN``
``<card>:start><to>``             start move: ``START_8:start>track:0``, or for a done yellow
                                  ``START:blue@start>track:30``
``<card>:<from>><to>``            one pawn forward or backward, ``<to>`` where its walk ends
                                  (a bounce included; if that square holds a stack of another
                                  colour the pawn then goes to its circle, an effect):
                                  ``N5:track:57>lane:1``, ``BACK_4:track:0>track:56``
``SEVEN:<from>><to>+...``         the parts of a 7 in execution order; of several orders with the
                                  same final position, only the first in the search order (pawns
                                  by location code, each pawn's part from 1 step up) is listed
``SWAP:<square><><square>``       swap of the pawns on two track squares, lower square first
================================  ==============================================================

A move's ``steps`` are each moved pawn's own walk (``from`` -> where it ends); ``effects`` are
captures (``captured by ...``), a mover sent to its circle by a stack, and the swapped pawn.
``apply`` replays steps, then effects.

Errors (``domain.model``)::

    GameError
     +-- BadSetup        (player count, deck_counts, section_length, reshuffle, ...)
     +-- IllegalMove     (says why)
     +-- NotYourTurn
     +-- GameOver
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Annotated, Any, Literal, NamedTuple, get_args

import msgspec
from msgspec.structs import replace

from domain import model
from domain.events import (
    CardExchanged,
    CardsDealt,
    DeckShuffled,
    Event,
    GameFinished,
    MovePlayed,
    TurnPassed,
)
from domain.model import (
    HIDDEN,
    BadSetup,
    ChanceNeed,
    Deal,
    Effect,
    GameOver,
    Hand,
    IllegalMove,
    Move,
    NotYourTurn,
    Pending,
    Piece,
    Step,
    Viewer,
    chance_move,
    check_players,
    parse_options,
    status_of,
)

NAME = "partners"
VERSION = 1
MIN_PLAYERS = 4
MAX_PLAYERS = 4
STACKING = True
"""Two or more pawns of one colour may share a track square (a safe stack)."""
STACK_LIMIT = 4
"""A stack has no limit but the 4 pawns of a colour (partners.md 3.4)."""

COLOURS = ("yellow", "red", "blue", "green")
SEATS = 4
PAWNS = 4
LANE = 4
HAND = 4
DEALS_PER_DEALER = 3
NOWHERE = -1

Card = Literal[
    "N2",
    "N3",
    "N5",
    "N6",
    "N9",
    "N10",
    "N12",
    "START",
    "START_8",
    "START_13",
    "BACK_4",
    "ONE_14",
    "SEVEN",
    "SWAP",
]
CARDS: tuple[Card, ...] = get_args(Card)
CARD_RANK = {card: rank for rank, card in enumerate(CARDS)}
START_CARDS = ("START", "START_8", "START_13")

# What each card allows (partners.md 5.6): (kind of move, number of steps).
PLAYS: dict[str, tuple[tuple[str, int], ...]] = {
    **{f"N{n}": (("forward", n),) for n in (2, 3, 5, 6, 9, 10, 12)},
    "START": (("start", 0),),
    "START_8": (("start", 0), ("forward", 8)),
    "START_13": (("start", 0), ("forward", 13)),
    "BACK_4": (("backward", 4),),
    "ONE_14": (("forward", 1), ("forward", 14)),
    "SEVEN": (("seven", 7),),
    "SWAP": (("swap", 0),),
}


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The options of partners."""

    deck_counts: Annotated[
        dict[Card, Annotated[int, msgspec.Meta(ge=0, le=16)]],
        msgspec.Meta(
            description="copies of each card type: the whole deck (a type left out has none); "
            "at least 16 cards, 48 with reshuffle per_dealer"
        ),
    ] = msgspec.field(default_factory=lambda: dict.fromkeys(CARDS, 4))
    section_length: Annotated[
        int,
        msgspec.Meta(ge=2, le=1000, description="track squares per seat, its start space included"),
    ] = 15
    reshuffle: Annotated[
        Literal["every_deal", "per_dealer"],
        msgspec.Meta(
            description="every_deal: all cards are gathered and shuffled before every deal; "
            "per_dealer: only before a dealer's first of three deals"
        ),
    ] = "every_deal"
    partner_capture: Annotated[
        bool,
        msgspec.Meta(
            description="a pawn may capture a lone pawn of the partner's colour (and is sent "
            "home by the partner's stack); false: it may not end on the partner's pawns"
        ),
    ] = True
    first_dealer: Annotated[
        int, msgspec.Meta(ge=0, le=3, description="the first dealer ; its left plays first")
    ] = 0


OPTIONS: dict[str, Any] = msgspec.to_builtins(Options())

NAMES = tuple(f"{COLOURS[seat]}-{n}" for seat in range(SEATS) for n in range(1, PAWNS + 1))
PIECE = {name: index for index, name in enumerate(NAMES)}

# Walk failures (negative results of ``_walk``); a blocked start space S is ``BLOCKED - S``.
NO_ENTRY = -1  # the next lane square is occupied and the pawn may not turn around
JUMP = -2  # a lane pawn is in the way of the backward part of a bounce
BLOCKED = -3


def partner(seat: int) -> int:
    """The seat opposite ``seat``."""
    return (seat + 2) % SEATS


def team(seat: int) -> tuple[int, int]:
    """The two seats of ``seat``'s team, lower first."""
    return (seat % 2, seat % 2 + 2)


# --- board geometry -----------------------------------------------------------------------------


class Geometry(NamedTuple):
    """The board for one ``section_length``: location names and one-step tables per colour."""

    track: int
    circle: int
    names: tuple[str, ...]
    codes: dict[str, int]
    starts: tuple[int, ...]
    forward: tuple[tuple[int, ...], ...]
    backward: tuple[tuple[int, ...], ...]


def _forward_step(track: int, entry: int, loc: int) -> int:
    """partners.md 3.3: the lane entry square leads into lane 1; lane 4 leads nowhere."""
    if loc < track:
        return track if loc == entry else (loc + 1) % track
    return loc + 1 if loc < track + LANE - 1 else NOWHERE


def _backward_step(track: int, entry: int, loc: int) -> int:
    """partners.md 3.3: never into a lane; lane 1 leads back to the lane entry square."""
    if loc < track:
        return (loc - 1) % track
    if loc == track:
        return entry
    return loc - 1 if loc < track + LANE else NOWHERE


@lru_cache(maxsize=8)
def geometry(length: int) -> Geometry:
    """The tables for a track of 4 sections of ``length`` squares."""
    track = SEATS * length
    names = (
        *(f"track:{n}" for n in range(track)),
        *(f"lane:{k}" for k in range(1, LANE + 1)),
        "start",
    )
    starts = tuple(length * seat for seat in range(SEATS))
    entries = tuple((start - 1) % track for start in starts)
    locs = range(track + LANE + 1)
    return Geometry(
        track=track,
        circle=track + LANE,
        names=names,
        codes={name: code for code, name in enumerate(names)},
        starts=starts,
        forward=tuple(tuple(_forward_step(track, e, loc) for loc in locs) for e in entries),
        backward=tuple(tuple(_backward_step(track, e, loc) for loc in locs) for e in entries),
    )


# --- state --------------------------------------------------------------------------------------


class State(msgspec.Struct, frozen=True):
    """Pawns (location codes), hands, piles, the deal cycle and the seat to play."""

    pawns: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    pile: tuple[str, ...]
    discard: tuple[str, ...] = ()
    phase: str = "deal"
    """``deal``, ``exchange`` or ``play``."""
    first_dealer: int = 0
    deals: int = 0
    """Deals made so far; the dealer changes every three."""
    turn: int = NOWHERE
    given: tuple[str, ...] = ("", "", "", "")
    """Exchange cards chosen so far in this deal (``""`` = not yet), by giver."""
    length: int = 15
    reshuffle: str = "every_deal"
    partner_capture: bool = True
    finished: bool = False
    winners: tuple[int, ...] = ()


def _sorted_cards(cards: Any) -> tuple[str, ...]:
    return tuple(sorted(cards, key=CARD_RANK.__getitem__))


def _without(cards: tuple[str, ...], taken: tuple[str, ...]) -> tuple[str, ...]:
    left = list(cards)
    for card in taken:
        left.remove(card)
    return tuple(left)


def setup(options: dict[str, Any], seats: int) -> State:
    """All pawns in their circles, the whole deck in the draw pile, the first deal due."""
    opts = parse_options(NAME, Options, options)
    check_players(NAME, seats, MIN_PLAYERS, MAX_PLAYERS)
    length = opts.section_length
    return State(
        pawns=(geometry(length).circle,) * (SEATS * PAWNS),
        hands=((),) * SEATS,
        pile=_deck(opts.deck_counts, opts.reshuffle),
        first_dealer=opts.first_dealer,
        length=length,
        reshuffle=opts.reshuffle,
        partner_capture=opts.partner_capture,
    )


def _deck(counts: dict[Card, int], reshuffle: str) -> tuple[str, ...]:
    """The deck of ``deck_counts`` (the whole composition: unlisted types have no copies)."""
    least = HAND * SEATS * (DEALS_PER_DEALER if reshuffle == "per_dealer" else 1)
    total = sum(counts.values())
    if total < least:
        raise BadSetup(
            f"deck_counts: {total} cards are too few; reshuffle {reshuffle!r} needs {least}"
        )
    return tuple(card for card in CARDS for _ in range(counts.get(card, 0)))


# --- deal cycle ---------------------------------------------------------------------------------


def dealer(state: State) -> int:
    """The dealer of the current deal (or of the next one, between deals)."""
    made = state.deals - 1 if state.phase != "deal" else state.deals
    return (state.first_dealer + made // DEALS_PER_DEALER) % SEATS


def _needs_shuffle(state: State) -> bool:
    if not state.discard:
        return False
    fresh = state.reshuffle == "every_deal" or state.deals % DEALS_PER_DEALER == 0
    return fresh or len(state.pile) < HAND * SEATS


def _next_turn(hands: tuple[tuple[str, ...], ...], after: int) -> int:
    """The next seat clockwise (``after`` itself last) still holding cards, or NOWHERE."""
    for k in range(1, SEATS + 1):
        seat = (after + k) % SEATS
        if hands[seat]:
            return seat
    return NOWHERE


def _after_turn(state: State, hands: tuple[tuple[str, ...], ...], seat: int) -> State:
    turn = _next_turn(hands, seat)
    phase = "play" if turn != NOWHERE else "deal"
    return replace(state, hands=hands, turn=turn, phase=phase)


# --- move generation ----------------------------------------------------------------------------


class Board:
    """A scratch copy of the pawns while a move is worked out (never part of the state)."""

    __slots__ = ("capture", "effects", "geo", "locs", "parts", "steps")

    def __init__(self, geo: Geometry, locs: list[int], capture: bool) -> None:
        self.geo = geo
        self.locs = locs
        self.capture = capture
        self.steps: list[Step] = []
        self.effects: list[Effect] = []
        self.parts: list[str] = []

    def copy(self) -> Board:
        board = Board(self.geo, self.locs.copy(), self.capture)
        board.steps, board.effects, board.parts = (
            self.steps.copy(),
            self.effects.copy(),
            self.parts.copy(),
        )
        return board

    def done(self, colour: int) -> bool:
        """All four pawns of ``colour`` in the lane (so the lane is full: all finished)."""
        track, circle = self.geo.track, self.geo.circle
        return all(track <= loc < circle for loc in self.locs[colour * PAWNS : colour * PAWNS + 4])

    def pawn_at(self, colour: int, loc: int, skip: int = 0) -> int:
        """The lowest-numbered pawn of ``colour`` on ``loc`` not in the bit set ``skip``."""
        for pawn in range(colour * PAWNS, colour * PAWNS + PAWNS):
            if self.locs[pawn] == loc and not skip >> pawn & 1:
                return pawn
        return NOWHERE

    def blocked(self, colour: int) -> frozenset[int]:
        """Start spaces of other colours with a pawn of their colour on them (3.4)."""
        starts, locs = self.geo.starts, self.locs
        return frozenset(
            starts[x]
            for x in range(SEATS)
            if x != colour and starts[x] in locs[x * PAWNS : x * PAWNS + PAWNS]
        )

    def lane_busy(self, colour: int, mover: int) -> frozenset[int]:
        first = colour * PAWNS
        track = self.geo.track
        return frozenset(
            loc
            for p, loc in enumerate(self.locs[first : first + PAWNS], first)
            if p != mover and loc >= track
        )

    def others_on(self, square: int, mover: int) -> list[int]:
        locs = self.locs
        if square not in locs:
            return []
        return [p for p, loc in enumerate(locs) if loc == square and p != mover]


def _walk(board: Board, pawn: int, steps: int) -> int:
    """Where ``pawn`` ends after ``steps`` forward steps (bounce included, 5.2), or a failure."""
    path = _path(board, pawn, steps)
    return path[-1] if len(path) == steps or path[-1] < 0 else NO_ENTRY


def _path(board: Board, pawn: int, steps: int) -> list[int]:
    """Where ``pawn`` stands after each of up to ``steps`` forward steps; a failure (negative)
    ends the list, since a longer count would meet it too."""
    geo, colour = board.geo, pawn // PAWNS
    fwd, back, track = geo.forward[colour], geo.backward[colour], geo.track
    busy, blocked = board.lane_busy(colour, pawn), board.blocked(colour)
    pos, forward = board.locs[pawn], True
    path: list[int] = []
    for taken in range(steps):
        if forward:
            nxt = fwd[pos]
            if pos >= track and (nxt == NOWHERE or nxt in busy):
                if taken == 0:
                    return [NO_ENTRY]
                forward, nxt = False, back[pos]
            elif nxt in busy:
                return [*path, NO_ENTRY]
        else:
            nxt = back[pos]
        if nxt >= track:
            if nxt in busy:
                return [*path, JUMP]
        elif nxt in blocked:
            return [*path, BLOCKED - nxt]
        path.append(nxt)
        pos = nxt
    return path


def _walk_back(board: Board, pawn: int, steps: int) -> int:
    """Where a track pawn ends after ``steps`` backward steps (5.3), or a failure."""
    colour = pawn // PAWNS
    back, blocked = board.geo.backward[colour], board.blocked(colour)
    pos = board.locs[pawn]
    for _ in range(steps):
        pos = back[pos]
        if pos in blocked:
            return BLOCKED - pos
    return pos


def _landing(board: Board, pawn: int, square: int) -> str | None:
    """Why ``pawn`` may not end on the track square ``square`` (5.4), or None."""
    others = board.others_on(square, pawn)
    if not others or others[0] // PAWNS == pawn // PAWNS:
        return None
    owner = others[0] // PAWNS
    if owner == partner(pawn // PAWNS) and not board.capture:
        return f"{board.geo.names[square]} holds a pawn of the partner's colour"
    return None


def _arrive(board: Board, pawn: int, square: int, label: str) -> None:
    """Put ``pawn`` on ``square`` and apply the destination rules (5.4); legality checked."""
    geo, locs = board.geo, board.locs
    origin = locs[pawn]
    name = NAMES[pawn]
    board.steps.append(Step(name, geo.names[origin], geo.names[square]))
    board.parts.append(f"{label}{geo.names[origin]}>{geo.names[square]}")
    others = board.others_on(square, pawn) if square < geo.track else []
    locs[pawn] = square
    if not others or others[0] // PAWNS == pawn // PAWNS:
        return
    if len(others) == 1:
        locs[others[0]] = geo.circle
        board.effects.append(
            Effect(NAMES[others[0]], geo.names[square], "start", f"captured by {name}")
        )
        return
    locs[pawn] = geo.circle
    stack = COLOURS[others[0] // PAWNS]
    why = f"ended on the {stack} stack on {geo.names[square]}"
    board.effects.append(Effect(name, geo.names[square], "start", why))


def _label(seat: int, pawn: int) -> str:
    colour = pawn // PAWNS
    return "" if colour == seat else f"{COLOURS[colour]}@"


def _start(board: Board, seat: int, colour: int) -> str | None:
    """Start a pawn of ``colour`` in place (5.5); why not, if it cannot."""
    geo = board.geo
    pawn = board.pawn_at(colour, geo.circle)
    if pawn == NOWHERE:
        return f"{COLOURS[colour]} has no pawn in its circle"
    square = geo.starts[colour]
    others = board.others_on(square, pawn)
    if len(others) > 1 and others[0] // PAWNS != colour:
        return f"the start space {geo.names[square]} holds a {COLOURS[others[0] // PAWNS]} stack"
    reason = _landing(board, pawn, square)
    if reason is None:
        _arrive(board, pawn, square, _label(seat, pawn))
    return reason


def _go(board: Board, seat: int, pawn: int, steps: int, backward: bool = False) -> bool:
    """Move ``pawn`` forward (or backward) ``steps`` in place; False (board spoilt) if illegal."""
    square = _walk_back(board, pawn, steps) if backward else _walk(board, pawn, steps)
    if square < 0 or (square < board.geo.track and _landing(board, pawn, square)):
        return False
    _arrive(board, pawn, square, _label(seat, pawn))
    return True


def _mover(board: Board, seat: int) -> int:
    """The colour ``seat`` moves: its own, or its partner's once it is done (5.1)."""
    return partner(seat) if board.done(seat) else seat


def _origins(board: Board, colour: int, skip: int = 0) -> list[tuple[int, int]]:
    """(location, pawn) of each location holding movable pawns of ``colour`` (circle excluded)."""
    found: dict[int, int] = {}
    for pawn in range(colour * PAWNS, colour * PAWNS + PAWNS):
        loc = board.locs[pawn]
        if loc != board.geo.circle and not skip >> pawn & 1 and loc not in found:
            found[loc] = pawn
    return sorted(found.items())


def _move(board: Board, seat: int, card: str) -> Move:
    move_id = f"{card}:" + "+".join(board.parts)
    return Move(move_id, seat, card, tuple(board.steps), tuple(board.effects))


def _start_moves(board: Board, seat: int, card: str, _: int) -> list[Move]:
    moved = board.copy()
    if _start(moved, seat, _mover(board, seat)) is not None:
        return []
    return [_move(moved, seat, card)]


def _count_moves(board: Board, seat: int, card: str, steps: int, backward: bool) -> list[Move]:
    moves = []
    track = board.geo.track
    for loc, pawn in _origins(board, _mover(board, seat)):
        if backward and loc >= track:
            continue
        moved = board.copy()
        if _go(moved, seat, pawn, steps, backward):
            moves.append(_move(moved, seat, card))
    return moves


def _forward_moves(board: Board, seat: int, card: str, steps: int) -> list[Move]:
    return _count_moves(board, seat, card, steps, False)


def _backward_moves(board: Board, seat: int, card: str, steps: int) -> list[Move]:
    return _count_moves(board, seat, card, steps, True)


def _position(locs: list[int]) -> tuple[int, ...]:
    """A position up to interchangeable pawns of one colour."""
    return tuple(loc for c in range(SEATS) for loc in sorted(locs[c * PAWNS : c * PAWNS + PAWNS]))


def _seven_moves(board: Board, seat: int, card: str, total: int) -> list[Move]:
    """Every split of the 7 (5.7), one move per final position, in search order."""
    found: dict[tuple[int, ...], Board] = {}
    seen: set[tuple[tuple[int, ...], int, int]] = set()

    def search(current: Board, used: int, left: int) -> None:
        if left == 0:
            found.setdefault(_position(current.locs), current)
            return
        key = (tuple(current.locs), used, left)
        if key in seen:
            return
        seen.add(key)
        track = current.geo.track
        for _, pawn in _origins(current, _mover(current, seat), used):
            for steps, square in enumerate(_path(current, pawn, left), 1):
                if square < 0 or (square < track and _landing(current, pawn, square)):
                    continue
                moved = current.copy()
                _arrive(moved, pawn, square, _label(seat, pawn))
                search(moved, used | 1 << pawn, left - steps)

    search(board, 0, total)
    return [_move(moved, seat, card) for moved in found.values()]


def _swappable(board: Board) -> list[int]:
    """Pawns that may be swapped (5.8), by square: alone on a track square that is no start."""
    geo, locs = board.geo, board.locs
    count: dict[int, int] = {}
    for loc in locs:
        count[loc] = count.get(loc, 0) + 1
    starts = set(geo.starts)
    eligible = [
        p for p, loc in enumerate(locs) if loc < geo.track and loc not in starts and count[loc] == 1
    ]
    return sorted(eligible, key=locs.__getitem__)


def _swap_moves(board: Board, seat: int, card: str, _: int) -> list[Move]:
    geo, locs = board.geo, board.locs
    eligible = _swappable(board)
    moves = []
    for i, a in enumerate(eligible):
        for b in eligible[i + 1 :]:
            if a // PAWNS == b // PAWNS:
                continue
            here, there = geo.names[locs[a]], geo.names[locs[b]]
            step = Step(NAMES[a], here, there)
            effect = Effect(NAMES[b], there, here, f"swapped with {NAMES[a]}")
            moves.append(Move(f"{card}:{here}<>{there}", seat, card, (step,), (effect,)))
    return moves


GENERATORS: dict[str, Callable[[Board, int, str, int], list[Move]]] = {
    "start": _start_moves,
    "forward": _forward_moves,
    "backward": _backward_moves,
    "seven": _seven_moves,
    "swap": _swap_moves,
}


def _board(state: State) -> Board:
    return Board(geometry(state.length), list(state.pawns), state.partner_capture)


def card_moves(state: State, seat: int, card: str) -> list[Move]:
    """Every legal move of ``seat`` with ``card`` in this position (whatever its hand)."""
    board = _board(state)
    moves: dict[str, Move] = {}
    for kind, steps in PLAYS[card]:
        for move in GENERATORS[kind](board, seat, card, steps):
            moves.setdefault(move.id, move)
    return list(moves.values())


@lru_cache(maxsize=256)
def _plays(state: State) -> tuple[Move, ...]:
    """Every legal move of the seat to play, card by card in card order (memoised: to_act,
    automatic, legal_moves and decide all ask for the same state)."""
    if state.finished or state.phase != "play":
        return ()
    seat = state.turn
    return tuple(
        move for card in dict.fromkeys(state.hands[seat]) for move in card_moves(state, seat, card)
    )


# --- the rule set surface -----------------------------------------------------------------------


def to_act(state: State) -> list[Pending]:
    """The dealer (deal), every seat yet to choose (exchange) or the seat to play."""
    if state.finished or automatic(state):
        return []
    if state.phase == "deal":
        return [Pending(dealer(state), "deal")]
    if state.phase == "exchange":
        return [Pending(seat, "exchange") for seat in range(SEATS) if not state.given[seat]]
    return [Pending(state.turn, "move")]


def legal_moves(state: State, seat: int) -> list[Move]:
    """``deal`` for the dealer, ``exchange:<card>`` per distinct card, or the plays."""
    for pending in to_act(state):
        if pending.seat != seat:
            continue
        if pending.kind == "deal":
            return [chance_move(pending)]
        if pending.kind == "exchange":
            cards = dict.fromkeys(state.hands[seat])
            return [Move(f"exchange:{card}", seat, card) for card in cards]
        return list(_plays(state))
    return []


def chance(state: State) -> ChanceNeed | None:
    """Four cards to each seat, from the dealer's left round to the dealer, when a deal is due."""
    if state.finished or state.phase != "deal" or _needs_shuffle(state):
        return None
    first = dealer(state)
    seats = tuple((first + k) % SEATS for k in range(1, SEATS + 1))
    return Deal(pile=state.pile, seats=seats, count=HAND)


def automatic(state: State) -> list[Event]:
    """Gather and shuffle before a deal; lay down a hand that has no playable card."""
    if state.finished:
        return []
    if state.phase == "deal":
        if _needs_shuffle(state):
            return [DeckShuffled(cards=len(state.pile) + len(state.discard))]
        return []
    if state.phase == "play" and not _plays(state):
        seat = state.turn
        cards = ", ".join(state.hands[seat])
        why = f"no card has a legal move: {COLOURS[seat]} lays down {cards}"
        return [TurnPassed(seat, why)]
    return []


def decide(state: State, seat: int, move_id: str) -> list[Event]:
    """The events of a decision: CardExchanged, or MovePlayed (and GameFinished on a win)."""
    if state.finished:
        raise GameOver(f"move {move_id!r}: the game is over")
    if state.phase == "play" and seat == state.turn:
        return _play(state, seat, move_id)
    pending = to_act(state)
    mine = [p for p in pending if p.seat == seat]
    if not mine:
        waiting = ", ".join(f"seat {p.seat} ({p.kind})" for p in pending) or "automatic events"
        raise NotYourTurn(f"move {move_id!r}: seat {seat} is not to act; waiting for {waiting}")
    kind = mine[0].kind
    if kind == "deal":
        raise IllegalMove(f"move {move_id!r}: the deal is a chance step, made by the service")
    return [_exchange(state, seat, move_id)]


def _play(state: State, seat: int, move_id: str) -> list[Event]:
    """MovePlayed for a legal play, and GameFinished when it completes a team."""
    move = next((m for m in _plays(state) if m.id == move_id), None)
    if move is None:
        raise IllegalMove(explain(state, seat, move_id))
    played = MovePlayed(seat, move.id, move.uses, move.steps, move.effects)
    after = apply(state, played)
    board = _board(after)
    for side in (team(seat), team(seat + 1)):
        if all(board.done(colour) for colour in side):
            names = " and ".join(COLOURS[colour] for colour in side)
            return [played, GameFinished(side, f"{names} have all 8 pawns in their lanes")]
    return [played]


def _exchange(state: State, seat: int, move_id: str) -> CardExchanged:
    kind, _, card = move_id.partition(":")
    hand = state.hands[seat]
    if kind != "exchange" or card not in CARD_RANK:
        raise IllegalMove(f"move {move_id!r} is not an exchange: expected 'exchange:<card>'")
    if card not in hand:
        shown = ", ".join(hand)
        raise IllegalMove(f"move {move_id!r}: card {card!r} is not in the hand ({shown})")
    return CardExchanged(seat, card, partner(seat))


def apply(state: State, event: Event) -> State:
    """The reducer."""
    match event:
        case CardsDealt(seats=seats, hands=dealt):
            hands = list(state.hands)
            for seat, hand in zip(seats, dealt, strict=True):
                hands[seat] = _sorted_cards(hand)
            pile = _without(state.pile, tuple(card for hand in dealt for card in hand))
            return replace(
                state, hands=tuple(hands), pile=pile, phase="exchange", deals=state.deals + 1
            )
        case CardExchanged(seat=seat, card=card):
            hands = list(state.hands)
            hands[seat] = _without(hands[seat], (card,))
            given = tuple(card if s == seat else g for s, g in enumerate(state.given))
            if not all(given):
                return replace(state, hands=tuple(hands), given=given)
            for s in range(SEATS):
                hands[s] = _sorted_cards((*hands[s], given[partner(s)]))
            first = (dealer(state) + 1) % SEATS
            return replace(state, hands=tuple(hands), given=("",) * SEATS, phase="play", turn=first)
        case MovePlayed(seat=seat, uses=card, steps=steps, effects=effects):
            geo = geometry(state.length)
            pawns = list(state.pawns)
            for step in steps:
                pawns[PIECE[step.piece]] = geo.codes[step.to]
            for effect in effects:
                pawns[PIECE[effect.piece]] = geo.codes[effect.to]
            hands = list(state.hands)
            hands[seat] = _without(hands[seat], (str(card),))
            played = replace(state, pawns=tuple(pawns), discard=(*state.discard, str(card)))
            return _after_turn(played, tuple(hands), seat)
        case TurnPassed(seat=seat):
            hands = list(state.hands)
            laid, hands[seat] = hands[seat], ()
            return _after_turn(replace(state, discard=state.discard + laid), tuple(hands), seat)
        case DeckShuffled():
            pile = _sorted_cards(state.pile + state.discard)
            return replace(state, pile=pile, discard=())
        case GameFinished(winners=winners):
            return replace(state, finished=True, winners=winners)
    return state


def redact(event: Event, viewer: Viewer) -> Event:
    """Other seats' dealt cards and exchanged cards hidden, except from their two partners."""
    if viewer == "referee":
        return event
    match event:
        case CardsDealt(seats=seats, hands=hands):
            shown = tuple(
                hand if seat == viewer else (HIDDEN,) * len(hand)
                for seat, hand in zip(seats, hands, strict=True)
            )
            return replace(event, hands=shown)
        case CardExchanged(seat=seat, to=to) if viewer not in (seat, to):
            return replace(event, card=HIDDEN)
    return event


def finished(state: State) -> dict[int, int]:
    """Finished pawns per seat: a pawn is finished when it and every deeper square of its lane
    are filled (the zone fills from the innermost square, Lane 4)."""
    names, counts = geometry(state.length).names, {}
    for seat in range(SEATS):
        at = {names[loc] for loc in state.pawns[seat * PAWNS : (seat + 1) * PAWNS]}
        open_square = next((k for k in range(LANE, 0, -1) if f"lane:{k}" not in at), 0)
        if open_square < LANE:
            counts[seat] = LANE - open_square
    return counts


class Exchange(msgspec.Struct, frozen=True):
    """A card in flight to a partner: the card for the two partners, ``?`` for others, null
    while not chosen."""

    seat: int
    to: int
    card: str | None


class PartnersView(model.View, frozen=True, kw_only=True, tag=NAME):
    """partners' view: teams, finished seats, the deal cycle, hands and the exchange."""

    colours: list[str]
    teams: list[list[int]]
    done: list[int]
    phase: str
    dealer: int
    deals: int
    turn: int | None
    hands: list[Hand]
    exchange: list[Exchange] | None
    draw_pile: int
    discard: list[str]


def view(state: State, viewer: Viewer) -> PartnersView:
    """The board, the deal cycle, and the hands as ``viewer`` may see them."""
    geo, board = geometry(state.length), _board(state)
    return PartnersView(
        status=status_of(state.finished),
        pieces=[Piece(NAMES[p], p // PAWNS, geo.names[loc]) for p, loc in enumerate(state.pawns)],
        to_act=to_act(state),
        chance=None,
        winners=list(state.winners),
        colours=list(COLOURS),
        teams=[list(team(0)), list(team(1))],
        done=[seat for seat in range(SEATS) if board.done(seat)],
        phase=state.phase,
        dealer=dealer(state),
        deals=state.deals,
        turn=None if state.turn == NOWHERE else state.turn,
        hands=[_hand_view(state, seat, viewer) for seat in range(SEATS)],
        exchange=_exchange_view(state, viewer) if state.phase == "exchange" else None,
        draw_pile=len(state.pile),
        discard=list(state.discard),
    )


def _hand_view(state: State, seat: int, viewer: Viewer) -> Hand:
    hand = state.hands[seat]
    if viewer == "referee" or viewer == seat:
        return Hand(seat, cards=list(hand))
    return Hand(seat, count=len(hand))


def _exchange_view(state: State, viewer: Viewer) -> list[Exchange]:
    """Each seat's card in flight: the card for its two partners, ``?`` for others."""
    shown = []
    for seat, card in enumerate(state.given):
        to = partner(seat)
        if card and viewer not in ("referee", seat, to):
            card = HIDDEN
        shown.append(Exchange(seat, to, card or None))
    return shown


# --- why a move is illegal ----------------------------------------------------------------------


def explain(state: State, seat: int, move_id: str) -> str:
    """Why ``move_id`` is not a legal play of ``seat`` here (a lower-case sentence)."""
    card, sep, rest = move_id.partition(":")
    hand = state.hands[seat]
    if not sep or card not in CARD_RANK:
        known = ", ".join(CARDS)
        return f"move {move_id!r} is not a move id: expected '<card>:<from>><to>' ({known})"
    if card not in hand:
        return f"move {move_id!r}: card {card!r} is not in the hand ({', '.join(hand)})"
    legal = [move.id for move in _plays(state) if move.uses == card]
    reason = _reason(state, seat, card, rest)
    shown = ", ".join(repr(m) for m in legal) or "none"
    fold = "" if _plays(state) else "; no card has a legal move, so the hand is laid down"
    if reason:
        return f"move {move_id!r} is not legal: {reason}; legal moves with {card!r}: {shown}{fold}"
    return f"move {move_id!r} is not legal; legal moves with {card!r}: {shown}{fold}"


def _reason(state: State, seat: int, card: str, rest: str) -> str | None:
    """A specific reason, when one is evident, for a single-pawn move or a swap."""
    board = _board(state)
    geo = board.geo
    if card == "SWAP":
        return _swap_reason(board, rest)
    if "+" in rest:
        return None
    label, at, origin_name = rest.partition("@")
    origin_name = origin_name if at else label
    origin_name, _, _ = origin_name.partition(">")
    colour = _mover(board, seat)
    if at and label != COLOURS[colour]:
        return f"{COLOURS[seat]} moves {COLOURS[colour]} pawns now, not {label} ones"
    if origin_name not in geo.codes:
        return f"{origin_name!r} is not a location"
    origin = geo.codes[origin_name]
    if origin == geo.circle:
        if card not in START_CARDS:
            return f"card {card!r} cannot start a pawn: only {', '.join(START_CARDS)} can"
        return _start(board.copy(), seat, colour)
    pawn = board.pawn_at(colour, origin)
    if pawn == NOWHERE:
        return f"no {COLOURS[colour]} pawn stands on {origin_name}"
    reasons = [
        _count_reason(board, pawn, steps, kind == "backward")
        for kind, steps in PLAYS[card]
        if kind in ("forward", "backward", "seven")
    ]
    return reasons[0] if reasons and all(reasons) else None


def _count_reason(board: Board, pawn: int, steps: int, backward: bool) -> str | None:
    geo = board.geo
    where = f"{NAMES[pawn]} on {geo.names[board.locs[pawn]]}"
    if backward and board.locs[pawn] >= geo.track:
        return f"the 4 backward never moves a pawn in its lane ({where})"
    if _walk(board, pawn, 1) == NO_ENTRY and board.locs[pawn] >= geo.track:
        return f"{where} cannot move forward: the lane square after it is occupied or it is last"
    square = _walk_back(board, pawn, steps) if backward else _walk(board, pawn, steps)
    way = "backward" if backward else "forward"
    if square == NO_ENTRY:
        return f"{where} cannot go {steps} {way}: the next lane square is occupied"
    if square == JUMP:
        return f"{where} cannot go {steps} {way}: it would jump a pawn in its lane"
    if square <= BLOCKED:
        start = geo.names[BLOCKED - square]
        return f"{where} cannot go {steps} {way}: the start space {start} is blocked"
    if square < geo.track:
        return _landing(board, pawn, square)
    return None


def _swap_reason(board: Board, rest: str) -> str | None:
    geo = board.geo
    names = rest.split("<>")
    if len(names) != 2 or any(name not in geo.codes for name in names):
        return f"{rest!r} is not two squares: expected 'SWAP:<square><><square>'"
    eligible = {board.locs[p] for p in _swappable(board)}
    for name in names:
        square = geo.codes[name]
        if square >= geo.track:
            return f"{name} is not a track square"
        if square in geo.starts:
            return f"a pawn on a start space ({name}) is safe from swaps"
        if not board.others_on(square, NOWHERE):
            return f"no pawn stands on {name}"
        if square not in eligible:
            return f"the stack on {name} is safe from swaps"
    return None

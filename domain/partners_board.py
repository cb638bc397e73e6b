"""The board and moves of ``partners`` (partners.md sections 3 and 5): the loop of four
sections with a four-square finish lane per colour, the walks (a bounce in the lane, start
spaces that block), where a pawn may end (captures, stacks, the partner's pawns), and the
moves of each kind a card allows, with the reasons a move is refused.

The loop and lanes are ``domain.track``'s ``Loop``; ``Board`` is its scratch board with the
rules this game adds. A walk that cannot be made is a ``Refused`` value saying why.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal, NamedTuple

from domain import track
from domain.model import Effect, Move, Step
from domain.track import NOWHERE, Generator, Loop, Plays, Scratch

COLOURS = ("yellow", "red", "blue", "green")
SEATS = 4
PAWNS = 4
LANE = 4
START_CARDS = ("START", "START_8", "START_13")

# What each card allows (partners.md 5.6): (kind of move, number of steps).
PLAYS: Plays = {
    **{f"N{n}": (("forward", n),) for n in (2, 3, 5, 6, 9, 10, 12)},
    "START": (("start", 0),),
    "START_8": (("start", 0), ("forward", 8)),
    "START_13": (("start", 0), ("forward", 13)),
    "BACK_4": (("backward", 4),),
    "ONE_14": (("forward", 1), ("forward", 14)),
    "SEVEN": (("seven", 7),),
    "SWAP": (("swap", 0),),
}

NAMES = tuple(f"{COLOURS[seat]}-{n}" for seat in range(SEATS) for n in range(1, PAWNS + 1))
PIECE = {name: index for index, name in enumerate(NAMES)}


class Refused(NamedTuple):
    """Why a walk cannot be made: ``no entry`` (the next lane square is occupied or there is
    none, and the pawn may not turn round), ``jump`` (a lane pawn is in the way of the
    backward part of a bounce) or ``blocked`` (the start space ``square`` is held)."""

    why: Literal["no entry", "jump", "blocked"]
    square: int = NOWHERE


NO_ENTRY = Refused("no entry")
JUMP = Refused("jump")


def partner(seat: int) -> int:
    """The seat opposite ``seat``."""
    return (seat + 2) % SEATS


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


@lru_cache(maxsize=8)
def geometry(length: int) -> Geometry:
    """The tables for a track of 4 sections of ``length`` squares (3.3: the lane entry square
    leads into lane 1, lane 4 leads nowhere; backward never into a lane)."""
    track = SEATS * length
    names = (
        *(f"track:{n}" for n in range(track)),
        *(f"lane:{k}" for k in range(1, LANE + 1)),
        "start",
    )
    starts = tuple(length * seat for seat in range(SEATS))
    loop = Loop(track, ahead=LANE, behind=LANE)
    tables = [loop.steps((start - 1) % track, track + LANE + 1) for start in starts]
    return Geometry(
        track=track,
        circle=track + LANE,
        names=names,
        codes={name: code for code, name in enumerate(names)},
        starts=starts,
        forward=tuple(forward for forward, _ in tables),
        backward=tuple(backward for _, backward in tables),
    )


# --- move generation ----------------------------------------------------------------------------


class Board(Scratch):
    """The scratch board of a move: the geometry, whether a pawn may capture its partner's,
    and the parts of the move id written so far."""

    __slots__ = ("capture", "geo", "parts")

    def __init__(self, geo: Geometry, locs: list[int], capture: bool) -> None:
        super().__init__(locs)
        self.geo = geo
        self.capture = capture
        self.parts: list[str] = []

    def copy_into(self, board: Board) -> None:
        board.geo, board.capture, board.parts = self.geo, self.capture, self.parts.copy()

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


def walk(board: Board, pawn: int, steps: int) -> int | Refused:
    """Where ``pawn`` ends after ``steps`` forward steps (bounce included, 5.2), or why not."""
    path, refused = _path(board, pawn, steps)
    return refused or path[-1]


def _path(board: Board, pawn: int, steps: int) -> tuple[list[int], Refused | None]:
    """Where ``pawn`` stands after each of up to ``steps`` forward steps, and why it can go no
    further (None: it took them all), since a longer count would meet the same refusal."""
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
                    return path, NO_ENTRY
                forward, nxt = False, back[pos]
            elif nxt in busy:
                return path, NO_ENTRY
        else:
            nxt = back[pos]
        if nxt >= track:
            if nxt in busy:
                return path, JUMP
        elif nxt in blocked:
            return path, Refused("blocked", nxt)
        path.append(nxt)
        pos = nxt
    return path, None


def walk_back(board: Board, pawn: int, steps: int) -> int | Refused:
    """Where a track pawn ends after ``steps`` backward steps (5.3), or why not."""
    colour = pawn // PAWNS
    back, blocked = board.geo.backward[colour], board.blocked(colour)
    pos = board.locs[pawn]
    for _ in range(steps):
        pos = back[pos]
        if pos in blocked:
            return Refused("blocked", pos)
    return pos


def landing(board: Board, pawn: int, square: int) -> str | None:
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


def start(board: Board, seat: int, colour: int) -> str | None:
    """Start a pawn of ``colour`` in place (5.5); why not, if it cannot."""
    geo = board.geo
    pawn = board.pawn_at(colour, geo.circle)
    if pawn == NOWHERE:
        return f"{COLOURS[colour]} has no pawn in its circle"
    square = geo.starts[colour]
    others = board.others_on(square, pawn)
    if len(others) > 1 and others[0] // PAWNS != colour:
        return f"the start space {geo.names[square]} holds a {COLOURS[others[0] // PAWNS]} stack"
    reason = landing(board, pawn, square)
    if reason is None:
        _arrive(board, pawn, square, _label(seat, pawn))
    return reason


def _go(board: Board, seat: int, pawn: int, steps: int, backward: bool = False) -> bool:
    """Move ``pawn`` forward (or backward) ``steps`` in place; False (board spoilt) if illegal."""
    square = walk_back(board, pawn, steps) if backward else walk(board, pawn, steps)
    if isinstance(square, Refused) or (square < board.geo.track and landing(board, pawn, square)):
        return False
    _arrive(board, pawn, square, _label(seat, pawn))
    return True


def mover(board: Board, seat: int) -> int:
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
    return board.move(f"{card}:" + "+".join(board.parts), seat, card)


def _start_moves(board: Board, seat: int, card: str, _: int) -> list[Move]:
    moved = board.copy()
    if start(moved, seat, mover(board, seat)) is not None:
        return []
    return [_move(moved, seat, card)]


def _count_moves(board: Board, seat: int, card: str, steps: int, backward: bool) -> list[Move]:
    moves = []
    track = board.geo.track
    for loc, pawn in _origins(board, mover(board, seat)):
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


def _seven_moves(board: Board, seat: int, card: str, total: int, first: bool = False) -> list[Move]:
    """Every split of the 7 (5.7), one move per final position, in search order (``first``:
    the search stops at the first split found)."""
    found: dict[tuple[int, ...], Board] = {}
    seen: set[tuple[tuple[int, ...], int, int]] = set()

    def search(current: Board, used: int, left: int) -> bool:
        """Whether the search is over (``first`` and a split found)."""
        if left == 0:
            found.setdefault(_position(current.locs), current)
            return first
        key = (tuple(current.locs), used, left)
        if key in seen:
            return False
        seen.add(key)
        track = current.geo.track
        for _, pawn in _origins(current, mover(current, seat), used):
            for steps, square in enumerate(_path(current, pawn, left)[0], 1):
                if square < track and landing(current, pawn, square):
                    continue
                moved = current.copy()
                _arrive(moved, pawn, square, _label(seat, pawn))
                if search(moved, used | 1 << pawn, left - steps):
                    return True
        return False

    search(board, 0, total)
    return [_move(moved, seat, card) for moved in found.values()]


def swappable(board: Board) -> list[int]:
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
    eligible = swappable(board)
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


GENERATORS: dict[str, Generator[Board]] = {
    "start": _start_moves,
    "forward": _forward_moves,
    "backward": _backward_moves,
    "seven": _seven_moves,
    "swap": _swap_moves,
}


def move_reason(board: Board, seat: int, card: str, rest: str) -> str | None:
    """Why ``<card>:<rest>`` is not a legal play of ``seat``, when one is evident: a
    single-pawn move or a swap."""
    geo = board.geo
    if card == "SWAP":
        return swap_reason(board, rest)
    if "+" in rest:
        return None
    label, at, origin_name = rest.partition("@")
    origin_name = origin_name if at else label
    origin_name, _, _ = origin_name.partition(">")
    colour = mover(board, seat)
    if at and label != COLOURS[colour]:
        return f"{COLOURS[seat]} moves {COLOURS[colour]} pawns now, not {label} ones"
    if origin_name not in geo.codes:
        return f"{origin_name!r} is not a location"
    origin = geo.codes[origin_name]
    if origin == geo.circle:
        if card not in START_CARDS:
            return f"card {card!r} cannot start a pawn: only {', '.join(START_CARDS)} can"
        return start(board.copy(), seat, colour)
    pawn = board.pawn_at(colour, origin)
    if pawn == NOWHERE:
        return f"no {COLOURS[colour]} pawn stands on {origin_name}"
    reasons = [
        count_reason(board, pawn, steps, kind == "backward")
        for kind, steps in PLAYS[card]
        if kind in ("forward", "backward", "seven")
    ]
    return reasons[0] if reasons and all(reasons) else None


def count_reason(board: Board, pawn: int, steps: int, backward: bool) -> str | None:
    """Why ``pawn`` cannot move ``steps`` forward (or backward), if it cannot."""
    geo = board.geo
    where = f"{NAMES[pawn]} on {geo.names[board.locs[pawn]]}"
    if backward and board.locs[pawn] >= geo.track:
        return f"the 4 backward never moves a pawn in its lane ({where})"
    if walk(board, pawn, 1) == NO_ENTRY and board.locs[pawn] >= geo.track:
        return f"{where} cannot move forward: the lane square after it is occupied or it is last"
    square = walk_back(board, pawn, steps) if backward else walk(board, pawn, steps)
    way = "backward" if backward else "forward"
    if square == NO_ENTRY:
        return f"{where} cannot go {steps} {way}: the next lane square is occupied"
    if square == JUMP:
        return f"{where} cannot go {steps} {way}: it would jump a pawn in its lane"
    if isinstance(square, Refused):
        start = geo.names[square.square]
        return f"{where} cannot go {steps} {way}: the start space {start} is blocked"
    if square < geo.track:
        return landing(board, pawn, square)
    return None


def swap_reason(board: Board, rest: str) -> str | None:
    """Why ``SWAP:<rest>`` is not a legal swap, when one is evident."""
    geo = board.geo
    names = rest.split("<>")
    if len(names) != 2 or any(name not in geo.codes for name in names):
        return f"{rest!r} is not two squares: expected 'SWAP:<square><><square>'"
    eligible = {board.locs[p] for p in swappable(board)}
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


def can_play(board: Board, seat: int, card: str) -> bool:
    """Whether ``card`` has a legal move for ``seat`` on ``board`` (the 7's split search stops
    at the first split)."""
    for kind, squares in PLAYS[card]:
        if kind == "seven":
            if _seven_moves(board, seat, card, squares, first=True):
                return True
        elif GENERATORS[kind](board, seat, card, squares):
            return True
    return False


def card_moves(board: Board, seat: int, card: str) -> list[Move]:
    """Every legal move of ``seat`` with ``card`` on ``board``, one per move id."""
    moves: dict[str, Move] = {}
    for move in track.card_moves(board, seat, card, PLAYS, GENERATORS):
        moves.setdefault(move.id, move)
    return list(moves.values())

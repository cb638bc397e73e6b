"""What the win-chance model looks at: a few public features per seat.

Only the public view is read (the pieces' positions and who must act), never a hand, so a
feature vector is the same for every viewer. A piece's distance to home is measured in its own
moves: the average number of moves a piece with that many squares still to travel made before
finishing, over self-play games of every table size (``train.py`` builds that table per rule
set). The squares to go are read off the board by the piece's colour (``pips.py``), never by
its seat number, so a position and the same position with the colours turned round the board
get the same features, turned round. A seat's distance is the sum over its pieces: about the
moves, so the turns, it still needs.

A race is decided by who needs the fewest turns, and how much a lead of a few turns is worth
depends on how many turns are left: the spread of the turns a seat still needs grows like
their square root. So most features are a seat's quantity minus the table's mean, divided by
the square root of the mean distance left (``scale``): early leads count for little, late
ones for much.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable

from analysis.danger import dangers
from analysis.pips import to_go
from domain.model import View

NAMES = (
    "distance",
    "farthest",
    "spread",
    "start",
    "home",
    "to_act",
    "order",
    "distance_cubed",
    "distance_late",
    "to_act_late",
    "start_late",
    "partner",
    "danger",
)
"""Per seat, each relative to the mean over the seats and divided by ``scale`` where a name says
so: its distance (total moves to home), its farthest piece's distance, the root of its
pieces' squared distances, the share of its pieces in start, the share home, whether it must
act now, how many turns it waits for its next one (as a share of the table, over ``scale``),
the relative distance's signed square over 4, the relative distance and whether it acts now
over ``scale`` once more (late, both count for more), the share in start over ``scale``, and
the relative distance of its partner (team games; 0 elsewhere), and the moves it stands to
lose to capture on the others' next turns (``danger.py``), relative. A quantity that is the same
for every seat says nothing in a softmax, so none is here."""

Distances = dict[int, float]
"""For each number of squares still to travel, a piece's distance to home in moves."""
Moves = Callable[[int, str], float]
"""A piece's distance to home in moves, from its seat and its place."""


def moves_of(ruleset: str, shown: View, distances: Distances, start: float) -> Moves:
    """The distance in moves of each piece of the game ``shown`` shows (``start``: of a place
    the table lacks)."""
    squares = to_go(ruleset, shown)

    def moves(seat: int, at: str) -> float:
        return distances.get(squares(seat, at), start)

    return moves


def seat_features(
    ruleset: str, shown: View, distances: Distances, start: float
) -> dict[int, list[float]]:
    """The feature vector of every seat of the game ``shown`` shows."""
    moves = moves_of(ruleset, shown, distances, start)
    by_seat: dict[int, list[float]] = defaultdict(list)
    places: dict[int, list[str]] = defaultdict(list)
    for piece in shown.pieces:
        by_seat[piece.seat].append(moves(piece.seat, piece.at))
        places[piece.seat].append(piece.at)
    acting = shown.to_act[0].seat if shown.to_act else 0
    seats = sorted(by_seat)
    raw = {seat: _raw(by_seat[seat], places[seat]) for seat in seats}
    count = len(seats)
    mean = [sum([raw[s][k] for s in seats]) / count for k in range(3)]
    scale = math.sqrt(mean[0] + 1.0)
    partners = _partners(shown, seats)
    relative = {s: (raw[s][0] - mean[0]) / scale for s in seats}
    lost = dangers(ruleset, shown, moves, start)
    mean_lost = sum(lost.values()) / count
    features: dict[int, list[float]] = {}
    for seat in seats:
        _, farthest, spread, in_start, home = raw[seat]
        z = relative[seat]
        wait = (seat - acting) % count / count
        partner = partners.get(seat)
        features[seat] = [
            z,
            (farthest - mean[1]) / scale,
            (spread - mean[2]) / scale,
            in_start,
            home,
            1.0 if seat == acting else 0.0,
            wait / scale,
            z * abs(z) / 4,
            z / scale,
            (1.0 if seat == acting else 0.0) / scale,
            in_start / scale,
            relative[partner] if partner is not None else 0.0,
            lost[seat] - mean_lost,
        ]
    return features


def _raw(far: list[float], places: list[str]) -> list[float]:
    """A seat's distance, farthest piece, root of squared distances, share in start, share of
    its pieces finished (their distance is none)."""
    count = len(places)
    return [
        sum(far),
        max(far),
        math.sqrt(sum([x * x for x in far])),
        places.count("start") / count,
        sum(1 for x in far if x <= 0.0) / count,
    ]


def sides(shown: View) -> list[tuple[int, ...]]:
    """Who wins together: the teams of a team game, else each seat alone (by seat number)."""
    teams = getattr(shown, "teams", None)
    if teams:
        return [tuple(team) for team in teams]
    return [(seat,) for seat in sorted({piece.seat for piece in shown.pieces})]


def winning_sides(
    sides: list[tuple[int, ...]], winners: list[int] | tuple[int, ...]
) -> tuple[int, ...]:
    """The indices of the sides that hold a winner."""
    return tuple(i for i, side in enumerate(sides) if any(seat in winners for seat in side))


def side_features(
    ruleset: str, shown: View, distances: Distances, start: float
) -> dict[int, list[float]]:
    """The feature vector of every side (by its index in ``sides``): its seats' summed."""
    per_seat = seat_features(ruleset, shown, distances, start)
    return {
        i: per_seat[side[0]]
        if len(side) == 1
        else [sum(column) for column in zip(*(per_seat[seat] for seat in side), strict=True)]
        for i, side in enumerate(sides(shown))
    }


def _partners(shown: View, seats: list[int]) -> dict[int, int]:
    """Each seat's partner in a team game (none elsewhere)."""
    teams = getattr(shown, "teams", None) or []
    return {a: b for team in teams if len(team) == 2 for a, b in (team, team[::-1]) if a in seats}

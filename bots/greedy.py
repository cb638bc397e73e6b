"""The ``greedy`` level: one look at each legal move, scored from the move's own steps and
effects and the board, as the client's ``GreedyBot`` scores them (the service cannot import the
client, so the scoring is written again here over the domain's moves and pieces)."""

from __future__ import annotations

import random

from domain.model import Move, Piece

HOME = 100.0
LANE = 30.0
OUT_OF_START = 35.0
BUMP = 60.0
OWN_SENT_BACK = -80.0
PER_SQUARE = 1.0
PER_SQUARE_BACK = -1.5
OPPONENT_PER_SQUARE_BACK = 0.5
THREAT = -8.0
REACH = 12
BIG_JUMP = 30


class Table:
    """Where each piece is, whose it is, the teams and the loop's estimated size."""

    def __init__(self, pieces: list[Piece], teams: list[list[int]], moves: list[Move]) -> None:
        self.at = {piece.id: piece.at for piece in pieces}
        self.owner = {piece.id: piece.seat for piece in pieces}
        self.teams = teams
        squares = [square(piece.at) for piece in pieces]
        squares += [square(s.from_) for m in moves for s in m.steps]
        squares += [square(s.to) for m in moves for s in m.steps]
        seen = [n for n in squares if n is not None]
        self.loop = max(max(seen, default=0) + (1 if 0 in seen else 0), 2 * BIG_JUMP)

    def allies(self, seat: int) -> set[int]:
        return next((set(team) for team in self.teams if seat in team), {seat})

    def distance(self, start: str, end: str) -> int:
        a, b = square(start), square(end)
        if a is not None and b is not None:
            delta = b - a
            if delta > BIG_JUMP:
                return delta - self.loop
            if delta < -BIG_JUMP:
                return delta + self.loop
            return delta
        if start.startswith("lane:") and end.startswith("lane:"):
            return int(end[5:]) - int(start[5:])
        if end.startswith("lane:"):
            return int(end[5:]) + 3
        if start.startswith("lane:"):
            return -int(start[5:]) - 3
        return 0

    def threats(self, at: dict[str, str], piece: str, seat: int) -> int:
        target = square(at.get(piece, ""))
        if target is None:
            return 0
        allies = self.allies(seat)
        return sum(
            1
            for other, where in at.items()
            if (origin := square(where)) is not None
            and self.owner.get(other, seat) not in allies
            and 0 < (target - origin) % self.loop <= REACH
        )


def square(position: str) -> int | None:
    """N for ``track:N``, None off the shared track."""
    if position.startswith("track:"):
        return int(position[6:])
    return None


def progress(table: Table, start: str, end: str) -> float:
    if end == "start":
        return 0.0 if start == "start" else OWN_SENT_BACK
    if end == "home":
        return HOME
    if start == "start":
        return OUT_OF_START
    value = 0.0
    if end.startswith("lane:") and not start.startswith("lane:"):
        value += LANE
    if start.startswith("lane:") and not end.startswith("lane:"):
        value -= LANE
    squares = table.distance(start, end)
    return value + (PER_SQUARE if squares >= 0 else -PER_SQUARE_BACK) * squares


def score(table: Table, move: Move) -> float:
    """How good ``move`` looks for its seat."""
    seat, total = move.seat, 0.0
    after = dict(table.at)
    for step in move.steps:
        total += progress(table, step.from_, step.to)
        after[step.piece] = step.to
    for effect in move.effects:
        owner = table.owner.get(effect.piece, -1)
        after[effect.piece] = effect.to
        if owner == seat:
            total += progress(table, effect.from_, effect.to)
        elif effect.to == "start" and effect.from_ != "start":
            total += -BUMP if owner in table.allies(seat) else BUMP
        elif owner not in table.allies(seat):
            total -= OPPONENT_PER_SQUARE_BACK * table.distance(effect.from_, effect.to)
    moved = {step.piece for step in move.steps}
    moved |= {e.piece for e in move.effects if table.owner.get(e.piece) == seat}
    for piece in moved:
        total += THREAT * (table.threats(after, piece, seat) - table.threats(table.at, piece, seat))
    return total


def choose(
    pieces: list[Piece], teams: list[list[int]], moves: list[Move], rng: random.Random
) -> Move:
    """The best-scoring move, a seeded random one among equals."""
    table = Table(pieces, teams, moves)
    return max(rng.sample(moves, len(moves)), key=lambda move: score(table, move))

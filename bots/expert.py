"""The ``expert`` level: expectimax one turn deep over the rule set itself.

Each candidate move is played on the bot's own copy of the game (``decide``, ``apply``, then
the automatic events). What follows is searched until the next decision: every chance outcome
(each die throw, each card of the pile as the seat knows it) weighted by its probability, and
at the next decision the seat to act plays the move that looks best for it. The position then
reached is scored by an evaluation of the board (``evaluate``): the squares each side still
has to go, pieces out of start, safe and home, less the risk of being sent back by an opponent
piece within reach. Hidden cards come from the determinization in ``bots.knowledge``; when no
consistent one is found the bot scores its moves on the public board alone.
"""

from __future__ import annotations

import random
from itertools import combinations_with_replacement
from typing import Any, NamedTuple

from bots.boards import Board
from domain.events import CardDrawn, DiceRolled, Event
from domain.model import CHANCE_KINDS, Draw, Move, Roll
from domain.replay import settle


class Weights(NamedTuple):
    """The evaluation's terms: squares' worth of a piece out of start, safe in its lane and
    home, and the share of a piece's worth that the chance of its capture costs."""

    out: float = 15.0
    safe: float = 8.0
    home: float = 12.0
    danger: float = 0.8


PLAIN = Weights()
WEIGHTS = {"ludo": Weights(out=8.0, danger=1.6)}
"""Rule sets whose weights differ (measured by ``bench/bots.py``): a ludo piece out of start
is worth less than a parchis one, and its capture costs more (no square is safe)."""
WON = 1e6
LANE_TIE = 0.01
CANDIDATES = 6
"""Moves searched past the first look (the best by evaluation)."""
BUDGET = 240
COST = {"parchis-2dice": 4, "partners": 12}
"""The work one decision's search may do, in positions reached (each chance outcome played
and each reply listed counts one; a rule set whose moves are slow to list counts ``COST``
for each). The search deepens in rounds, each drawing twice the chance outcomes of the one
before; it stops before a round that would pass the budget, or when a round sampled no
chance node, and plays the best move of its last round. Past the budget a position is
scored without searching, so the work and the choice depend on the inputs alone. Fewer
moves are searched where the budget cannot give each a first round."""
DEPTH = {"ludo": 2}
"""Chance nodes searched along a line (1 elsewhere: to the next decision); past the first,
each seat to act plays its best-looking move and the search goes on."""
FIRST_SHARE = 2
SHARES = 8
"""Chance outcomes per chance node in the first round; rounds at most."""

Places = dict[str, str]


Standing = tuple[tuple[int, ...], int | None, dict[int, float] | None, int | None]
"""A piece's team, open cell, the cells it hits with their chances, and its entry cell."""


class Judge:
    """Scores boards for one seat: its team's pieces against the other teams'."""

    def __init__(
        self,
        board: Board,
        owner: dict[str, int],
        teams: list[list[int]],
        weights: Weights = PLAIN,
    ) -> None:
        self.board = board
        self.weights = weights
        self.owner = owner
        self.team_of = {seat: tuple(team) for team in teams for seat in team}
        loop = board.loop
        self.reach = [board.reach.get(g if g <= loop // 2 else g - loop, 0.0) for g in range(loop)]
        self.memo: dict[tuple[int, str], tuple[float, int | None, int | None]] = {}
        self.seen: dict[tuple[tuple[str, ...], int], float] = {}
        self.stands: dict[tuple[str, str], Standing] = {}
        self.reaches: dict[tuple[int, int], dict[int, float]] = {}

    def place(self, seat: int, where: str) -> tuple[float, int | None, int | None]:
        """What a piece of ``seat`` at ``where`` is worth, the loop cell where it can be hit
        (None when safe) and the cell it threatens from (None off the track)."""
        known = self.memo.get((seat, where))
        if known is not None:
            return known
        board, (out, safe, home, _) = self.board, self.weights
        cell = board.cell(where)
        if where == "start":
            known = (0.0, None, None)
        else:
            left = board.to_home(seat, where)
            value = board.length - left + out
            if board.lane_wins and (where == "home" or where.startswith("lane:")):
                # the piece counts as home: a square further up its lane is worth only a tie-break
                known = (board.length + out + safe - LANE_TIE * left, None, None)
            elif where == "home" or left == 0:
                known = (value + home + safe, None, None)
            elif where.startswith("lane:"):
                known = (value + safe, None, None)
            else:
                known = (value, None if where in board.safe else cell, cell)
        self.memo[seat, where] = known
        return known

    def scores(self, at: Places) -> dict[tuple[int, ...], float]:
        """Each team's standing: progress and bonuses of its pieces, less their danger."""
        totals: dict[tuple[int, ...], float] = dict.fromkeys(self.team_of.values(), 0.0)
        for piece, where in at.items():
            seat = self.owner[piece]
            totals[self.team_of[seat]] += self.place(seat, where)[0]
        danger = self.weights.danger
        for piece, chance in self.exposure(at):
            seat = self.owner[piece]
            totals[self.team_of[seat]] -= danger * chance * self.place(seat, at[piece])[0]
        return totals

    def exposure(self, at: Places) -> list[tuple[str, float]]:
        """Each piece on an open track square, with the chance that another team's next turn
        sends it back: a piece behind it within reach lands on it, or one enters from start
        onto its square."""
        exposed: list[tuple[str, tuple[int, ...], int]] = []
        hunters: list[tuple[tuple[int, ...], dict[int, float]]] = []
        waiting: dict[int, tuple[int, ...]] = {}
        for piece, where in at.items():
            team, open_cell, hits, entry = self.standing(piece, where)
            if open_cell is not None:
                exposed.append((piece, team, open_cell))
            if hits is not None:
                hunters.append((team, hits))
            elif entry is not None:
                waiting[entry] = team
        enter = self.board.enter
        found: list[tuple[str, float]] = []
        for piece, team, cell in exposed:
            chance = 0.0
            for side, hits in hunters:
                if side != team and cell in hits:
                    chance += hits[cell]
            if waiting.get(cell, team) != team:
                chance += enter
            found.append((piece, min(chance, 1.0)))
        return found

    def standing(self, piece: str, where: str) -> Standing:
        """What ``exposure`` needs of a piece at ``where``: its team, the loop cell where it
        can be hit (None when safe), the cells it can hit with the chance of each (None off
        the track), and the cell it enters onto from start (None elsewhere)."""
        known = self.stands.get((piece, where))
        if known is None:
            seat, board = self.owner[piece], self.board
            _, open_cell, cell = self.place(seat, where)
            hits = entry = None
            if cell is not None:
                hits = self.hits(cell, board.to_home(seat, where) - board.lane - 1)
            elif where == "start" and board.enter:
                entry = (board.exits[seat] - board.first) % board.loop
            known = self.stands[piece, where] = (self.team_of[seat], open_cell, hits, entry)
        return known

    def hits(self, cell: int, ahead: int) -> dict[int, float]:
        """The cells a piece on ``cell`` lands on next turn, ``ahead`` squares of track left
        before its lane, each with its chance (backwards too, where cards move back)."""
        known = self.reaches.get((cell, ahead))
        if known is None:
            loop = self.board.loop
            known = self.reaches[cell, ahead] = {
                (cell + gap) % loop: self.reach[gap]
                for gap in range(loop)
                if self.reach[gap] and (gap <= ahead or gap > loop // 2)
            }
        return known

    def value(self, at: Places, seat: int) -> float:
        """How good ``at`` is for ``seat``: its team's standing less the other teams'."""
        key = (tuple(at.values()), seat)
        known = self.seen.get(key)
        if known is None:
            known = self.seen[key] = self._value(at, seat)
        return known

    def _value(self, at: Places, seat: int) -> float:
        scores = self.scores(at)
        mine = scores.pop(self.team_of[seat])
        if not scores:
            return mine
        others = list(scores.values())
        return mine - 0.5 * max(others) - 0.5 * sum(others) / len(others)


def project(at: Places, move: Move) -> Places:
    """The places after ``move``, from its steps and effects alone."""
    after = dict(at)
    for step in move.steps:
        after[step.piece] = step.to
    for effect in move.effects:
        after[effect.piece] = effect.to
    return after


def first_look(judge: Judge, at: Places, seat: int, moves: list[Move]) -> list[tuple[float, Move]]:
    """Every move with the value of the board it leaves, best first (stable among equals)."""
    scored = [(judge.value(project(at, move), seat), move) for move in moves]
    return sorted(scored, key=lambda pair: -pair[0])


class Search:
    """Expectimax to the next decision on the bot's copy of the game."""

    def __init__(
        self, rules: Any, judge: Judge, seat: int, share: int, rng: random.Random, budget: int
    ):
        self.rules = rules
        self.judge = judge
        self.seat = seat
        self.share = share
        self.rng = rng
        self.budget = budget
        self.cost = COST.get(rules.NAME, 1)
        self.work = 0
        self.sampled = False
        self.cut = False
        self.depth = DEPTH.get(rules.NAME, 1)

    def places(self, state: Any) -> Places:
        return {piece.id: piece.at for piece in self.rules.view(state, self.seat).pieces}

    def after(self, state: Any, events: list[Event]) -> Any:
        for event in events:
            state = self.rules.apply(state, event)
        return settle(self.rules, state)[0]

    def node(self, state: Any, chances: int = 1) -> float:
        """The expected value for the bot of ``state``, searched to the next decision."""
        rules, seat = self.rules, self.seat
        pending = rules.to_act(state)
        if not pending:
            winners = rules.view(state, "referee").winners
            mine = self.judge.team_of[seat]
            return WON if any(w in mine for w in winners) else -WON
        who = pending[0]
        if who.kind in CHANCE_KINDS:
            outcomes = self.outcomes(state, who.seat) if chances else []
            if len(outcomes) > self.share:
                self.sampled = True
                drawn = self.rng.choices(outcomes, [w for w, _ in outcomes], k=self.share)
                outcomes = [(1 / self.share, event) for _, event in drawn]
            if self.work + self.cost * len(outcomes) > self.budget:
                self.cut = True
                outcomes = []
            if not outcomes:
                return self.judge.value(self.places(state), seat)
            self.work += self.cost * len(outcomes)
            return sum(
                weight * self.node(self.after(state, [event]), chances - 1)
                for weight, event in outcomes
            )
        at = self.places(state)
        if who.kind != "move" or len(pending) > 1:
            return self.judge.value(at, seat)
        moves = rules.legal_moves(state, who.seat)
        if not moves:
            return self.judge.value(at, seat)
        _, reply = first_look(self.judge, at, who.seat, moves)[0]
        if chances and self.work + self.cost <= self.budget:
            self.work += self.cost
            return self.node(self.after(state, rules.decide(state, who.seat, reply.id)), chances)
        return self.judge.value(project(at, reply), seat)

    def outcomes(self, state: Any, seat: int) -> list[tuple[float, Event]]:
        """Each chance outcome the state waits for, with its probability."""
        need = self.rules.chance(state)
        if isinstance(need, Roll):
            throws = list(combinations_with_replacement(range(1, 7), need.dice))
            total = 6**need.dice
            return [(_orderings(t) / total, DiceRolled(seat, t)) for t in throws]
        if isinstance(need, Draw) and need.pile:
            counts: dict[str, int] = {}
            for card in need.pile:
                counts[card] = counts.get(card, 0) + 1
            size = len(need.pile)
            return [(n / size, CardDrawn(seat, card)) for card, n in sorted(counts.items())]
        return []

    def value(self, state: Any, move: Move) -> float:
        """The searched value of playing ``move`` now."""
        events = self.rules.decide(state, self.seat, move.id)
        self.work += self.cost
        return self.node(self.after(state, events), self.depth)


def _orderings(throw: tuple[int, ...]) -> int:
    return 1 if len(throw) == 1 or throw[0] == throw[1] else 2


def choose(
    rules: Any,
    state: Any | None,
    judge: Judge,
    at: Places,
    seat: int,
    moves: list[Move],
    rng: random.Random,
) -> Move:
    """The move of best searched value (best first look when there is no state to search)."""
    shuffled = rng.sample(moves, len(moves))
    looked = first_look(judge, at, seat, shuffled)
    if state is None or len(moves) == 1:
        return looked[0][1]
    cost = COST.get(rules.NAME, 1)
    wide = max(2, min(CANDIDATES, BUDGET // (cost * (1 + FIRST_SHARE))))
    candidates = [move for _, move in looked[:wide]]
    best, share, left, seed = candidates[0], FIRST_SHARE, BUDGET, rng.random()
    for round_ in range(SHARES):
        search = Search(rules, judge, seat, share, random.Random(seed), left)
        values = [search.value(state, move) for move in candidates]
        left -= search.work
        if search.cut and round_ > 0:
            break  # this round ran out of budget: the round before stands
        best = candidates[max(range(len(candidates)), key=values.__getitem__)]
        if not search.sampled or 2 * search.work > left:
            break
        share *= 2
    return best

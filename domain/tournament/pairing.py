"""Who sits at which table: table sizes and byes, and the groups of a Swiss or round-robin
round, each a partition of the players into tables of given sizes.

A partition costs, first, the repeat meetings it makes (for every two players at one table,
how often they met before) and, second, its score spread (for every two players at one table,
the difference of their scores). Both formats minimise that cost: a Swiss round as few
repeats as possible, then by scores; a round-robin round is a Swiss round with equal scores,
so it pairs players who met least (every pair as evenly as the tables allow). Up to
``EXACT_UP_TO`` partitions every one is searched; beyond, a greedy partition (the best-ranked
player left opens a table, the cheapest players join it) and one dealt out are each improved
by swapping two players of two tables while a swap lowers the cost, and the cheaper kept.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations
from math import factorial

Pair = tuple[str, str]
Meetings = Mapping[Pair, int]
"""How often two players met at a table, keyed by the pair in sorted order."""
Cost = tuple[int, int]
"""(repeat meetings, score spread): compared in that order."""
EXACT_UP_TO = 20_000
"""Partitions few enough to try every one (12 players at three tables of 4: 5,775)."""


def pair(a: str, b: str) -> Pair:
    """The key of two players in ``Meetings``."""
    return (a, b) if a <= b else (b, a)


def table_sizes(players: int, seats: int, least: int) -> tuple[tuple[int, ...], int]:
    """The sizes of a round's tables (largest first) for ``players`` at tables of at most
    ``seats`` and at least ``least``, and how many players sit out (byes).

    As few byes as possible, then as few tables as possible, sizes differing by at most one:
    10 players at 4 seats are 4, 3, 3 with no bye; with 4 seats needed (partners), 4, 4 and
    2 byes."""
    if players < least:
        return (), players
    tables = -(-players // seats)
    if tables * least <= players:
        return split(players, tables), 0
    full = players // least  # fewer tables than ``tables``, so each is full and some sit out
    return split(full * seats, full), players - full * seats


def split(players: int, tables: int) -> tuple[int, ...]:
    """``players`` in ``tables`` tables as evenly as possible, largest first."""
    base, extra = divmod(players, tables)
    return (base + 1,) * extra + (base,) * (tables - extra)


def partition(
    ranked: Sequence[str],
    sizes: Sequence[int],
    met: Meetings,
    scores: Mapping[str, int],
    firsts: Mapping[str, int] | None = None,
) -> list[list[str]]:
    """The players (best first) in tables of ``sizes``: few repeat meetings, then close scores.
    Every partition is tried when there are at most ``EXACT_UP_TO``; else two are improved by
    swaps, a greedy one and one dealt out, and the cheaper kept. Tables come out in the order
    of their best-ranked player."""
    weights = Weights(ranked, met, scores, firsts or {})
    if arrangements(sizes) <= EXACT_UP_TO:
        tables = exact(len(ranked), sizes, weights)
    else:
        starts = [greedy(len(ranked), sizes, weights), dealt(len(ranked), sizes)]
        for start in starts:
            improve(start, weights)
        tables = min(starts, key=lambda tables: sum(weights.table(t) for t in tables))
    for table in tables:
        table.sort()
    tables.sort()
    return [[ranked[i] for i in table] for table in tables]


class Weights:
    """The cost of seating players together, by their rank: for every two at a table,
    (repeats * big + spread) * wide, with ``big`` beyond any spread and ``wide`` beyond the
    last criterion, so a repeat costs more than any spread and a spread more than any first
    seat; and for each table, the first seats (``firsts``) of the player who had fewest, so
    tables share out those who started first least."""

    def __init__(
        self,
        ranked: Sequence[str],
        met: Meetings,
        scores: Mapping[str, int],
        firsts: Mapping[str, int],
    ) -> None:
        values = [scores[name] for name in ranked]
        big = (max(values) - min(values)) * len(ranked) ** 2 + 1 if values else 1
        self.firsts = [firsts.get(name, 0) for name in ranked]
        wide = max(self.firsts, default=0) * len(ranked) + 1
        self.of = [
            [(met.get(pair(a, b), 0) * big + abs(scores[a] - scores[b])) * wide for b in ranked]
            for a in ranked
        ]

    def joining(self, player: int, table: Sequence[int]) -> int:
        """What seating ``player`` with ``table`` adds (first seats aside)."""
        row = self.of[player]
        return sum(row[other] for other in table)

    def first(self, table: Sequence[int]) -> int:
        """The first seats of the table's player who had fewest."""
        return min((self.firsts[p] for p in table), default=0)

    def table(self, table: Sequence[int]) -> int:
        pairs = sum(self.joining(p, table[:i]) for i, p in enumerate(table))
        return pairs + self.first(table)


def arrangements(sizes: Sequence[int]) -> int:
    """How many ways there are to seat ``sum(sizes)`` players at tables of ``sizes`` (tables
    of one size told apart only by who sits there)."""
    count = factorial(sum(sizes))
    for size in sizes:
        count //= factorial(size)
    for same in Counter(sizes).values():
        count //= factorial(same)
    return count


def exact(players: int, sizes: Sequence[int], weights: Weights) -> list[list[int]]:
    """The cheapest partition of players 0..players-1, by a search that drops a branch once
    it costs as much as the best found (so among equals the first found, better-ranked
    players together, stays). The first player left opens a table of each size still to
    fill: each partition is reached once."""
    best: list[list[int]] = []
    bound = [sys.maxsize]

    def search(left: list[int], sizes: list[int], tables: list[list[int]], total: int) -> None:
        if total >= bound[0]:
            return
        if not sizes:
            best[:], bound[0] = [list(t) for t in tables], total
            return
        first, rest = left[0], left[1:]
        for size in sorted(set(sizes), reverse=True):
            remaining = list(sizes)
            remaining.remove(size)
            for others in combinations(rest, size - 1):
                table = [first, *others]
                chosen = set(others)
                tables.append(table)
                rest_left = [p for p in rest if p not in chosen]
                search(rest_left, remaining, tables, total + weights.table(table))
                tables.pop()

    search(list(range(players)), list(sizes), [], 0)
    return best


def greedy(players: int, sizes: Sequence[int], weights: Weights) -> list[list[int]]:
    """Tables filled one after another: the best-ranked player left opens it, then each seat
    goes to the player left who adds the least (the better ranked on a tie)."""
    left = list(range(players))
    tables: list[list[int]] = []
    for size in sizes:
        table = [left.pop(0)]
        while len(table) < size:
            best = min(left, key=lambda p: weights.joining(p, table))
            left.remove(best)
            table.append(best)
        tables.append(table)
    return tables


def dealt(players: int, sizes: Sequence[int]) -> list[list[int]]:
    """Players dealt out to the tables in turn, best-ranked first (a table that is full is
    passed over): a start that mixes every part of the ranking."""
    tables: list[list[int]] = [[] for _ in sizes]
    turn = 0
    for player in range(players):
        while len(tables[turn % len(sizes)]) >= sizes[turn % len(sizes)]:
            turn += 1
        tables[turn % len(sizes)].append(player)
        turn += 1
    return tables


def improve(tables: list[list[int]], weights: Weights) -> None:
    """Swap two players of two tables while a swap lowers the cost (in place)."""
    improved = True
    while improved:
        improved = False
        for one, other in combinations(tables, 2):
            for i, j in ((i, j) for i in range(len(one)) for j in range(len(other))):
                a, b = one[i], other[j]
                rest_one = one[:i] + one[i + 1 :]
                rest_other = other[:j] + other[j + 1 :]
                now = weights.joining(a, rest_one) + weights.joining(b, rest_other)
                now += weights.first(one) + weights.first(other)
                then = weights.joining(b, rest_one) + weights.joining(a, rest_other)
                then += weights.first([*rest_one, b]) + weights.first([*rest_other, a])
                if then < now:
                    one[i], other[j] = b, a
                    improved = True


def cost(tables: Sequence[Sequence[str]], met: Meetings, scores: Mapping[str, int]) -> Cost:
    """The cost of a partition: repeat meetings, then score spread."""
    repeats = spread = 0
    for table in tables:
        for i, a in enumerate(table):
            for b in table[:i]:
                repeats += met.get(pair(a, b), 0)
                spread += abs(scores[a] - scores[b])
    return repeats, spread


def byes_for(ranked: Sequence[str], count: int, byes_had: Mapping[str, int]) -> list[str]:
    """Who sits out: those with the fewest byes so far, the lowest ranked first."""
    order = sorted(range(len(ranked)), key=lambda i: (byes_had.get(ranked[i], 0), -i))
    return [ranked[i] for i in order[:count]]


def round_robin_rounds(players: int, seats: int) -> int:
    """The fewest rounds in which each player could meet every other once: each round meets
    ``seats - 1`` new opponents at best."""
    return max(1, -(-(players - 1) // max(1, seats - 1)))

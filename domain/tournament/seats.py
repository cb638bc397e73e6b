"""Seat order at a table: the first seat has an edge in a race game, so each table seats its
players where they sat least often.

``seats_had[name][k]`` counts the games ``name`` played from seat ``k``. Every order of the
table's players is tried (at most 6! = 720): the one chosen seats nobody where they sat more
often than needed (the largest count of a player at their new seat, as small as it can be),
then keeps the counts low overall, then gives the first seat to the player who had it least,
then keeps the table's order (its best-ranked player first)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import permutations

SeatCounts = Mapping[str, Sequence[int]]


def seat_order(table: Sequence[str], seats_had: SeatCounts) -> tuple[str, ...]:
    """The table's players in seat order (seat 0 first)."""

    def had(name: str, seat: int) -> int:
        counts = seats_had.get(name, ())
        return counts[seat] if seat < len(counts) else 0

    def burden(order: tuple[str, ...]) -> tuple[int, int, int]:
        at_seat = [had(name, seat) for seat, name in enumerate(order)]
        return max(at_seat), sum(at_seat), had(order[0], 0)

    return min(permutations(table), key=burden)


def spread(counts: Sequence[int], seats: int) -> int:
    """How unevenly one player's games spread over ``seats`` seat positions: the most games
    from one seat minus the fewest from another."""
    used = [counts[k] if k < len(counts) else 0 for k in range(seats)]
    return max(used) - min(used)

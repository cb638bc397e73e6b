"""The next round of a tournament, planned from its state: which players sit out, who sits
at each table, and in which seat order. Pure: the same state gives the same round."""

from __future__ import annotations

import msgspec

from domain.tournament.pairing import byes_for, partition, table_sizes
from domain.tournament.seats import seat_order
from domain.tournament.standings import standings
from domain.tournament.state import BadEvent, Tournament, byes_had, meetings, seats_had


class Plan(msgspec.Struct, frozen=True):
    """A round before its games exist: each table's players in seat order, and the byes."""

    round: int
    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...]


def plan_round(state: Tournament) -> Plan:
    """The next round: a Swiss round groups players of equal points (the standings' order),
    a round-robin round those who met least (registration order); both avoid repeats."""
    if state.current is not None and not state.current.closed:
        raise BadEvent(f"round {state.current.number} is still being played")
    if len(state.rounds) >= state.created.rounds:
        raise BadEvent(f"all {state.created.rounds} rounds have been played")
    created, active = state.created, set(state.active)
    if created.format == "swiss":
        table = standings(state)
        ranked = [row.name for row in table if row.name in active]
        scores = {row.name: row.points for row in table}
    else:
        ranked = list(state.active)
        scores = dict.fromkeys(ranked, 0)
    sizes, bye_count = table_sizes(len(ranked), created.seats_per_table, created.least_per_table)
    if not sizes:
        raise BadEvent(f"{len(ranked)} active players cannot fill a table")
    byes = byes_for(ranked, bye_count, byes_had(state))
    seated = [name for name in ranked if name not in byes]
    tables = partition(seated, sizes, meetings(state), scores)
    had = seats_had(state)
    return Plan(
        len(state.rounds) + 1,
        tuple(seat_order(table, had) for table in tables),
        tuple(byes),
    )

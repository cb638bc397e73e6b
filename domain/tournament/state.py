"""A tournament's state, folded from its events by a pure reducer (``apply``), and what the
pairings read of it: scores, meetings, seats and byes so far.

Errors: ``TournamentError`` > ``BadEvent`` (an event that does not follow from the state; a
verified record must have none)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import msgspec

from domain.tournament.events import (
    PlayerRegistered,
    PlayerWithdrawn,
    RoundClosed,
    RoundPaired,
    Table,
    TableFinished,
    TournamentCreated,
    TournamentEvent,
)
from domain.tournament.pairing import Meetings, pair

MAX_SEATS = 6


class TournamentError(Exception):
    """Base of the tournament's errors."""


class BadEvent(TournamentError):
    """An event that cannot follow the state it is applied to."""


class Round(msgspec.Struct, frozen=True):
    number: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...]
    results: tuple[TableFinished, ...] = ()
    closed: bool = False

    def result(self, table: int) -> TableFinished | None:
        return next((r for r in self.results if r.table == table), None)


class Tournament(msgspec.Struct, frozen=True):
    created: TournamentCreated
    players: tuple[str, ...] = ()
    withdrawn: tuple[str, ...] = ()
    rounds: tuple[Round, ...] = ()
    handles: tuple[str, ...] = ()
    """The players who are registered players (their names are their handles), in
    registration order."""

    @property
    def active(self) -> tuple[str, ...]:
        """The players still paired, in registration order."""
        return tuple(p for p in self.players if p not in self.withdrawn)

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def finished(self) -> bool:
        """Every round played and closed."""
        last = self.current
        return len(self.rounds) == self.created.rounds and last is not None and last.closed

    @property
    def status(self) -> str:
        if self.finished:
            return "finished"
        return "active" if self.rounds else "registering"


def start(created: TournamentCreated) -> Tournament:
    return Tournament(created)


def apply(state: Tournament, event: TournamentEvent) -> Tournament:
    """The reducer: the tournament after ``event`` (checked, so a record cannot skip a step)."""
    replace = msgspec.structs.replace
    match event:
        case PlayerRegistered(name=name, player=player):
            if name in state.players:
                raise BadEvent(f"player {name!r} is registered already")
            handles = (*state.handles, name) if player else state.handles
            return replace(state, players=(*state.players, name), handles=handles)
        case PlayerWithdrawn(name=name):
            if name not in state.active:
                raise BadEvent(f"player {name!r} is not an active player")
            return replace(state, withdrawn=(*state.withdrawn, name))
        case RoundPaired():
            check_pairing(state, event)
            new = Round(event.round, event.tables, event.byes)
            return replace(state, rounds=(*state.rounds, new))
        case TableFinished():
            return with_result(state, event)
        case RoundClosed(round=number):
            last = state.current
            if last is None or last.number != number or last.closed:
                raise BadEvent(f"round {number} is not the open round")
            if len(last.results) != len(last.tables):
                raise BadEvent(f"round {number} has tables still playing")
            return replace(state, rounds=(*state.rounds[:-1], replace(last, closed=True)))
    raise BadEvent(f"a tournament does not take {type(event).__name__} here")


def check_pairing(state: Tournament, event: RoundPaired) -> None:
    """A round may be paired after the last one closed, seating each active player once,
    each table at a game of its own (no other table's, in this round or an earlier one)."""
    if state.current is not None and not state.current.closed:
        raise BadEvent(f"round {state.current.number} is still open")
    if event.round != len(state.rounds) + 1 or event.round > state.created.rounds:
        raise BadEvent(f"round {event.round} cannot follow round {len(state.rounds)}")
    seated = [name for table in event.tables for name in table.seats] + list(event.byes)
    if sorted(seated) != sorted(state.active):
        raise BadEvent(f"round {event.round} does not seat every active player exactly once")
    least, most = state.created.least_per_table, state.created.seats_per_table
    if any(not least <= len(table.seats) <= most for table in event.tables):
        raise BadEvent(f"round {event.round} has a table of a size the tournament does not take")
    games = {table.game_id for round_ in state.rounds for table in round_.tables}
    for table in event.tables:
        if table.game_id in games:
            raise BadEvent(
                f"round {event.round}, table {table.table}: game {table.game_id} is "
                "already another table's"
            )
        games.add(table.game_id)


def with_result(state: Tournament, event: TableFinished) -> Tournament:
    """The open round with one more table's result."""
    last = state.current
    if last is None or last.number != event.round or last.closed:
        raise BadEvent(f"round {event.round} is not the open round")
    table = next((t for t in last.tables if t.table == event.table), None)
    if table is None or table.game_id != event.game_id:
        raise BadEvent(f"round {event.round} has no table {event.table} with that game")
    if last.result(event.table) is not None:
        raise BadEvent(f"table {event.table} of round {event.round} has finished already")
    if not set(event.winners) <= set(table.seats) or set(event.pieces_home) != set(table.seats):
        raise BadEvent(f"table {event.table}'s result names players who were not there")
    done = msgspec.structs.replace(last, results=(*last.results, event))
    return msgspec.structs.replace(state, rounds=(*state.rounds[:-1], done))


def step(state: Tournament | None, event: TournamentEvent) -> Tournament:
    """The tournament after one more event; with no tournament yet, the event must be its
    ``TournamentCreated``."""
    if state is not None:
        return apply(state, event)
    if not isinstance(event, TournamentCreated):
        raise BadEvent("a tournament starts with TournamentCreated")
    return start(event)


def fold(events: Iterable[TournamentEvent]) -> Tournament:
    """A tournament from its events, the first of which is ``TournamentCreated``."""
    state: Tournament | None = None
    for event in events:
        state = step(state, event)
    if state is None:
        raise BadEvent("no events: no tournament")
    return state


def meetings(state: Tournament) -> Counter[tuple[str, str]]:
    """How often each two players sat at one table so far."""
    met: Counter[tuple[str, str]] = Counter()
    for round_ in state.rounds:
        for table in round_.tables:
            for i, a in enumerate(table.seats):
                for b in table.seats[i + 1 :]:
                    met[pair(a, b)] += 1
    return met


def seats_had(state: Tournament) -> dict[str, list[int]]:
    """For each player, how many games they played from each seat."""
    counts = {name: [0] * MAX_SEATS for name in state.players}
    for round_ in state.rounds:
        for table in round_.tables:
            for seat, name in enumerate(table.seats):
                counts[name][seat] += 1
    return counts


def byes_had(state: Tournament) -> Counter[str]:
    return Counter(name for round_ in state.rounds for name in round_.byes)


def repeats(met: Meetings) -> int:
    """Meetings beyond the first of each pair."""
    return sum(max(0, n - 1) for n in met.values())

"""The matcher, pure: given a shape's waiting seeks and the time, which seeks expire and which
sit at a table now (``plan``), and when that answer next changes by itself (``next_due``).

- A seek whose ``expires`` has come expires (before anything else is judged).
- Unrated: the seeks sit in arrival order, the shape's number of players at a table (a
  registered player never twice at one).
- Rated: seeks sit with the neighbours nearest in rating. Sorted by rating, a table is a run
  of consecutive seeks (as many as the shape's players) whose spread (the highest rating
  minus the lowest) is within the window of the run's most recent seek: ``RATING_WINDOW``
  plus ``WIDENING`` for every second that seek has waited. Of the runs that fit, the one
  holding the oldest seek sits first (then the narrower); again until none fits. So two
  players ``d`` apart sit together once the later of them has waited
  ``(d - RATING_WINDOW) / WIDENING`` seconds (a table of new players, all at ordinal 0, at
  once).
- Bots: a seek still waiting at its ``bots_at`` sits with the other waiting seeks that also
  accept bots (arrival order; rated: the nearest in rating, while the table stays within the
  window), and bots of its level in the seats left.

Seats are given in arrival order: seat n is the n-th oldest seek of the table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta

import msgspec

from domain.seeks.book import Book, Seek

RATING_WINDOW = 2.0
"""How far apart in rating (openskill ordinals) rated seeks may sit at once."""
WIDENING = 0.25
"""How much wider the window grows for each second a table's most recent seek has waited."""
SLACK = 1e-6  # float rounding never keeps a run from fitting at the moment ``fits_at`` says


class Seating(msgspec.Struct, frozen=True):
    """Seeks that sit together, in arrival order (seat n is ``seeks[n]``); with ``bots`` (a
    level), bots of it hold the seats after them."""

    seeks: tuple[Seek, ...]
    bots: str = ""


class Plan(msgspec.Struct, frozen=True):
    """What happens to a shape's waiting seeks now: which expire, which sit at tables."""

    expired: tuple[Seek, ...] = ()
    tables: tuple[Seating, ...] = ()


def plan(book: Book, now: datetime) -> Plan:
    """Which of the book's waiting seeks expire and which sit at tables at ``now``."""
    expired = tuple(seek for seek in book.waiting if seek.expires <= now)
    left = [seek for seek in book.waiting if seek.expires > now]
    tables = []
    while (table := full_table(left, book.players, book.rated, now)) is not None:
        tables.append(table)
        left = without(left, table)
    return Plan(expired, (*tables, *bot_tables(left, book.players, book.rated, now)))


def next_due(book: Book) -> datetime | None:
    """When ``plan`` next has something to do for the book's waiting seeks, had it nothing
    to do now: the first expiry, seek due for bots, or rated run that starts to fit."""
    moments = [seek.expires for seek in book.waiting]
    moments += [seek.bots_at for seek in book.waiting if seek.bots_at is not None]
    if book.rated:
        moments += [fits_at(run) for run in runs(book.waiting, book.players) if distinct(run)]
    return min(moments, default=None)


def window(seeks: Sequence[Seek], now: datetime) -> float:
    """How far apart in rating ``seeks`` may sit at ``now``: the window of the most recent."""
    latest = max(seek.at for seek in seeks)
    return RATING_WINDOW + WIDENING * max(0.0, (now - latest).total_seconds())


def spread(seeks: Sequence[Seek]) -> float:
    """The highest rating among ``seeks`` minus the lowest."""
    ratings = [seek.rating for seek in seeks]
    return max(ratings) - min(ratings)


def fits(seeks: Sequence[Seek], now: datetime) -> bool:
    """Whether rated ``seeks`` may sit together at ``now``."""
    return spread(seeks) <= window(seeks, now) + SLACK


def fits_at(seeks: Sequence[Seek]) -> datetime:
    """The first moment rated ``seeks`` may sit together (rounded up to the microsecond)."""
    latest = max(seek.at for seek in seeks)
    wait = max(0.0, spread(seeks) - RATING_WINDOW) / WIDENING
    return latest + timedelta(microseconds=math.ceil(wait * 1_000_000))


def distinct(seeks: Sequence[Seek]) -> bool:
    """Whether no registered player owns two of ``seeks``."""
    handles = [seek.handle for seek in seeks if seek.handle]
    return len(handles) == len(set(handles))


def without(seeks: Sequence[Seek], table: Seating) -> list[Seek]:
    """``seeks`` but those seated at ``table``."""
    seated = {seek.id for seek in table.seeks}
    return [seek for seek in seeks if seek.id not in seated]


def runs(seeks: Sequence[Seek], players: int) -> list[list[Seek]]:
    """Every run of ``players`` consecutive seeks by rating (ties by arrival)."""
    ranked = sorted(enumerate(seeks), key=lambda pair: (pair[1].rating, pair[0]))
    ordered = [seek for _, seek in ranked]
    return [ordered[i : i + players] for i in range(len(ordered) - players + 1)]


def full_table(seeks: list[Seek], players: int, rated: bool, now: datetime) -> Seating | None:
    """The next table of ``players`` seeks that sits at ``now`` (None: none does)."""
    if len(seeks) < players:
        return None
    if not rated:
        return first_come(seeks, players)
    arrival = {seek.id: index for index, seek in enumerate(seeks)}
    fitting = [run for run in runs(seeks, players) if distinct(run) and fits(run, now)]
    if not fitting:
        return None
    best = min(fitting, key=lambda run: (min(arrival[s.id] for s in run), spread(run)))
    return Seating(tuple(sorted(best, key=lambda seek: arrival[seek.id])))


def first_come(seeks: Sequence[Seek], players: int) -> Seating | None:
    """The first ``players`` seeks in arrival order, one per registered player."""
    table: list[Seek] = []
    for seek in seeks:
        if distinct([*table, seek]):
            table.append(seek)
        if len(table) == players:
            return Seating(tuple(table))
    return None


def bot_tables(seeks: list[Seek], players: int, rated: bool, now: datetime) -> list[Seating]:
    """The tables of seeks due for bots at ``now``, each with the waiting seeks that accept
    bots too, and bots in the seats left."""
    tables, left = [], list(seeks)
    for anchor in seeks:
        due = anchor.bots_at
        if due is None or due > now or all(seek.id != anchor.id for seek in left):
            continue
        table = companions(anchor, left, players, rated, now)
        tables.append(Seating(table, anchor.level if len(table) < players else ""))
        left = without(left, tables[-1])
    return tables


def companions(
    anchor: Seek, seeks: Sequence[Seek], players: int, rated: bool, now: datetime
) -> tuple[Seek, ...]:
    """``anchor`` and the waiting seeks that accept bots to sit with it, in arrival order:
    the oldest first, or (rated) the nearest in rating while the table fits the window."""
    arrival = {seek.id: index for index, seek in enumerate(seeks)}
    others = [s for s in seeks if s.id != anchor.id and s.bots_after is not None]
    if rated:
        others.sort(key=lambda s: (abs(s.rating - anchor.rating), arrival[s.id]))
    table = [anchor]
    for seek in others:
        if len(table) == players:
            break
        if distinct([*table, seek]) and (not rated or fits([*table, seek], now)):
            table.append(seek)
    return tuple(sorted(table, key=lambda seek: arrival[seek.id]))

"""What a shape's seeks come to at a moment, as events and the tables to create with them:
the matcher's plan (``domain.seeks.matching``) made into ``SeekExpired`` and ``SeeksMatched``,
each match a complete game created in the same transaction.

A table seats each seek in arrival order: a registered player's seat is hers (her key plays
it), a guest's seat takes the sha256 of her secret as its token (``Holders``: the secret was
shown only once, when she posted), bots of the seating's level hold the seats left. No one
holds its referee's token. A player who retired her handle since she posted is no longer
seated: her seek is cancelled and the plan made again without it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

import structlog

from domain.model import GameError
from domain.seeks.book import Book, step
from domain.seeks.events import SeekCancelled, SeekEvent, SeekExpired, SeeksMatched
from domain.seeks.matching import Plan, Seating, plan
from eventstore import Appending
from service.core.commands import CreateGame, SeatSpec
from service.core.refusal import Refusal
from service.usecases.games.creation import Creation, Holders
from service.usecases.games.repository import new_game

QUICK_PLAY_TAG = "quick-play"
"""The tag of a table seekers were matched into: the shape's name."""


class Roster(Protocol):
    """The registered players, as a table's seats name them."""

    def seated(self, handle: str) -> str | None: ...


def apply(book: Book, events: Sequence[SeekEvent]) -> Book:
    """The book after ``events``."""
    for event in events:
        book, _ = step(book, event)
    return book


def settle(
    book: Book, now: datetime, creation: Creation, roster: Roster, tag: str
) -> tuple[list[SeekEvent], list[Appending]]:
    """What the waiting seeks come to at ``now``: the events (cancelled for a player gone,
    expired, matched) and the new games' first appends, to commit together."""
    events: list[SeekEvent] = []
    while True:
        planned = plan(book, now)
        gone = [s for t in planned.tables for s in t.seeks if gone_player(roster, s.handle)]
        if not gone:
            break
        cancelled = [SeekCancelled(seek.id) for seek in gone]
        events += cancelled
        book = apply(book, cancelled)
    events += [SeekExpired(seek.id) for seek in planned.expired]
    tables = opened(book, planned, now, creation, tag)
    for seating, table in tables:
        if table is None:  # never expected: the shape was checked when the seeks were posted
            events += [SeekCancelled(seek.id) for seek in seating.seeks]
        else:
            ids = tuple(seek.id for seek in seating.seeks)
            events.append(SeeksMatched(ids, table.stream_id, seating.bots))
    return events, [table for _, table in tables if table is not None]


def gone_player(roster: Roster, handle: str) -> bool:
    """Whether ``handle`` names a player who can no longer be seated (retired)."""
    return bool(handle) and roster.seated(handle) != handle


def opened(
    book: Book, planned: Plan, now: datetime, creation: Creation, tag: str
) -> list[tuple[Seating, Appending | None]]:
    """Each seating of the plan with the first append of its new game (None: the game could
    not be created, which is logged)."""
    made: list[tuple[Seating, Appending | None]] = []
    for seating in planned.tables:
        command, holders = table_of(book, seating, tag)
        try:
            game, _ = creation.opened(command, holders)
        except (Refusal, GameError) as error:
            structlog.get_logger().error("seeks: table not created", tag=tag, error=str(error))
            made.append((seating, None))
            continue
        made.append((seating, new_game(game, now)))
    return made


def table_of(book: Book, seating: Seating, tag: str) -> tuple[CreateGame, Holders]:
    """The game a seating makes and who holds its tokens."""
    handles = {canonical(seek.handle) for seek in seating.seeks if seek.handle}
    seats, hashes = [], []
    for seat, seek in enumerate(seating.seeks):
        if seek.handle:
            seats.append(SeatSpec(player=seek.handle))
        else:
            seats.append(SeatSpec(name=guest_name(seek.name, seat, handles)))
        hashes.append(seek.digest)
    for seat in range(len(seating.seeks), book.players):
        seats.append(SeatSpec(name=f"Bot {seat + 1}", bot=seating.bots))
        hashes.append("")
    command = CreateGame(
        book.ruleset, seats, dict(book.options), rated=book.rated, tags={QUICK_PLAY_TAG: tag}
    )
    return command, Holders("", tuple(hashes))


def guest_name(name: str, seat: int, handles: set[str]) -> str:
    """A guest's seat name: hers, unless it would pass for a player at the table (or she
    gave none): ``Guest <n>``."""
    if name and canonical(name) not in handles:
        return name
    return f"Guest {seat + 1}"


def canonical(name: str) -> str:
    """A name as two that show alike compare (as a game's seats compare them)."""
    return unicodedata.normalize("NFKC", name).casefold()

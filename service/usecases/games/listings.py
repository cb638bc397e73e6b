"""Tournament reads: the games listed with their results, standings, archives, all read
from the games' summaries (``summaries``) in SQL: a listing is one page in keyset order
(creation time, then id) whose opaque cursor names the last game of the page before;
standings and archives go through every selected summary a page at a time."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta

import msgspec

from domain.model import status_of
from eventstore import EventStore, Summarised, SummaryQuery
from eventstore.clock import iso_timestamp
from service.clock import Clock
from service.core.delay import MAX_DELAY_SECONDS
from service.core.refusal import refuse
from service.usecases.cursors import Cursors
from service.usecases.games import summaries
from service.usecases.games.records import GameRecord, streamed_record
from service.usecases.games.repository import Repository
from service.usecases.games.views import sight
from service.usecases.replies import GameSummary

ARCHIVE_FORMAT = "tabula-archive"
NDJSON = "application/x-ndjson"


class Standing(msgspec.Struct, frozen=True):
    name: str
    games: int
    wins: int
    pieces_home: int


class Standings(msgspec.Struct, frozen=True):
    tag: str | None
    standings: list[Standing]


class Archive(msgspec.Struct, frozen=True):
    """Every finished game of a selection, as records ``python -m service verify`` accepts."""

    records: list[GameRecord]
    format: str = ARCHIVE_FORMAT
    format_version: int = 1


def selection(
    status: str | None = None,
    ruleset: str | None = None,
    tag: str | None = None,
    after: tuple[str, str] | None = None,
    limit: int = summaries.PAGE,
) -> SummaryQuery:
    """The games' summaries (no tournament's) a listing's filters select: ``tag`` is
    ``key:value`` (read from the tags' index), or a bare word that a key or a value must
    equal. A NUL character, which no tag or rule set holds (PostgreSQL's text cannot), is
    400."""
    for parameter, text in (("ruleset", ruleset), ("tag", tag)):
        if text is not None and "\x00" in text:
            raise refuse(
                "validation-failed", f"`{parameter}`: holds a NUL character", parameter=parameter
            )
    key, sep, value = (tag or "").partition(":")
    pair = (key, value) if tag is not None and sep else None
    word = tag if tag is not None and not sep else None
    return SummaryQuery(ruleset, status, pair, word, after, limit, summaries.TOURNAMENT)


def listing(
    games: Repository,
    status: str | None,
    ruleset: str | None,
    tag: str | None,
    limit: int,
    cursor: str | None,
    now: Clock,
    cursors: Cursors,
) -> tuple[list[GameSummary], str | None]:
    """A page of games, oldest first, and the cursor of the next page (None on the last).
    Listings are everyone's, so a game with a spectator delay is listed as its spectators
    see it: a game whose end they do not see yet as running, at the version they see. A
    ``status`` filter selects by that status (a game finished within the longest delay is
    read as a candidate for ``active``), a page is filled past the rows it leaves out, and
    the cursor names the page's last listed game."""
    after = cursors.read(cursor, tuple[str, str])
    moment = now()
    since = iso_timestamp(moment - timedelta(seconds=MAX_DELAY_SECONDS))
    also = (summaries.FINISHED, since) if status == status_of(False) else None
    listed: list[tuple[Summarised, GameSummary]] = []
    while True:
        query = selection(status, ruleset, tag, after, limit + 1)
        rows = games.store.summaries(msgspec.structs.replace(query, also=also))
        for row in rows:
            game = as_spectators_see(games, row, moment)
            if status is None or game.status == status:
                listed.append((row, game))
        if len(listed) > limit or len(rows) <= limit:
            break
        after = (rows[-1].created_at, rows[-1].stream_id)
    more, listed = len(listed) > limit, listed[:limit]
    last = listed[-1][0] if listed else None
    following = cursors.make(last.created_at, last.stream_id) if more and last else None
    return [game for _, game in listed], following


def as_spectators_see(games: Repository, row: Summarised, now: datetime) -> GameSummary:
    """A game's listing as its spectators see it at ``now`` (read from its log only when it
    has a delay and they do not see its end)."""
    listed = summaries.game_summary(row, now)
    if listed.status == summaries.FINISHED or "spectator_delay" not in row.summary.document:
        return listed
    with games.game(row.stream_id, keep=False) as game:
        version = sight(game, None, now).version
    return msgspec.structs.replace(listed, version=min(version, listed.version))


def finished_games(store: EventStore, tag: str | None, now: datetime) -> Iterator[GameSummary]:
    """Every finished game with ``tag`` whose end its spectators see at ``now``, oldest first,
    read from the summaries a page at a time (a bad tag is refused at once, before anything
    is read)."""
    query = selection(summaries.FINISHED, tag=tag)
    listed = (summaries.game_summary(row, now) for row in summaries.every(store, query))
    return (game for game in listed if game.status == summaries.FINISHED)


def standings(tag: str | None, finished: Iterable[GameSummary]) -> Standings:
    """Wins per player name, ties broken by pieces home, then by name."""
    table: dict[str, list[int]] = {}
    for result in finished:
        for name in result.seats:
            row = table.setdefault(name, [0, 0, 0])
            row[0] += 1
            row[1] += name in result.winners
            row[2] += result.pieces_home.get(name, 0)
    return ordered(tag, [Standing(name, g, w, h) for name, (g, w, h) in table.items()])


def ordered(tag: str | None, rows: list[Standing]) -> Standings:
    """Standings in order: wins, then pieces home, then name."""
    rows.sort(key=lambda s: (-s.wins, -s.pieces_home, s.name))
    return Standings(tag, rows)


def archive(games: Repository, selected: Iterable[GameSummary], now: Clock) -> Iterator[bytes]:
    """The records of the selected finished games as one ``Archive`` document in pieces, a
    page of one game's events at a time (each record ends at the version it had when its
    turn came; a game reopened meanwhile, or whose end its spectators do not see yet, is
    left out)."""
    yield b'{"records":['
    separator = b""
    for summary in selected:
        with games.game(summary.id, keep=False) as game:
            if not sight(game, None, now()).finished:
                continue
            pieces = streamed_record(game, games.store)
        for piece in pieces:
            yield separator + piece
            separator = b""
        separator = b","
    yield b"]," + msgspec.json.encode(ArchiveTail())[1:]


class ArchiveTail(msgspec.Struct, frozen=True):
    """An archive's fields after its records (in ``Archive``'s order)."""

    format: str = ARCHIVE_FORMAT
    format_version: int = 1


def ndjson(rows: Iterable[GameSummary]) -> bytes:
    """One JSON document per line."""
    return b"".join(msgspec.json.encode(row) + b"\n" for row in rows)

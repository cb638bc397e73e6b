"""A game's summary: what listings, results and standings read, kept by the store beside the
log (the store's ``Summary``: kind = the rule set, status, tags, and a document of seat names,
winners and pieces home per name, whether the game is rated, its teams as lists of seats, the
handle of the registered player each seat belongs to (``players``: null for a free name), and
the level of the bot playing each seat when bots play; for a game created with open or
invited seats, its ``table``: whether the lobby lists it, its options, the seats open and
kept for invited players, and why it closed if it did; ``rematch_of``, the finished game a
rematch table follows, and ``rematch``, the table a finished game's rematch created).

A table's status is ``gathering`` while its seats wait for players (``GET /lobby`` reads
those summaries) and ``closed`` if it closed before it started, else a game's: ``active``,
``finished``.

When it is written: in the transaction of the append that creates a game, and of every append
that changes its status (the move, clock or adjudication that finishes it; the undo that
reopens it) or who sits at it (a seat taken, left or handed over). Moves in between write
none, so a running game's summary carries no result: no winners and no pieces home (a live
position is ``GET /games/{id}``); its version comes from the log's head when listed. The
store stamps the summary with the time of the append that wrote it, which for a finished
game is when it finished.

It is derived data: ``from_log`` makes it again from a game's events, and ``rebuild`` drops
every summary and makes them all again; ``fill`` summarises the games that have none (those
of a database written before summaries existed: the app runs it when it starts).

A finished game's ``rematch`` is no event of its log: the rematch writes it into the
finished game's summary when it creates its table (``linked``), and a summary made again from
the log finds it by the table's id, which the finished game's id gives (``rematch_id``).

A tournament's stream has a summary too (``tournament_summary``: kind ``tournament``, its
status, no tags, a document of its name, rule set, format and size), written by every append
to it; game listings leave that kind out (``SummaryQuery.other_than``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from typing import Any

import msgspec
import structlog

from domain.events import GameCreated, parse_event
from domain.model import View, status_of
from domain.replay import Replay
from domain.tables import Table
from domain.tournament import events as tournament_events
from domain.tournament.state import Tournament, fold
from eventstore import EventStore, StoredEvent, Summarised, Summary, SummaryQuery
from service.core.clocks import parse_at
from service.usecases.replies import GameSummary

UNSUMMARISED = ("player-", "app-", "seek")
"""The streams that have no summary (no listing shows them) and are no game's: the registered
players' and apps' (``service/usecases/players/``), the seeks' (``service/usecases/seeks/``);
every game's and tournament's id is 32 hex digits."""
FINISHED = "finished"  # the status ``status_of`` gives a finished game
GATHERING, CLOSED = "gathering", "closed"  # a table's status before it starts, or if it never does
TOURNAMENT = "tournament"  # the ``kind`` in a tournament stream's meta
PAGE = 1000
"""Summaries read at a time by standings, archives and ``fill``."""
SAVE_ATTEMPTS = 5
"""Tries at saving one game's rebuilt summary while appends keep moving it."""


def summary_of(replay: Replay) -> Summary:
    """The summary of a game as ``replay`` leaves it: its result once it has finished."""
    created = replay.created
    names = list(replay.names)
    home = dict.fromkeys(names, 0)
    view = replay.rules.view(replay.state, None)
    finished = bool(replay.state.finished)
    if finished:
        for seat, count in replay.rules.finished(replay.state).items():
            home[names[seat]] += count
    document: dict[str, Any] = {
        "seats": names,
        "winners": [names[seat] for seat in view.winners] if finished else [],
        "pieces_home": home,
        "rated": created.rated,
        "teams": teams_of(view, len(names)),
        "players": seat_players(replay),
    }
    if created.spectator_delay is not None:
        document["spectator_delay"] = created.spectator_delay
    if replay.top.bots:
        document["bots"] = list(replay.top.bots)
    if (table := replay.table) is not None:
        document["table"] = table_document(table, created)
    if created.rematch_of:
        document["rematch_of"] = created.rematch_of
    return Summary(created.ruleset, status_word(replay), dict(created.tags), document)


def status_word(replay: Replay) -> str:
    """A game's status in its summary: ``gathering``, ``closed``, ``active`` or ``finished``."""
    table = replay.table
    if table is not None and table.closed:
        return CLOSED
    return GATHERING if replay.gathering else status_of(replay.state.finished)


def table_document(table: Table, created: GameCreated) -> dict[str, Any]:
    """What the lobby reads of a table: listed or not, its options, its seats open and kept
    for invited players (``[seat, handle]`` pairs), why it closed ("" while it has not)."""
    return {
        "listed": table.listed,
        "options": created.options,
        "open": list(table.open) if not table.started else [],
        "invites": [[invite.seat, invite.handle] for invite in table.invites],
        "closed": table.closed,
    }


def seat_players(replay: Replay) -> list[str | None]:
    """Per seat, the handle of the registered player it belongs to now, or None (a free
    name, or a seat still open)."""
    handles: list[str | None] = [None] * len(replay.created.seats)
    for seat in replay.players:
        handles[seat.seat] = seat.handle
    return handles


def players_in(document: dict[str, Any]) -> list[str | None]:
    """Per seat, the handle of the player a stored summary's seat belongs to, or None (a
    summary kept before seats could belong to players has none)."""
    seats = len(document.get("seats", ()))
    return list(document.get("players") or [None] * seats)


def teams_of(view: View, seats: int) -> list[list[int]]:
    """The seats that win or lose together: the view's ``teams`` where the rule set has them
    (partners), else each seat alone."""
    teams = getattr(view, "teams", None)
    return [list(team) for team in teams] if teams else [[seat] for seat in range(seats)]


def changes_status(before: Replay, after: Replay) -> bool:
    """Whether going from ``before`` to ``after`` finishes or reopens the game, hands a seat
    to a bot or back (the summary says which seats bots play, so a restart finds them), or
    changes who sits at a gathering table (the lobby shows its seats)."""
    finishes = bool(before.state.finished) != bool(after.state.finished)
    return finishes or before.top.bots != after.top.bots or before.table != after.table


def game_summary(row: Summarised, now: datetime) -> GameSummary:
    """A stored summary as the API lists a game at ``now``: a game whose end its spectators'
    delay still hides is listed as running, with no result."""
    summary, document = row.summary, row.summary.document
    hidden = summary.status == FINISHED and end_hidden(row, now)
    finished = summary.status == FINISHED and not hidden
    seats = list(document["seats"])
    return GameSummary(
        id=row.stream_id,
        ruleset=summary.kind,
        status=status_of(False) if hidden else summary.status,
        version=row.version,
        seats=seats,
        created_at=row.created_at,
        tags=dict(summary.tags),
        winners=list(document["winners"]) if finished else [],
        pieces_home=dict(document["pieces_home"]) if finished else dict.fromkeys(seats, 0),
        finished_at=row.updated_at if finished else None,
        rated=bool(document.get("rated", True)),  # summaries kept before ``rated`` existed
        rematch_of=document.get("rematch_of"),
        rematch=document.get("rematch") if finished else None,
    )


def end_hidden(row: Summarised, now: datetime) -> bool:
    """Whether a finished game's end is still hidden from its spectators at ``now``: its
    delay is in seconds and they have not passed since it finished (a delay in moves ends
    with the game)."""
    delay = row.summary.document.get("spectator_delay") or {}
    seconds = delay.get("seconds")
    if row.summary.status != FINISHED or not isinstance(seconds, int):
        return False
    return parse_at(row.updated_at) + timedelta(seconds=seconds) > now


def from_log(events: Iterable[StoredEvent]) -> tuple[Summary, str, int]:
    """The summary the live appends leave on a game with these events, the time they stamp
    on it (of the last append that created, finished, reopened or handed a seat over: the
    events of one append share their time) and the version it describes."""
    replay: Replay | None = None
    changed_at, finished = "", False
    bots: tuple[str, ...] = ()
    table: Table | None = None
    for stored in events:
        event = parse_event(stored.type, stored.data)
        if replay is None:
            if not isinstance(event, GameCreated):
                raise ValueError(f"stream {stored.stream_id!r} does not start with GameCreated")
            replay, changed_at = Replay(event), stored.at
        else:
            replay.push(stored.version, event, stored.by)
        if (bool(replay.state.finished), replay.top.bots, replay.table) != (finished, bots, table):
            finished, bots, table = bool(replay.state.finished), replay.top.bots, replay.table
            changed_at = stored.at
    if replay is None:
        raise ValueError("no events: no game")
    return summary_of(replay), changed_at, replay.version


def every(store: EventStore, query: SummaryQuery) -> Iterator[Summarised]:
    """Every summary ``query`` selects (its ``after`` and ``limit`` aside), read a page at a
    time."""
    after = None
    while True:
        page = store.summaries(msgspec.structs.replace(query, after=after, limit=PAGE))
        yield from page
        if len(page) < PAGE:
            return
        after = (page[-1].created_at, page[-1].stream_id)


def tournament_summary(state: Tournament) -> Summary:
    """The summary of a tournament as ``state`` leaves it."""
    created = state.created
    document = {
        "name": created.name,
        "ruleset": created.ruleset,
        "format": created.format,
        "players": len(state.players),
        "seats_per_table": created.seats_per_table,
        "rounds": created.rounds,
        "rounds_paired": len(state.rounds),
        "handles": list(state.handles),  # its registered players: what GET /me finds it by
    }
    return Summary(TOURNAMENT, state.status, {}, document)


def save_tournament_summary(store: EventStore, stream_id: str) -> bool:
    """Write a tournament's summary made from its stream; False if appends moved it."""
    stored = store.read(stream_id)
    state = fold(tournament_events.parse_event(e.type, e.data) for e in stored)
    summary = tournament_summary(state)
    return store.save_summary(stream_id, stored[-1].version, summary, stored[-1].at)


def fill(store: EventStore) -> int:
    """Summarise, from its log, every game (and tournament) that has no summary; how many
    were written. A stream that keeps moving while it is summarised is tried again, then
    left (logged)."""
    written, left = 0, set[str]()
    while ids := [i for i in store.unsummarised(PAGE + len(left)) if i not in left]:
        for stream_id in ids:
            if stream_id.startswith(UNSUMMARISED):
                left.add(stream_id)
            elif is_tournament(store, stream_id):
                if any(save_tournament_summary(store, stream_id) for _ in range(SAVE_ATTEMPTS)):
                    written += 1
                else:
                    left.add(stream_id)
            elif save_from_log(store, stream_id):
                written += 1
            elif store.summary(stream_id) is None:
                left.add(stream_id)
                structlog.get_logger().warning("game not summarised", game_id=stream_id)
    return written


def is_tournament(store: EventStore, stream_id: str) -> bool:
    """Whether a stream is a tournament's (its creation says so in the stream's meta)."""
    info = store.stream(stream_id)
    return info is not None and info.meta.get("kind") == TOURNAMENT


def save_from_log(store: EventStore, stream_id: str) -> bool:
    """Write a game's summary made from its log (with its rematch, if one was created);
    False if appends kept moving it (or a stream that is no game)."""
    for _ in range(SAVE_ATTEMPTS):
        try:
            summary, at, version = from_log(store.read(stream_id))
        except ValueError:
            return False
        if summary.status == FINISHED and store.stream(rematch_id(stream_id)) is not None:
            summary = linked(summary, rematch_id(stream_id))
        if store.save_summary(stream_id, version, summary, at):
            return True
    return False


def rematch_id(game_id: str) -> str:
    """The id of the table a rematch of the game ``game_id`` creates: 32 hex digits made
    from it, so every request for that rematch names the same table, and the store, which
    creates a stream once, creates it once."""
    return hashlib.sha256(f"rematch\n{game_id}".encode()).hexdigest()[:32]


def linked(summary: Summary, rematch: str) -> Summary:
    """A finished game's summary that names the table of its rematch."""
    return msgspec.structs.replace(summary, document={**summary.document, "rematch": rematch})


def rebuild(store: EventStore) -> int:
    """Drop every summary and make them all again from the logs; how many were written."""
    store.drop_summaries()
    return fill(store)

"""The tournaments' results follower: a finished table reaches its tournament.

A table's result is recorded (``TableFinished``, by ``server``; ``RoundClosed`` once every
table of the round has one) by this follower of the writer, never by a read. It acts:

- when the writer commits a game's summary that says the game finished and the game is a
  tournament's table: at once, on the committing thread (the reply to the finishing move
  comes after the tournament recorded it);
- on its sweep (``sweep``, every second in the app from its start): every
  running tournament's open round is checked against its tables' summaries. That catches
  what another process finished, what a crash left between the game's commit and the
  tournament's, and results a spectator delay in seconds held back until it passed.

The tracking record is the tournament's own stream: the results it holds are the tables it
has read, and recording one more is an append at the version loaded, so of two processes
(or a retry after a restart) exactly one records each result, once.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from domain.tournament.events import RoundClosed, TableFinished, TournamentEvent
from domain.tournament.state import Tournament
from eventstore import Appending, SummaryQuery
from service.usecases.games.summaries import FINISHED, TOURNAMENT, end_hidden
from service.usecases.tournaments.log import Loaded, TournamentLog

Found = dict[str, tuple[list[str], dict[str, int]]]
"""A round's newly finished tables: game id to (winners, pieces home)."""
TOURNAMENT_TAG = "tournament"
ACTIVE = "active"  # a tournament with a round paired and rounds to play
PAGE = 500


class Results:
    """Records finished tables in their tournaments."""

    def __init__(self, log: TournamentLog, now: Callable[[], datetime]) -> None:
        self.log, self.now = log, now

    def follow(self, appended: Appending) -> Callable[[], object] | None:
        """The writer's follower: the recording a committed append makes due, if any."""
        summary = appended.summary
        if summary is None or summary.status != FINISHED:
            return None
        tournament_id = summary.tags.get(TOURNAMENT_TAG)
        if tournament_id is None:
            return None
        return lambda: self.record(tournament_id)

    def sweep(self) -> int:
        """Record the finished tables of every running tournament; how many were recorded."""
        recorded, after = 0, None
        while True:
            query = SummaryQuery(TOURNAMENT, ACTIVE, after=after, limit=PAGE)
            rows = self.log.store.summaries(query)
            for row in rows:
                recorded += self.record(row.stream_id)
            if len(rows) < PAGE:
                return recorded
            after = (rows[-1].created_at, rows[-1].stream_id)

    def record(self, tournament_id: str) -> int:
        """Record the open round's finished tables of one tournament; how many."""
        return self.log.retried(tournament_id, self._record)

    def _record(self, loaded: Loaded) -> int:
        news = results(loaded.state, self.finished_tables(loaded.state))
        if news:
            self.log.commit(loaded, news, "server")
        return sum(isinstance(e, TableFinished) for e in news)

    def finished_tables(self, state: Tournament) -> Found:
        """The results (winners, pieces home) of the open round's finished games whose end
        their spectators may see (a delay in seconds holds the result back until it passes)."""
        current, now = state.current, self.now()
        found: Found = {}
        if current is None or current.closed:
            return found
        for table in current.tables:
            if current.result(table.table) is not None:
                continue
            row = self.log.store.summary(table.game_id)
            if row is not None and row.summary.status == FINISHED and not end_hidden(row, now):
                document = row.summary.document
                found[table.game_id] = (list(document["winners"]), dict(document["pieces_home"]))
        return found


def results(state: Tournament, finished: Found) -> list[TournamentEvent]:
    """The events recording the open round's newly finished tables, and its close if every
    table has finished."""
    current = state.current
    if current is None or current.closed:
        return []
    news: list[TournamentEvent] = []
    for table in current.tables:
        if table.game_id in finished:
            winners, home = finished[table.game_id]
            news.append(
                TableFinished(current.number, table.table, table.game_id, tuple(winners), home)
            )
    if len(current.results) + len(news) == len(current.tables):
        news.append(RoundClosed(current.number))
    return news

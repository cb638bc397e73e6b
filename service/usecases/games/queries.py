"""Read use cases: a game's state (now or at any version), legal moves, its log, records, lists.

Reads are public but redacted for the caller: a seat token sees its own hand, the referee's
sees everything, and a finished game is public in full. A spectator of a game with a delay
sees it as it was at the version its ``Sight`` names, on every route.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any, NamedTuple, TypeVar

import msgspec

from domain.events import no_secrets
from domain.model import Viewer
from domain.registry import GameView
from domain.replay import Replay
from eventstore import StoredEvent
from service import board
from service.clock import Clock
from service.core.actor import GameCaller
from service.core.refusal import Refusal, refuse
from service.usecases.cursors import Cursors
from service.usecases.games import listings, records, summaries
from service.usecases.games.repository import Game, Repository
from service.usecases.games.views import (
    Attendance,
    Sight,
    event_out,
    moves_for,
    sight,
    state_view,
)
from service.usecases.replies import EventOut, EventPage, GameSummary, LegalMoves, Played

T = TypeVar("T")
Verifications = records.Kept[tuple[str, int], records.Verification]
StandingRows = Callable[[datetime], list[tuple[str, int, int, int]]]
"""(name, games, wins, pieces home) of every name at a time, caught up with the summaries:
the untagged standings kept in the store (``KeptStandings.rows``)."""


class Queries:
    """The reads of the service, over the repository and the caches and derived rows given
    (the composition root, ``service.app``, builds them)."""

    def __init__(
        self,
        games: Repository,
        now: Clock,
        standing_rows: StandingRows,
        verifications: Verifications,
        documents: records.Documents,
        cursors: Cursors,
        attendance: Attendance | None = None,
    ) -> None:
        self.games = games
        self.attendance = attendance  # each seat's presence in the state views
        self.store = games.store
        self.now = now  # the time a delay in seconds is measured at
        self.standing_rows = standing_rows
        self.verifications = verifications
        self.documents = documents
        self.cursors = cursors  # the seal of the listings' page cursors

    def state(self, game_id: str, token: GameCaller, at: int | None = None) -> GameView:
        """The state after event ``at`` (the current one without ``at``) as the caller sees
        it; a finished game's names the table of its rematch, once one was asked for (the
        caller sees the game finished)."""
        game, replay, seen = self.game_at(game_id, at, token)
        now = self.now()
        view = state_view(game, replay, seen.viewer, now, seen.finished, self.attendance)
        rematch = summaries.rematch_id(game_id)
        if seen.finished and self.store.stream(rematch) is not None:
            return msgspec.structs.replace(view, rematch=rematch)
        return view

    def game_at(
        self, game_id: str, at: int | None, token: GameCaller = None
    ) -> tuple[Game, Replay, Sight]:
        """The game, its replay after event ``at`` (the last the caller sees without ``at``)
        and how far the caller (``token``, checked first) sees it. An ``at`` beyond that is
        400, with the spectators' last version as the end."""
        with self.games.game(game_id) as game:
            seen = sight(game, game.role(token), self.now())
            at = seen.version if at is None else at
            if not 1 <= at <= seen.version:
                behind = spectators_behind(game) if seen.viewer is None else ""
                raise refuse(
                    "out-of-range",
                    f"at={at} is outside this game's versions 1..{seen.version}{behind}",
                    parameter="at",
                )
            if at == seen.version:
                return game, self.games.behind(game, at), seen
        return game, self.games.replay_at(game_id, at), seen

    def legal_moves(self, game_id: str, token: GameCaller) -> LegalMoves:
        """The caller's legal moves (every pending seat's for the referee or a spectator)."""
        with self.games.game(game_id) as game:
            seen = sight(game, game.role(token), self.now())
            replay = self.games.behind(game, seen.version)
            return LegalMoves(seen.version, moves_for(game, seen.viewer, replay))

    def events(self, game_id: str, token: GameCaller, after: int, limit: int) -> EventPage:
        """The log after version ``after``, a page at a time, redacted for the caller."""
        with self.games.game(game_id) as game:
            seen = sight(game, game.role(token), self.now())
        check_after(after, seen.version)
        stored = self.store.read(game_id, after=after, until=seen.version, limit=limit)
        return EventPage(
            seen.version, [event_out(game, e, seen.viewer, seen.finished) for e in stored]
        )

    def following(self, game_id: str, token: GameCaller, after: int) -> Viewer:
        """The caller's role for a stream of the log after ``after`` (checked)."""
        return self.joining(game_id, token, after)[0]

    def joining(self, game_id: str, token: GameCaller, after: int) -> tuple[Viewer, int]:
        """The caller's role for a live view of the log after ``after`` (checked), and the
        version the caller sees now."""
        with self.games.game(game_id) as game:
            seen = sight(game, game.role(token), self.now())
        check_after(after, seen.version)
        return seen.viewer, seen.version

    def page(self, game_id: str, viewer: Viewer, cursor: int, size: int) -> StreamPage:
        """Events after ``cursor`` as ``viewer`` sees them now, whether the game has finished
        for them with nothing after ``cursor`` (the end of a stream), and when the next
        event hidden by a delay in seconds comes due."""
        with self.games.game(game_id) as game:
            seen = sight(game, viewer, self.now())
            finished = seen.finished and game.version <= cursor
            due = game.timeline.due(seen.version) if viewer is None and game.timeline else None
        stored = self.store.read(game_id, after=cursor, until=seen.version, limit=size)
        events = [event_out(game, e, viewer, seen.finished) for e in stored]
        return StreamPage(events, finished, due)

    def held_page(
        self, game_id: str, viewer: Viewer, cursor: int, size: int, wrap: Callable[[StreamPage], T]
    ) -> T | None:
        """``page`` from the game as this process holds it, without reading the log (so on
        the event loop), when it holds every event after ``cursor`` that ``viewer`` sees and
        there is one; None otherwise (then ``page``). Not for a game with a spectator delay.
        The page is given to ``wrap`` once; its result is shared by every reader of the same
        page at the same version: of every viewer, when the game shows everyone the same
        events (``alike``)."""
        if not self.games.holds(game_id):
            return None
        with self.games.game(game_id, fresh=False) as game:
            if game.timeline is not None or game.version <= cursor:
                return None
            made, key = game.made(), page_key(game, viewer, cursor, size)
            if key in made:
                return made[key]  # type: ignore[no-any-return]
            seen = sight(game, viewer, self.now())
            stored = game.held(cursor, min(seen.version, cursor + size))
            if not stored:
                return None
            events = [event_out(game, e, viewer, seen.finished) for e in stored]
            made[key] = wrapped = wrap(StreamPage(events, False, None))
            return wrapped

    def offer_page(
        self, game_id: str, viewer: Viewer, cursor: int, size: int, events: list[EventOut], made: T
    ) -> None:
        """Share ``made`` (``events`` as ``held_page``'s ``wrap`` makes them) as the page of
        ``size`` after ``cursor`` for the readers of the game at its version, when those are
        its events (a write's own, its reply made: the sockets its news wakes then make
        nothing)."""
        if not events or not self.games.holds(game_id):
            return
        with self.games.game(game_id, fresh=False) as game:
            last = events[-1].version
            if game.timeline is not None or game.version != last or len(events) > size:
                return
            if events[0].version == cursor + 1 and last - cursor == len(events):
                game.made().setdefault(page_key(game, viewer, cursor, size), made)

    def results(
        self,
        status: str | None = None,
        ruleset: str | None = None,
        tag: str | None = None,
        limit: int = 1000,
        cursor: str | None = None,
    ) -> tuple[list[GameSummary], str | None]:
        """A page of the games selected, oldest first, with their winners and pieces home,
        and the cursor of the next page (None on the last)."""
        return listings.listing(
            self.games, status, ruleset, tag, limit, cursor, self.now, self.cursors
        )

    def standings(self, tag: str | None) -> listings.Standings:
        """Wins per player name over the finished games with ``tag`` (every finished game
        without one: kept in the store, ``service.usecases.ratings.standings``), ties by
        pieces home."""
        if tag is None:
            rows = self.standing_rows(self.now())
            return listings.ordered(None, [listings.Standing(*row) for row in rows])
        return listings.standings(tag, listings.finished_games(self.store, tag, self.now()))

    def archive(self, tag: str | None) -> Iterator[bytes]:
        """The records of the finished games with ``tag``, as one JSON document in pieces
        (one page of one game's events at a time)."""
        return listings.archive(
            self.games, listings.finished_games(self.store, tag, self.now()), self.now
        )

    def audit(self, game_id: str, token: GameCaller) -> Iterator[bytes]:
        """The full log with hashes and the seed once revealed, and its verification, as one
        JSON document in pieces. The verification of the game at its version now is computed
        once (a log up to a version never changes), before the first piece; a finished game's
        document is kept whole (within ``Documents``' budget), any other's events are read a
        page at a time as the pieces are taken."""
        with self.games.game(game_id) as game:
            check_may_see_all(sight(game, game.role(token), self.now()))
            head, version, finished = records.audit_head(game), game.version, game.finished
            seed, chance = game.secrets.seed, game.created.chance

        def make() -> Iterator[bytes]:
            verification = self.verifications.get(
                (game_id, version),
                lambda: records.verify_stored(self.store, game_id, version, seed, chance),
            )
            return records.streamed_audit(head, self.store, version, verification)

        return self.documents.get(("audit", game_id, version), make) if finished else make()

    def export(self, game_id: str, token: GameCaller) -> Iterator[bytes]:
        """The self-contained game record, as one JSON document in pieces (a finished game's
        kept whole, like its audit)."""
        with self.games.game(game_id) as game:
            check_may_see_all(sight(game, game.role(token), self.now()))
            version, finished = game.version, game.finished
            pieces = records.streamed_record(game, self.store)
        return (
            self.documents.get(("export", game_id, version), lambda: pieces) if finished else pieces
        )

    def caller(self, game_id: str, token: str) -> Viewer:
        """Who ``token`` is in a game: a seat or the referee, or None when it is no token of
        the game or there is no such game (never refused: the write limit keys on it)."""
        try:
            with self.games.game(game_id, fresh=False) as game:
                return game.role(token)
        except Refusal:
            return None

    def board_svg(self, game_id: str, token: GameCaller, at: int | None, lang: str = "en") -> str:
        """The board after event ``at`` (the last the caller sees without ``at``) as SVG, its
        words in ``lang``."""
        game, replay, seen = self.game_at(game_id, at, token)
        log = self.store.read(game_id, until=replay.version)
        view = state_view(game, replay, None, self.now(), seen.finished)
        return board.draw(msgspec.to_builtins(view), log_moves(log), lang)

    def role(self, game_id: str, token: GameCaller) -> Viewer:
        """Who ``token`` is in a game (None: no token)."""
        with self.games.game(game_id, fresh=False) as game:
            return game.role(token)

    def exists(self, game_id: str) -> None:
        """Refuse an unknown game (404)."""
        with self.games.game(game_id, fresh=False):
            pass

    def played(
        self, game_id: str, token: GameCaller, stored: list[StoredEvent], with_state: bool = True
    ) -> Played:
        """The reply to a write: the events it stored, the state now (unless not wanted) and
        the caller's moves.
        The game as held unless that is behind the events (a retry of a write whose first try
        has not yet been taken into the game, or a write of another process): then the log."""
        with self.games.game(game_id, fresh=False) as game:
            if not stored or game.version >= stored[-1].version:
                return self._played(game, token, stored, with_state)
        with self.games.game(game_id) as game:
            return self._played(game, token, stored, with_state)

    def _played(
        self, game: Game, token: GameCaller, stored: list[StoredEvent], with_state: bool
    ) -> Played:
        """``played`` on the game held."""
        viewer = game.role(token)
        events = [event_out(game, e, viewer) for e in stored]
        moves = moves_for(game, viewer)
        if not with_state:
            return Played(game.version, events, moves)
        view = state_view(game, game.replay, viewer, self.now(), attendance=self.attendance)
        return Played(game.version, events, moves, view)


class StreamPage(NamedTuple):
    """A stream's read: the events shown, whether the stream ends, and when (if ever) the
    next event a delay in seconds hides comes due."""

    events: list[EventOut]
    finished: bool
    due: datetime | None


def page_key(game: Game, viewer: Viewer, cursor: int, size: int) -> tuple[Any, ...]:
    """What names a page of the game held at its version in ``Game.made``: the viewer's own
    unless the game shows everyone the same events (a rule set with no secrets, or a game
    finished; a game with a spectator delay has no held pages)."""
    alike = game.finished or game.rules.redact is no_secrets
    return ("page", ALIKE if alike else viewer, cursor, size)


ALIKE = "alike"
"""``page_key``'s viewer for a page every viewer sees the same."""


def spectators_behind(game: Game) -> str:
    """A detail's note that spectators see ``game`` behind live."""
    if game.timeline is None:
        return ""
    return f" (its spectators see it {game.timeline.delay.describe()} behind)"


def log_moves(log: list[StoredEvent]) -> list[tuple[str, dict[str, Any]]]:
    """A log as (type, data) pairs for the board's last move."""
    return [(e.type, e.data) for e in log]


def check_after(after: int, version: int) -> None:
    """Reject a cursor past the log: versions never go back, so no client has seen it."""
    if after > version:
        raise refuse(
            "out-of-range",
            f"after={after} is past this game's version {version}",
            parameter="after",
        )


def check_may_see_all(seen: Sight) -> None:
    """The whole log is the referee's while a game runs, and everyone's once it has finished
    (for a delayed game's spectators: once they see it finished)."""
    if seen.viewer != "referee" and not seen.finished:
        raise refuse("forbidden", "the full log of a running game is for the referee only")

"""Presence: which seats of a table are there now, as this process sees them.

A seat is present while a game socket or an event stream opened as that seat (with its token
or its player's key) is open in this process, and for ``seconds`` (the ``presence_seconds``
setting) after it was last seen: after any request for the game made as the seat (``Game.role``
tells each one, ``seen``) and after its last connection closed. Presence is kept in memory
only, per process, and is never an event of the game's log. A process follows a table from
the first request or connection of one of its seats, or of its referee, that it serves
(``Attendance.since``); it forgets the least recently used tables past ``kept`` (never one
with a connection open or a socket watching).

A table's watchers (its sockets) are told, from any thread, whenever the set of its present
seats changes: at once when a seat comes by a request or a connection, and at the sweep
(``sweep``, run by the clocks' sweeper) once a seat's time since it was last seen has run out.
"""

from __future__ import annotations

import heapq
import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import NamedTuple

from domain.model import Viewer
from service.clock import Clock
from service.usecases.games.repository import Game

PRESENCE_SECONDS = 60.0
"""How long a seat stays present after it was last seen (the ``presence_seconds`` setting)."""
TABLES_KEPT = 100_000
"""The most tables a process follows at once (the least recently used idle ones go first)."""

Watcher = Callable[[], None]
"""Told that a table's present seats changed; called from any thread, it must not block."""


class Seat:
    """One seat's connections open in this process and when it was last seen."""

    __slots__ = ("open", "seen")

    def __init__(self) -> None:
        self.open = 0
        self.seen: datetime | None = None

    def present(self, now: datetime, seconds: float) -> bool:
        """Whether the seat is present at ``now``."""
        if self.open > 0:
            return True
        return self.seen is not None and (now - self.seen).total_seconds() < seconds

    def gone(self, seconds: float) -> datetime | None:
        """When the seat stops (or stopped) being present, if nothing more is heard of it."""
        return None if self.seen is None else self.seen + timedelta(seconds=seconds)


class Table:
    """A table this process follows: its seats' presence, its watchers and its next check."""

    __slots__ = ("absence", "due", "seats", "shown", "since", "watchers")

    def __init__(self) -> None:
        self.since: datetime | None = None
        """When this process began to follow the table (None: only watched so far)."""
        self.absence = False
        """Whether the game has an absence rule (the absence sweep looks at it)."""
        self.seats: dict[int, Seat] = {}
        self.shown: frozenset[int] = frozenset()
        """The present seats its watchers were last told of."""
        self.watchers: set[Watcher] = set()
        self.due: datetime | None = None
        """When a seat's presence runs out next (scheduled in ``Presence._checks``)."""

    def seat(self, seat: int) -> Seat:
        return self.seats.setdefault(seat, Seat())

    def busy(self) -> bool:
        """Whether a connection is open or a socket watches (it is never forgotten then)."""
        return bool(self.watchers) or any(seat.open for seat in self.seats.values())


class Attendance(NamedTuple):
    """A table's presence at one moment: since when this process follows it, its present
    seats, and when each absent seat that was seen stopped being present."""

    since: datetime
    present: frozenset[int]
    gone: dict[int, datetime]


class Presence:
    """Each followed table's seats present now (see the module docstring)."""

    def __init__(
        self, now: Clock, seconds: float = PRESENCE_SECONDS, kept: int = TABLES_KEPT
    ) -> None:
        self.now, self.seconds, self.kept = now, seconds, kept
        self._tables: OrderedDict[str, Table] = OrderedDict()
        self._checks: list[tuple[datetime, str]] = []  # (when, game id): a heap
        self._lock = threading.Lock()

    def seen(self, game: Game, role: Viewer) -> None:
        """A request of ``game`` made as ``role``: a seat is seen now; the referee's makes
        this process follow the table (``Game.role``'s ``seen``)."""
        now = self.now()
        with self._lock:
            table = self._followed(game, now)
            if isinstance(role, int):
                table.seat(role).seen = now
                self._changed(game.id, table, now)

    def attend(self, game_id: str, seat: int) -> Callable[[], None]:
        """A socket or a stream of ``seat`` opened (once its caller was found to be the seat,
        so ``seen``): the seat is present until the returned function is called (once, as the
        connection closes) and ``seconds`` after."""
        now = self.now()
        with self._lock:
            table = self._table(game_id)
            table.since = table.since or now
            held = table.seat(seat)
            held.open += 1
            self._changed(game_id, table, now)

        def leave() -> None:
            now = self.now()
            with self._lock:
                held.open -= 1
                held.seen = now
                self._changed(game_id, table, now)

        return leave

    def watch(self, game_id: str, watcher: Watcher) -> Callable[[], None]:
        """Tell ``watcher`` of each change of the table's present seats, until the returned
        function is called."""
        with self._lock:
            table = self._table(game_id)
            table.watchers.add(watcher)

        def unwatch() -> None:
            with self._lock:
                table.watchers.discard(watcher)

        return unwatch

    def present(self, game_id: str) -> frozenset[int]:
        """The seats of the table present now (none for a table not followed)."""
        seen = self.attendance(game_id)
        return frozenset() if seen is None else seen.present

    def attendance(self, game_id: str) -> Attendance | None:
        """The table's presence now, or None when this process does not follow it."""
        now = self.now()
        with self._lock:
            table = self._tables.get(game_id)
            if table is None or table.since is None:
                return None
            present, gone = frozenset[int](), {}
            for number, seat in table.seats.items():
                if seat.present(now, self.seconds):
                    present |= {number}
                elif (moment := seat.gone(self.seconds)) is not None:
                    gone[number] = moment
            return Attendance(table.since, present, gone)

    def absent_tables(self) -> list[str]:
        """The followed tables whose game has an absence rule."""
        with self._lock:
            return [game_id for game_id, table in self._tables.items() if table.absence]

    def settled(self, game_id: str) -> None:
        """The game has finished: the absence sweep need not look at it again."""
        with self._lock:
            if (table := self._tables.get(game_id)) is not None:
                table.absence = False

    def sweep(self) -> None:
        """Tell the watchers of the tables whose seats' presence has run out by now."""
        now = self.now()
        with self._lock:
            while self._checks and self._checks[0][0] <= now:
                when, game_id = heapq.heappop(self._checks)
                table = self._tables.get(game_id)
                if table is not None and table.due == when:
                    table.due = None
                    self._changed(game_id, table, now)

    def _followed(self, game: Game, now: datetime) -> Table:
        """``game``'s table, followed from ``now`` if it was not (under ``_lock``)."""
        table = self._table(game.id)
        if table.since is None:
            table.since = now
        if game.created.absent is not None and not game.finished:
            table.absence = True
        return table

    def _table(self, game_id: str) -> Table:
        """The table kept for ``game_id``, as the most recently used one (under ``_lock``)."""
        table = self._tables.get(game_id)
        if table is None:
            table = self._tables[game_id] = Table()
            self._forget()
        self._tables.move_to_end(game_id)
        return table

    def _forget(self) -> None:
        """Forget the least recently used idle tables past ``kept``."""
        for _ in range(len(self._tables)):
            if len(self._tables) <= self.kept:
                return
            game_id, table = next(iter(self._tables.items()))
            if table.busy():
                self._tables.move_to_end(game_id)
            else:
                del self._tables[game_id]

    def _changed(self, game_id: str, table: Table, now: datetime) -> None:
        """Tell the table's watchers if its present seats changed, and schedule the check of
        the next seat whose presence runs out (under ``_lock``)."""
        present = frozenset(n for n, seat in table.seats.items() if seat.present(now, self.seconds))
        if present != table.shown:
            table.shown = present
            for watcher in list(table.watchers):
                watcher()
        ends = [
            moment
            for n in present
            if not table.seats[n].open and (moment := table.seats[n].gone(self.seconds))
        ]
        if ends and table.due is None:
            table.due = min(ends)
            heapq.heappush(self._checks, (table.due, game_id))

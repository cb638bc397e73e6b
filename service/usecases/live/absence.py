"""Absence: a seat that must act and has been away too long is timed out as its table says.

A game created with ``absent: {"after", "then"}`` times out a seat that must act (a seat a
bot plays never) once it has not been present (``service.usecases.live.presence``) for
``after`` seconds, counted from the latest of: the game's latest event, the moment the seat
stopped being present, and the moment this process began to follow the table. The time out
goes through the referee as a clock's does (``Timeout`` with ``absent``): ``TimeExpired`` and
its consequence (``then``: the seat handed to a bot, a forfeit or the turn passed), whose
reason says the seat was absent. The clocks' sweeper applies it (``enforce_due``), and the
state view shows each absent seat's deadline (``absent_until``: ``at_table``).

Presence is per process, so absence is too: a process applies it only to the tables it
follows, as it sees their seats.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from eventstore import StoredEvent
from service.clock import Clock
from service.core.clocks import absence_of, clocked, moment, parse_at
from service.core.commands import Timeout
from service.core.luck import Seeded
from service.core.referee import judge
from service.core.refusal import Refusal
from service.core.seating import level_version, timeout_bot
from service.usecases.games.repository import Game, Judged, Repository
from service.usecases.live.presence import Presence

MOVED_KEPT = 10_000
"""How many games' latest event times are kept (for games whose projection does not hold it)."""


class Absences:
    """The absence rule of the tables this process follows: their deadlines, and the time
    outs when they come."""

    def __init__(self, presence: Presence, games: Repository, now: Clock) -> None:
        self.presence, self.games, self.now = presence, games, now
        self._moved: dict[str, tuple[int, datetime]] = {}  # game id: (version, its time)

    def at_table(self, game: Game, now: datetime) -> list[tuple[bool, str | None]]:
        """Each seat's presence and, for an absent seat that must act in a game with an
        absence rule, when it is timed out (``views.Attendance``)."""
        present = self.presence.present(game.id)
        due = {seat: shown(at) for seat, at in self.deadlines(game).items()}
        return [(seat in present, due.get(seat)) for seat in range(len(game.created.seats))]

    def deadlines(self, game: Game) -> dict[int, datetime]:
        """When each seat that must act and is away is timed out (``game`` held, locked):
        none in a game without an absence rule, finished, or not followed here."""
        absence = absence_of(game.created)
        seen = self.presence.attendance(game.id) if absence is not None else None
        if absence is None or seen is None or game.finished:
            return {}
        moved = self.moved_at(game)
        due: dict[int, datetime] = {}
        for pending in clocked(game.replay):
            seat = pending.seat
            if seat not in seen.present and seat not in due:
                start = max(moved, seen.since, seen.gone.get(seat, seen.since))
                due[seat] = moment(start, absence.after)
        return due

    def moved_at(self, game: Game) -> datetime:
        """When the game's latest event was stored (``game`` held, locked)."""
        recent = game.recent
        if recent and recent[-1].version == game.version:
            return parse_at(recent[-1].at)
        kept = self._moved.get(game.id)
        if kept is not None and kept[0] == game.version:
            return kept[1]
        last = self.games.store.read(game.id, after=game.version - 1)
        at = parse_at(last[-1].at) if last else self.now()
        if len(self._moved) >= MOVED_KEPT:
            self._moved.clear()
        self._moved[game.id] = (game.version, at)
        return at

    def enforce_due(self) -> int:
        """Time out every seat of the followed tables whose absence has lasted its time (the
        presence of seats whose time since they were last seen ran out is told first); how
        many were."""
        self.presence.sweep()
        now, timed_out = self.now(), 0
        for game_id in self.presence.absent_tables():
            try:
                timed_out += bool(self.enforce(game_id, now))
            except Refusal as refusal:  # another write came first, or the game is gone
                if refusal.slug not in ("version-conflict", "game-not-found"):
                    raise
        return timed_out

    def enforce(self, game_id: str, now: datetime) -> Sequence[StoredEvent]:
        """If a seat of ``game_id`` has been away too long: its time out, appended."""
        with self.games.game(game_id, fresh=False) as game:
            if game.finished:
                self.presence.settled(game_id)
            if not any(at <= now for at in self.deadlines(game).values()):
                return []
        with self.games.game(game_id) as game:
            judged = self.expiry(game, now)
        if judged is None:
            return []
        return self.games.commit(judged, None, "").events

    def expiry(self, game: Game, now: datetime) -> Judged | None:
        """The verdict of the first seat's absence that has lasted its time on ``game``
        (held, locked, caught up with its log), if one has."""
        absence = absence_of(game.created)
        due = sorted(seat for seat, at in self.deadlines(game).items() if at <= now)
        if absence is None or not due:
            return None
        timeout = Timeout(due[0], level_version(timeout_bot(absence.then)), absent=True)
        verdict = judge(game.replay, "server", timeout, Seeded(game.secrets.seed))
        return Judged(game, game.version, game.replay, verdict, now)


def shown(at: datetime) -> str:
    """A deadline as the view shows it (UTC, ``Z``)."""
    return at.isoformat().replace("+00:00", "Z")

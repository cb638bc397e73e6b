"""The tournaments' stream repository: load, lock, fold, append (through the one writer).

A tournament is one event stream in the games' store, folded by the domain's pure reducer
(``domain.tournament``); its token hashes are the stream's private record. A write loads
the tournament, decides its events on the state it folded, and commits them at the version
it loaded (``Writer.commit``, with anything that must be stored with them: a round's new
games); ``retried`` judges it again when another process wrote meanwhile. In this process one
writer at a time holds a tournament's lock; locks exist only for tournaments that exist and
only while someone holds or waits for one, so unknown ids cost no memory.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

import msgspec

from domain.tournament.events import TournamentEvent, event_data, parse_event
from domain.tournament.state import Tournament, apply, fold
from eventstore import Appending, EventStore, NewEvent
from service.core.actor import GameCaller, Player
from service.core.refusal import refuse
from service.usecases import tokens
from service.usecases.games.summaries import tournament_summary
from service.usecases.tokens import Keyed
from service.usecases.writer import Conflict, Writer

T = TypeVar("T")
DIRECTOR = "director"
WRITE_ATTEMPTS = 5  # tries at a write while another process appends too


class Loaded(msgspec.Struct, frozen=True):
    """A tournament as its stream leaves it: the state, its version, its token hashes."""

    id: str
    state: Tournament
    version: int
    director: str
    players: tuple[str, ...]

    def role(self, token: GameCaller) -> str | int | None:
        """``director``, a player's index, or None without a token; a wrong token is 401. A
        registered player (her key checked) is her entry's index (403 when she has none)."""
        if isinstance(token, Player):
            if token.handle not in self.state.handles:
                why = f"`{token.handle}` is no player of tournament {self.id}"
                raise refuse("forbidden", why)
            return self.state.players.index(token.handle)
        if token is None:
            return None
        role = tokens.identify(token, self.director, list(self.players))
        if role is None:
            raise refuse("unauthorized", f"the token is not valid for tournament {self.id}")
        return DIRECTOR if role == "referee" else role


class Locks:
    """Locks by id, each kept only while held or waited for (so the table stays as small as
    the number of writers at once)."""

    def __init__(self) -> None:
        self._held: dict[str, tuple[threading.RLock, int]] = {}
        self._guard = threading.Lock()

    @contextmanager
    def locked(self, key: str) -> Iterator[None]:
        with self._guard:
            lock, users = self._held.get(key, (threading.RLock(), 0))
            self._held[key] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._held[key]
                if users == 1:
                    del self._held[key]
                else:
                    self._held[key] = (lock, users - 1)

    def __len__(self) -> int:
        with self._guard:
            return len(self._held)


class TournamentLog:
    """Tournaments over one store and its writer."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self.store: EventStore = writer.store
        self.locks = Locks()

    def load(self, tournament_id: str) -> Loaded:
        """The tournament folded from its stream; 404 when there is none."""
        events = self.store.read(tournament_id)
        if not events or events[0].type != "TournamentCreated":
            raise refuse("tournament-not-found", f"no tournament with id {tournament_id!r}")
        state = fold(parse_event(e.type, e.data) for e in events)
        private: dict[str, Any] = self.store.private(tournament_id) or {}
        return Loaded(
            tournament_id,
            state,
            events[-1].version,
            private.get("director", ""),
            tuple(private.get("players", ())),
        )

    @contextmanager
    def locked(self, tournament_id: str) -> Iterator[Loaded]:
        """The tournament loaded under its lock (one writer at a time in this process; other
        processes: the version check). An unknown id is a 404 before any lock is made."""
        self.load(tournament_id)
        with self.locks.locked(tournament_id):
            yield self.load(tournament_id)

    def retried(self, tournament_id: str, write: Callable[[Loaded], T]) -> T:
        """``write`` on the tournament loaded under its lock, again on a fresh load when
        another process wrote between (a 409 once it kept changing)."""
        for _ in range(WRITE_ATTEMPTS):
            with suppress(Conflict), self.locked(tournament_id) as loaded:
                return write(loaded)
        raise refuse("version-conflict", f"tournament {tournament_id} kept changing; try again")

    def commit(
        self,
        loaded: Loaded,
        events: Sequence[TournamentEvent],
        by: int | str,
        with_them: Sequence[Appending] = (),
        key: Keyed | None = None,
    ) -> Tournament:
        """Append ``events`` to the tournament at the version it was loaded at, with its
        summary after them (so the listing follows every change of status), the
        Idempotency-Key ``key`` and, in the same transaction, the appends ``with_them``; the
        state they leave."""
        after = loaded.state
        for event in events:
            after = apply(after, event)
        own = appending(loaded.id, events, by, loaded.version, tournament_summary(after))
        own = tokens.carrying(own, key)
        self.writer.commit([*with_them, own], "tournament")
        return after


def appending(
    tournament_id: str,
    events: Sequence[TournamentEvent],
    by: int | str,
    version: int,
    summary: Any,
    meta: dict[str, Any] | None = None,
    private: dict[str, Any] | None = None,
) -> Appending:
    """The append of tournament events at ``version``."""
    stored = [NewEvent(type(e).__name__, event_data(e), by) for e in events]
    return Appending(tournament_id, stored, version, meta=meta, private=private, summary=summary)

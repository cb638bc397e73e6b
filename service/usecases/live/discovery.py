"""News of the games that come to name a player, for the feeds open in this process.

A feed follows the games it knows of through the store's announcements of their streams; a
game new to it (created, a seat taken, a rematch offered) is news of a stream it has not
subscribed to. Every such change writes the game's summary, so ``Discovery`` wakes the feeds
of the players a written summary names: at once for this process's appends (the writer's
follower, ``follow``, reads the summary the append carries), and for the other processes'
within ``SWEEP_SECONDS`` (``sweep``, which the app runs on a sweeper's thread, reads the
summaries written since its last look: one read for every feed of the process).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from domain.players.handles import player_id
from eventstore import Appending, EventStore
from service.usecases.games.summaries import TOURNAMENT
from service.usecases.live.named import NamedGames, named_in

SWEEP_SECONDS = 0.5
PAGE = 500
Wake = Callable[[], None]


class Discovery:
    """The wake-ups of this process's feeds, by player."""

    def __init__(self, store: EventStore, named: NamedGames) -> None:
        self.store, self.named = store, named
        self.watchers: dict[str, dict[object, Wake]] = {}
        self.lock = threading.Lock()
        self.looked: int | None = None
        """The position of the last summary ``sweep`` looked at (None while nobody watches)."""

    def watch(self, handle: str, wake: Wake) -> Callable[[], None]:
        """Call ``wake`` (from another thread, quickly) when a summary naming the player is
        written; return the function that ends the watch. It reads the store when it is the
        process's first watch: call it off the event loop."""
        key, token = player_id(handle), object()
        with self.lock:
            self.watchers.setdefault(key, {})[token] = wake
            first = self.looked is None
        if first:
            position = self.named.position()
            with self.lock:
                if self.looked is None:
                    self.looked = position

        def unwatch() -> None:
            with self.lock:
                waiting = self.watchers.get(key, {})
                waiting.pop(token, None)
                if not waiting:
                    self.watchers.pop(key, None)

        return unwatch

    def follow(self, append: Appending) -> Callable[[], object] | None:
        """The writer's follower: the feeds of the players an appended summary names."""
        if append.summary is None or append.summary.kind == TOURNAMENT or not self.watchers:
            return None  # a tournament's summary names its players otherwise: its tables do
        named = named_in(append.summary.document)
        return lambda: self.wake(named)

    def wake(self, handles: set[str]) -> None:
        """Wake the feeds of ``handles``."""
        with self.lock:
            waiting = [w for h in handles for w in self.watchers.get(player_id(h), {}).values()]
        for wake in waiting:
            wake()

    def sweep(self) -> None:
        """Wake the feeds of the players named by the summaries written since the last look
        (by any process); nothing while nobody watches."""
        with self.lock:
            if not self.watchers:
                self.looked = None
            looked = self.looked
        while looked is not None:
            page = self.store.changes(looked, PAGE, other_than=TOURNAMENT)
            if not page:
                return
            named = set[str]().union(*(named_in(change.row.summary.document) for change in page))
            self.wake(named)
            looked = page[-1].position
            with self.lock:
                if self.looked is not None:
                    self.looked = max(self.looked, looked)
            if len(page) < PAGE:
                return

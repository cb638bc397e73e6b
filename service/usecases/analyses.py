"""A game's analysis (``analysis.game``) as a read: who may ask, where it is computed, what is
kept.

Everyone may read a finished game's analysis; while a game runs only the referee may, up to the
current version (it is computed from every hand). A spectator of a delayed game reads it once
the game is finished as they see it. The work runs on a pool of ``workers`` threads, never on
the event loop: the first request for a game at a version starts it and is told its progress,
later ones get the same progress until the result is ready, which is kept (``KEPT`` results, the
least recently used forgotten first). At most ``workers`` analyses run at once and ``queue``
wait; a request that would start one more is refused (429).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import msgspec

from analysis.game import Analysis, analyse
from domain.events import parse_event
from service.clock import Clock
from service.core.refusal import refuse
from service.usecases.queries import check_may_see_all
from service.usecases.repository import Repository
from service.usecases.views import sight

KEPT = 256
QUEUE_PER_WORKER = 4

Key = tuple[str, int]


class Progress(msgspec.Struct, frozen=True):
    """An analysis under way: versions done of ``total``."""

    game_id: str
    version: int
    done: int
    total: int
    status: str = "running"


class Analyses:
    """The analyses of one process: those running and those kept."""

    def __init__(self, games: Repository, now: Clock, workers: int = 1) -> None:
        self.games, self.now = games, now
        self.limit = workers * (1 + QUEUE_PER_WORKER)
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="analysis")
        self.lock = threading.Lock()
        self.kept: OrderedDict[Key, Analysis] = OrderedDict()
        self.running: dict[Key, Progress] = {}

    def read(self, game_id: str, token: str | None) -> Analysis | Progress:
        """The analysis of a game up to the last version the caller may see, or its progress
        (starting it if needed); 403 for anyone but the referee while the game runs."""
        with self.games.game(game_id) as game:
            seen = sight(game, game.role(token), self.now())
            check_may_see_all(seen)
        key = (game_id, seen.version)
        with self.lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
            if key in self.running:
                return self.running[key]
            if len(self.running) >= self.limit:
                raise refuse(
                    "rate-limited",
                    f"{len(self.running)} analyses are under way; ask again in a few seconds",
                    retry_after=5,
                )
            started = self.running[key] = Progress(game_id, seen.version, 0, seen.version)
        self.pool.submit(self.compute, key)
        return started

    def compute(self, key: Key) -> Analysis:
        """Analyse a game up to a version (on a worker thread) and keep the result."""
        game_id, version = key
        log = [
            (e.version, parse_event(e.type, e.data))
            for e in self.games.store.read(game_id, until=version)
        ]

        def tell(done: int) -> None:
            with self.lock:
                self.running[key] = Progress(game_id, version, done, version)

        try:
            result = analyse(log, seed=game_id, progress=tell)
        finally:
            with self.lock:
                self.running.pop(key, None)
        with self.lock:
            self.kept[key] = result
            while len(self.kept) > KEPT:
                self.kept.popitem(last=False)
        return result

    def computed(self, game_id: str, token: str | None) -> Analysis:
        """The analysis computed in this thread (the command line, tests)."""
        with self.games.game(game_id) as game:
            seen = sight(game, game.role(token), self.now())
            check_may_see_all(seen)
        return self.compute((game_id, seen.version))

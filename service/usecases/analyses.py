"""A game's analysis (``analysis.game``) as a read: who may ask, where it is computed, what is
kept.

Everyone may read a finished game's analysis; while a game runs only the referee may, up to the
current version (it is computed from every hand). A spectator of a delayed game reads it once
the game is finished as they see it. The work runs on a pool of ``workers`` threads, never on
the event loop: the first request for a game at a version starts it and is told its progress,
later ones get the same progress until the result is ready, which is kept in memory (``KEPT``
results, the least recently used forgotten first). A finished game's analysis is also kept in
the store beside its log (``analysis_store``), written once and read from there afterwards, by
this process after a restart and by every other process on the database. At most ``workers``
analyses run at once and ``QUEUE_PER_WORKER`` per worker wait; a request that would start one
more is refused (429, with Retry-After).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import msgspec

from analysis.game import analyse
from domain.events import parse_event
from service.clock import Clock
from service.core.refusal import refuse
from service.usecases import analysis_store
from service.usecases.analysis_store import GameAnalysis
from service.usecases.queries import check_may_see_all
from service.usecases.repository import Repository
from service.usecases.views import sight

KEPT = 256
QUEUE_PER_WORKER = 4

Key = tuple[str, int, bool]
"""A game, the version analysed, and whether the game is finished there (kept in the store)."""


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
        self.kept: OrderedDict[Key, GameAnalysis] = OrderedDict()
        self.running: dict[Key, Progress] = {}

    def read(self, game_id: str, token: str | None) -> GameAnalysis | Progress:
        """The analysis of a game up to the last version the caller may see, or its progress
        (starting it if needed); 403 for anyone but the referee while the game runs."""
        with self.games.game(game_id) as game:
            seen = sight(game, game.role(token), self.now())
            check_may_see_all(seen)
        key = (game_id, seen.version, seen.finished)
        with self.lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
        found = analysis_store.stored(self.games.store, game_id, seen.version)
        if found is not None and seen.finished:
            return self.remember(key, found)
        with self.lock:
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

    def compute(self, key: Key) -> GameAnalysis:
        """Analyse a game up to a version (on a worker thread) and keep the result (in the
        store too when the game is finished there)."""
        game_id, version, finished = key
        log = [
            (e.version, parse_event(e.type, e.data))
            for e in self.games.store.read(game_id, until=version)
        ]

        def tell(done: int) -> None:
            with self.lock:
                self.running[key] = Progress(game_id, version, done, version)

        try:
            result = analysis_store.wire(
                game_id, version, analyse(log, seed=game_id, progress=tell)
            )
        finally:
            with self.lock:
                self.running.pop(key, None)
        if finished:
            analysis_store.keep(self.games.store, game_id, version, result)
        return self.remember(key, result)

    def remember(self, key: Key, result: GameAnalysis) -> GameAnalysis:
        """Keep an analysis in memory (forgetting the least recently used beyond ``KEPT``)."""
        with self.lock:
            self.kept[key] = result
            self.kept.move_to_end(key)
            while len(self.kept) > KEPT:
                self.kept.popitem(last=False)
        return result

    def computed(self, game_id: str) -> GameAnalysis:
        """The analysis computed afresh in this thread as the referee sees the game (the
        command line), kept in the store (replacing the one there) when it is finished."""
        with self.games.game(game_id) as game:
            seen = sight(game, "referee", self.now())
        return self.compute((game_id, seen.version, seen.finished))

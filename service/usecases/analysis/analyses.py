"""A game's analysis (``analysis.game``) as a read: who may ask, where it is computed, what is
kept, and how the work is shared between callers.

Everyone may read a finished game's analysis; while a game runs only the referee may, up to the
current version (it is computed from every hand). A spectator of a delayed game reads it once
the game is finished as they see it. The work runs on a pool of ``workers`` threads, never on
the event loop: the first request for a game starts it and is told its progress, later ones
get the same progress until the result is ready, which is kept in memory (``KEPT`` results,
the least recently used forgotten first). A finished game's analysis is also kept in the store
beside its log (``store``), written once and read from there afterwards, by this
process after a restart and by every other process on the database. A kept analysis is served
at once, without a share or a slot.

A running game's analysis goes on from the last version analysed (``PARKED`` games' last
analyses are kept), never from the start again: the result is the same
(``analysis.game.Analyser``). Its first turn runs in the request, so a referee asking again
after a move or two gets the analysis at once.

Sharing: a game has one analysis under way at a time; a running game's referee asking again
at a later version moves its end on, so asking at every move costs one analysis, not one a
move. Each caller (the client address) may have ``per_caller`` analyses under way, and at most
``workers`` analyses run at once and ``QUEUE_PER_WORKER`` per worker wait, in all; a request
that would start one more is refused (429, with Retry-After). The analyses under way take
turns on the workers, ``SLICE`` seconds each, so a short analysis is never stuck behind a long
one.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import ThreadPoolExecutor

import msgspec
import structlog

from analysis.game import Analyser
from domain.events import Event, GameCreated, parse_event
from service.clock import Clock
from service.core.actor import GameCaller
from service.core.refusal import Refusal, refuse
from service.usecases.analysis import store
from service.usecases.analysis.store import GameAnalysis
from service.usecases.budgets import SharedSlots
from service.usecases.games.queries import check_may_see_all
from service.usecases.games.repository import Repository
from service.usecases.games.views import sight

KEPT = 256
PARKED = 16
QUEUE_PER_WORKER = 4
SLICE = 0.05
"""Seconds of work an analysis does on a worker before the next one's turn."""
RETRY_SECONDS = 5

Key = tuple[str, int, bool]
"""A game, the version analysed, and whether the game is finished there (kept in the store)."""


class Progress(msgspec.Struct, frozen=True):
    """An analysis under way: versions done of ``total``."""

    game_id: str
    version: int
    done: int
    total: int
    status: str = "running"


class Job:
    """A game's analysis under way: who started it, the version it goes up to (moved on while
    the game runs) and whether the game is finished there, the analyser (None until the log's
    creation is read) and the events read but not analysed yet."""

    def __init__(
        self, game_id: str, caller: str, version: int, finished: bool, analyser: Analyser | None
    ) -> None:
        self.game_id, self.caller = game_id, caller
        self.version, self.finished = version, finished
        self.analyser = analyser
        self.done = self.read_to = analyser.version if analyser is not None else 0
        self.pending: deque[tuple[int, Event]] = deque()

    def progress(self) -> Progress:
        """How far it has got."""
        return Progress(self.game_id, self.version, self.done, self.version)


class Analyses:
    """The analyses of one process: those under way and those kept."""

    def __init__(
        self,
        games: Repository,
        now: Clock,
        workers: int = 1,
        per_caller: int = 1,
        shared: SharedSlots | None = None,
    ) -> None:
        self.games, self.now = games, now
        self.limit = workers * (1 + QUEUE_PER_WORKER)
        self.per_caller = per_caller
        self.shared = shared  # the callers' analyses counted across processes, if several
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="analysis")
        self.lock = threading.Lock()
        self.kept: OrderedDict[Key, GameAnalysis] = OrderedDict()
        self.jobs: dict[str, Job] = {}
        self.parked: OrderedDict[str, Analyser] = OrderedDict()

    def read(self, game_id: str, token: GameCaller, caller: str) -> GameAnalysis | Progress:
        """The analysis of a game up to the last version the caller may see, or its progress
        (starting it if needed, on ``caller``'s share); 403 for anyone but the referee while
        the game runs."""
        with self.games.game(game_id) as game:
            seen = sight(game, game.role(token), self.now())
            check_may_see_all(seen)
        key = (game_id, seen.version, seen.finished)
        with self.lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
        found = store.stored(self.games.store, game_id, seen.version)
        if found is not None and seen.finished:
            return self.remember(key, found)
        with self.lock:
            joined = self.join(key, caller)
        if not isinstance(joined, Job):
            return joined
        if joined.analyser is not None:  # from a game's last analysis: its first turn here
            try:
                reached = self.advance(joined, SLICE)
                done = None if reached is None else self.finish(joined, reached)
            except Exception:
                with self.lock:
                    self.jobs.pop(game_id, None)
                self.ended(joined)
                raise
            if done is not None:
                return done
        self.pool.submit(self.run, joined)
        return joined.progress()

    def join(self, key: Key, caller: str) -> GameAnalysis | Progress | Job:
        """The analysis if it was kept meanwhile, the progress of the game's analysis under
        way, moved on to ``key``'s version if it is behind it, or a new one on ``caller``'s
        share, to start (under the lock)."""
        game_id, version, finished = key
        if key in self.kept:  # kept since the caller looked
            return self.kept[key]
        job = self.jobs.get(game_id)
        if job is not None:
            if not job.finished and job.version <= version:
                job.version, job.finished = version, finished
            if (job.version, job.finished) == (version, finished):
                return job.progress()
            return Progress(game_id, version, 0, version)  # after the one under way
        mine = sum(job.caller == caller for job in self.jobs.values())
        if mine >= self.per_caller:
            raise self.over_share(f"{mine} analyses")
        if len(self.jobs) >= self.limit:
            raise refuse(
                "rate-limited",
                f"{len(self.jobs)} analyses are under way; ask again in a few seconds",
                retry_after=RETRY_SECONDS,
            )
        if self.shared is not None and self.shared.acquire(caller, game_id) is False:
            raise self.over_share("as many analyses as it may have, on this server and others,")
        parked = self.parked.pop(game_id, None)
        if parked is not None and parked.version > version:
            parked = None  # a spectator's earlier end: from the start
        job = self.jobs[game_id] = Job(game_id, caller, version, finished, parked)
        return job

    def over_share(self, held: str) -> Refusal:
        """The 429 of a caller that has ``held`` under way, its share."""
        return refuse(
            "rate-limited",
            f"this client has {held} under way, the most it may have at once; "
            f"ask again once it is done (in a few seconds)",
            retry_after=RETRY_SECONDS,
            limit=self.per_caller,
            setting="TABULA_ANALYSES_PER_CLIENT",
        )

    def ended(self, job: Job) -> None:
        """The job is no longer under way: its caller's shared slot goes back (not under the
        lock)."""
        if self.shared is not None:
            self.shared.release(job.caller, job.game_id)

    def run(self, job: Job) -> None:
        """A turn of an analysis on a worker thread: ``SLICE`` seconds of work, then it waits
        for its next turn behind the others, until it reaches its version and is kept."""
        try:
            while (reached := self.advance(job, SLICE)) is not None:
                if self.finish(job, reached) is not None:
                    return
            self.pool.submit(self.run, job)
        except Exception:
            with self.lock:
                self.jobs.pop(job.game_id, None)
            self.ended(job)
            structlog.get_logger().exception("analysis failed", game_id=job.game_id)

    def advance(self, job: Job, seconds: float) -> int | None:
        """Analyse the job's events for about ``seconds``: the version it reached once it is at
        its end, or None when the time is up first."""
        began = time.monotonic()
        while True:
            end = job.version
            if not job.pending and job.read_to < end:
                read = self.games.store.read(job.game_id, after=job.read_to, until=end)
                job.pending.extend((e.version, parse_event(e.type, e.data)) for e in read)
                job.read_to = end
            if not job.pending:
                return end
            version, event = job.pending.popleft()
            if job.analyser is None:
                assert isinstance(event, GameCreated), "a game's log starts with GameCreated"
                job.analyser = Analyser(event, seed=job.game_id)
            else:
                job.analyser.push(version, event)
            job.done = version
            if time.monotonic() - began >= seconds:
                return None

    def finish(self, job: Job, version: int) -> GameAnalysis | None:
        """Keep the job's analysis at ``version`` and end it (in the store too when the game is
        finished there; a running game's analyser is kept to go on from); None when the job
        was moved on meanwhile."""
        analyser = job.analyser
        assert analyser is not None
        result = store.wire(job.game_id, version, analyser.result())
        with self.lock:
            if job.version != version:
                return None
            finished = job.finished
            if self.jobs.get(job.game_id) is job:
                del self.jobs[job.game_id]
            self.keep_result((job.game_id, version, finished), result)
            if not finished:
                analyser.forget()
                self.parked[job.game_id] = analyser
                while len(self.parked) > PARKED:
                    self.parked.popitem(last=False)
        self.ended(job)
        if finished:
            store.keep(self.games.store, job.game_id, version, result)
        return result

    def remember(self, key: Key, result: GameAnalysis) -> GameAnalysis:
        """Keep an analysis in memory (forgetting the least recently used beyond ``KEPT``)."""
        with self.lock:
            return self.keep_result(key, result)

    def keep_result(self, key: Key, result: GameAnalysis) -> GameAnalysis:
        """``remember``, under the lock."""
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
        job = Job(game_id, "", seen.version, seen.finished, None)
        version = self.advance(job, math.inf)
        assert job.analyser is not None and version is not None
        result = store.wire(game_id, version, job.analyser.result())
        if seen.finished:
            store.keep(self.games.store, game_id, version, result)
        return self.remember((game_id, version, seen.finished), result)

"""The games' repository: each game's projection, loaded from its log and kept caught up.

Each game is one event stream; its secrets (token hashes, seed) are the stream's private
record. Games in use are kept in memory (least recently used forgotten past ``max_live``) and
caught up from the log on each use. Every ``SNAPSHOT_EVERY`` versions the fold is saved as a
snapshot beside the log; loading a game and ``replay_at`` start from the latest snapshot that
serves and fold only the events after it (an undo reaching before that snapshot makes them
fold from an earlier one).

A game's next deadline is stored with each append: when a seat's clock runs out, or while its
table gathers (``service.core.tables``) when its invitations or the table itself do.
"""

from __future__ import annotations

import asyncio
import hmac
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from itertools import islice
from typing import Any, NamedTuple

import anyio.to_thread
import msgspec
import structlog

from domain.events import Event, GameCreated, event_data, event_type, parse_event
from domain.model import Viewer
from domain.replay import SNAPSHOT_EVERY, MissingHistory, Replay, fold
from domain.ruleset import RuleSet
from eventstore import (
    Appending,
    AppendResult,
    NewEvent,
    StoredEvent,
    StoreUnavailable,
    iso_timestamp,
)
from service.core.actor import Actor, Player
from service.core.clocks import Clock, ClockState, acted_for, clocked, parse_at
from service.core.delay import Timeline, parse_delay
from service.core.referee import Batch, Verdict
from service.core.refusal import refuse
from service.core.tables import TABLE_TIMES, TableTimes
from service.core.tables import deadline as table_deadline
from service.usecases import tokens
from service.usecases.games import summaries
from service.usecases.writer import Writer

LATEST = 2**62
MAX_LIVE_GAMES = 10_000
RECENT = 16
"""How many of a game's latest stored events its projection keeps (``Game.recent``)."""


class Secrets(msgspec.Struct, frozen=True):
    """What the service keeps of a game that no event shows (older games also stored
    ``auto_chance`` and ``allow_undo`` here; they are in ``GameCreated`` now)."""

    referee: str
    seats: list[str]
    seed: str


Seen = Callable[["Game", Viewer], None]
"""Told of each caller a game finds to be one of its seats or its referee (``Game.role``):
the tables' presence (``service.usecases.live.presence``)."""


class Game:
    """One game's projection: its replay, secrets, clock and a lock serialising its writes."""

    def __init__(
        self, game_id: str, replay: Replay, secrets: Secrets, seen: Seen | None = None
    ) -> None:
        self.id = game_id
        self.secrets = secrets
        self.seen = seen
        self.lock = threading.RLock()
        self.replay = replay
        self.clock: ClockState | None = None
        self.known: dict[str, Viewer] = {}  # tokens identified already (only valid ones)
        self.timeline: Timeline | None = None
        """A game with a spectator delay: its events' times and moves."""
        self.delayed: Replay | None = None
        """The replay last made for its spectators (``Repository.behind``)."""
        self.born: datetime | None = None
        """When the game was created, for a table that gathered (its time runs from it)."""
        self.recent: deque[StoredEvent] = deque(maxlen=RECENT)
        """The latest stored events this process has seen, consecutive versions (so the
        live sockets of the game are sent its news without reading the log)."""
        self._made: tuple[int, dict[Any, Any]] = (0, {})

    def made(self) -> dict[Any, Any]:
        """What readers made of the game at its version, for the others reading it at that
        version (emptied once the game moves on)."""
        if self._made[0] != self.version:
            self._made = (self.version, {})
        return self._made[1]

    @property
    def created(self) -> GameCreated:
        return self.replay.created

    @property
    def rules(self) -> RuleSet[Any]:
        return self.replay.rules

    @property
    def version(self) -> int:
        return self.replay.version

    @property
    def finished(self) -> bool:
        return bool(self.replay.state.finished)

    def remember(self, events: Iterable[StoredEvent]) -> None:
        """Add stored events to ``recent``; a gap starts it again, so it never skips one."""
        recent = self.recent
        for stored in events:
            if recent and stored.version <= recent[-1].version:
                continue
            if recent and stored.version != recent[-1].version + 1:
                recent.clear()
            recent.append(stored)

    def held(self, after: int, until: int) -> list[StoredEvent] | None:
        """The stored events after version ``after`` up to ``until`` from ``recent``, or
        None when it does not hold them all."""
        recent = self.recent
        if not recent or recent[0].version > after + 1 or recent[-1].version < until:
            return None
        start = after + 1 - recent[0].version
        return list(islice(recent, start, start + until - after))

    def role(self, token: str | Player | None) -> Viewer:
        """Who a bearer token, or a registered player, is in this game: a player is the seat
        that belongs to them (refused with 403 when none does); a wrong token is refused. A
        seat or the referee found is ``seen``."""
        role = self._identified(token)
        if role is not None and self.seen is not None:
            self.seen(self, role)
        return role

    def _identified(self, token: str | Player | None) -> Viewer:
        """``role``'s answer: a player is the seat that belongs to them, or while the table
        gathers the seat kept for their invitation; a guest's token is the seat she joined
        (its digest is in her ``SeatTaken``) while she holds it."""
        if token is None:
            return None
        if isinstance(token, Player):
            seat = self.replay.seat_of(token.handle)
            if seat is None:
                raise refuse("forbidden", f"no seat of game {self.id} belongs to {token.handle}")
            return seat
        if token in self.known:  # a write asks three times: its rate limit, judging, reply
            return self.known[token]
        role = tokens.identify(token, self.secrets.referee, self.secrets.seats)
        if role is None and (role := self.guest(token)) is not None:
            return role  # not kept: she may leave the seat
        if role is None:
            raise refuse("unauthorized", f"the token is not valid for game {self.id}")
        self.known[token] = role  # at most the referee's and one per seat
        return role

    def guest(self, token: str) -> int | None:
        """The seat a guest took by joining with ``token`` (its digest in the seating), if
        she holds it now; only a seat given no token at the creation is a guest's."""
        table = self.replay.table
        if table is None:
            return None
        presented = tokens.token_hash(token)
        found = None
        for seat, digest in enumerate(table.guests):
            held = digest and not self.secrets.seats[seat]
            if held and hmac.compare_digest(presented, digest):
                found = seat
        return found


class Use:
    """One use of a game held in memory (``Repository.game``): locked from its ``with`` to
    the end of it (a class, not a generator: every write and reply takes a game twice)."""

    __slots__ = ("fresh", "game", "games")

    def __init__(self, games: Repository, game: Game, fresh: bool) -> None:
        self.games, self.game, self.fresh = games, game, fresh

    def __enter__(self) -> Game:
        self.games.take(self.game, self.fresh)
        return self.game

    def __exit__(self, *_: object) -> None:
        self.game.lock.release()


def note(game: Game, events: Iterable[StoredEvent]) -> None:
    """Add stored events to a delayed game's timeline."""
    if game.timeline is not None:
        for stored in events:
            game.timeline.add(stored.version, stored.type, parse_at(stored.at))


def to_domain(stored: StoredEvent) -> Event:
    """A stored event as a domain event."""
    return parse_event(stored.type, stored.data)


def new_events(batch: Sequence[tuple[Actor, Event]]) -> list[NewEvent]:
    """Domain events ready for the store."""
    return [NewEvent(event_type(e), event_data(e), by) for by, e in batch]


class Repository:
    """Games over one event store: load, cache, catch up, snapshot, append."""

    def __init__(
        self,
        writer: Writer,
        max_live: int = MAX_LIVE_GAMES,
        seen: Seen | None = None,
        tables: TableTimes = TABLE_TIMES,
    ) -> None:
        self.writer = writer
        self.store = writer.store
        self.max_live = max_live
        self.tables = tables  # how long a gathering table's invitations and time last
        self.seen = seen  # given to every game loaded (``Game.role``)
        self._games: OrderedDict[str, Game] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()
        self._background: set[asyncio.Task[None]] = set()  # snapshot saves not waited for

    def game(
        self, game_id: str, *, fresh: bool = True, keep: bool = True
    ) -> AbstractContextManager[Game]:
        """The game, locked for the duration of the ``with``: the one way to get a game.

        ``fresh``: caught up with its log (else as this process last saw it, at least its own
        writes: no read of the log when it is in memory). ``keep``: kept in memory (else a game
        not in memory is loaded for this use only, so going through every game for a listing
        neither grows memory nor pushes the games in play out of it)."""
        with self._lock:
            game = self._games.get(game_id)
            if game is not None:
                self._games.move_to_end(game_id)
        if game is None and not keep:
            return nullcontext(self._load(game_id))
        if game is None:
            loaded = self._load(game_id)
            with self._lock:
                game = self._games.setdefault(game_id, loaded)
                self._evict()
        return Use(self, game, fresh)

    def take(self, game: Game, fresh: bool) -> None:
        """Lock ``game`` for a use, caught up with its log first if ``fresh`` (``Use``)."""
        news = self.store.read(game.id, after=game.version) if fresh else None
        game.lock.acquire()
        if not news:
            return
        try:
            if news[0].version != game.version + 1:  # moved meanwhile: read again
                news = self.store.read(game.id, after=game.version)
            if news:
                self._catch_up(game, news)
        except BaseException:
            game.lock.release()
            raise

    def holds(self, game_id: str) -> bool:
        """Whether the game is in memory (so ``game(..., fresh=False)`` waits for nothing)."""
        with self._lock:
            return game_id in self._games

    def held(self, game_id: str) -> Game | None:
        """The game in memory, if it is, neither locked nor caught up: for a glance at its
        ``replay`` (immutable; a write replaces it whole), never to change it."""
        with self._lock:
            return self._games.get(game_id)

    def due(self, now: datetime) -> list[str]:
        """The games whose deadline (a clock running out) has come by ``now`` (another
        stream's deadline, the seeks', is its own sweep's)."""
        due = self.store.due(iso_timestamp(now))
        return [game_id for game_id, _ in due if not game_id.startswith(summaries.UNSUMMARISED)]

    def live(self) -> int:
        """How many games are held in memory."""
        with self._lock:
            return len(self._games)

    def _load(self, game_id: str) -> Game:
        """The game folded from its latest snapshot and the events after it."""
        private = self.store.private(game_id)
        if private is None or "seed" not in private:  # none, or a tournament's stream
            raise refuse("game-not-found", f"no game with id {game_id!r}")
        game = Game(game_id, self.fold(game_id), msgspec.convert(private, Secrets), self.seen)
        if game.replay.table is not None:
            game.born = parse_at(self.store.read(game_id, until=1)[0].at)
        if game.created.clock is not None:
            game.clock = self._clock_of(game)
        delay = parse_delay(game.created.spectator_delay)
        if delay is not None:
            game.timeline = Timeline(delay)
            note(game, self.store.read(game_id))
        return game

    def _evict(self) -> None:
        """Forget the least recently used games beyond ``max_live`` (under ``_lock``). A
        forgotten game is loaded again from its latest snapshot when next used (its clock is
        kept by the store's deadline); a request still holding it finishes on it, and the
        store's version check refuses a write it would make on stale state."""
        excess = len(self._games) - self.max_live
        if excess > 0:
            for game_id in list(islice(self._games, excess)):
                del self._games[game_id]

    def _catch_up(self, game: Game, events: Iterable[StoredEvent]) -> None:
        """Fold new events into a game; fold it again from the start if an undo needs to."""
        events = list(events)
        note(game, events)
        game.remember(events)
        try:
            for stored in events:
                event = to_domain(stored)
                game.replay.push(stored.version, event, stored.by)
                if game.clock is not None:
                    pending = clocked(game.replay)
                    game.clock.update(parse_at(stored.at), acted_for(stored.by, event), pending)
        except MissingHistory:
            game.replay = self.fold(game.id, from_start=True)

    def _clock_of(self, game: Game) -> ClockState:
        """A game's clocks, from every event's timestamp since the start."""
        assert game.created.clock is not None
        clock = ClockState(msgspec.convert(game.created.clock, Clock), len(game.created.seats))
        replay: Replay | None = None
        for stored in self.store.read(game.id):
            event = to_domain(stored)
            if replay is None:
                replay = Replay(game.created)
            else:
                replay.push(stored.version, event, stored.by)
            pending = clocked(replay)
            clock.update(parse_at(stored.at), acted_for(stored.by, event), pending)
        return clock

    def behind(self, game: Game, version: int) -> Replay:
        """The game (held under its lock) at ``version``, for its spectators: folded on from
        the replay last made for them when that is not past ``version`` (their version only
        grows, so this is usually the events since their last read), else from a snapshot."""
        if version == game.version:
            return game.replay
        held = game.delayed
        if held is not None and held.version == version:
            return held
        replay: Replay | None = None
        if held is not None and held.version < version:
            replay = Replay(held.created, held.top, held.version)  # frames are immutable
            replay.complete = held.complete
            try:
                for stored in self.store.read(game.id, after=held.version, until=version):
                    replay.push(stored.version, to_domain(stored), stored.by)
            except MissingHistory:
                replay = None
        game.delayed = replay if replay is not None else self.fold(game.id, version)
        return game.delayed

    def complete(self, game: Game) -> None:
        """Fold a game restored from a snapshot again from the start: undo needs every frame."""
        if not game.replay.complete:
            game.replay = self.fold(game.id, from_start=True)

    def replay_at(self, game_id: str, at: int) -> Replay:
        """The game folded up to version ``at``, from the nearest snapshot."""
        with self.game(game_id) as game:
            if not 1 <= at <= game.version:
                raise refuse(
                    "out-of-range",
                    f"at={at} is outside this game's versions 1..{game.version}",
                    parameter="at",
                )
        return self.fold(game_id, at)

    def fold(self, game_id: str, at: int | None = None, from_start: bool = False) -> Replay:
        """The game folded up to ``at`` (its end by default) from the latest snapshot that
        serves; the latest snapshot it folded past is saved."""
        replay, events = self._restore(game_id, 0 if from_start else (at or LATEST), at)
        start = replay.version
        try:
            for stored in events:
                replay.push(stored.version, to_domain(stored), stored.by)
        except MissingHistory:  # not expected: _restore starts before every undo's target
            return self.fold(game_id, at, from_start=True)
        if passed := [v for v in replay.snapshots if v > start]:
            try:
                self.store.save_snapshot(game_id, max(passed), frame_bytes(replay, max(passed)))
            except StoreUnavailable as fault:  # derived data: a read never fails for it
                structlog.get_logger().warning("snapshot not saved", fault=fault.kind)
        return replay

    def _restore(
        self, game_id: str, at_most: int, at: int | None
    ) -> tuple[Replay, list[StoredEvent]]:
        """The latest stored snapshot at or before ``at_most`` from which every undo up to
        ``at`` can be folded (each reverts to after the snapshot's frame), else the start;
        and the events after it."""
        first = self.store.read(game_id, until=1)
        if not first:
            raise refuse("game-not-found", f"no game with id {game_id!r}")
        created = fold([(1, to_domain(first[0]))]).created
        events: list[StoredEvent] = []
        while True:
            snapshot = self.store.load_snapshot(game_id, at_most) if at_most > 1 else None
            replay = (
                Replay(created) if snapshot is None else Replay.from_snapshot(created, *snapshot)
            )
            events = self.store.read(game_id, after=replay.version, until=at) + events
            at, reach = replay.version, earliest_revert(events)
            if reach is None or reach > replay.top.version:
                return replay, events
            at_most = reach - 1

    def commit(self, judged: Judged, key: str | None, fingerprint: str) -> AppendResult:
        """Store a judged verdict and adopt the game it leaves (see ``appending``)."""
        result = self.writer.commit([appending(judged, key, fingerprint, self.tables)])[0]
        game = judged.game
        with game.lock:
            self.adopt(game, judged.version, judged.verdict, result.events)
            due = snapshots_due(game.replay, result.events)
        self._save_due(game.id, due)
        return result

    async def commit_async(self, judged: Judged, key: str | None, fingerprint: str) -> AppendResult:
        """``commit`` awaited, the event loop going on while the append commits; the
        snapshots it makes due are saved in the background."""
        result = await self.writer.commit_async(appending(judged, key, fingerprint, self.tables))
        game = judged.game
        with game.lock:
            self.adopt(game, judged.version, judged.verdict, result.events)
            due = snapshots_due(game.replay, result.events)
        if due:
            self._save_later(game.id, due)
        return result

    def commit_new(self, games: Sequence[NewGame], now: datetime) -> list[AppendResult]:
        """Store new games' first events, all in one transaction (all or none); a timed
        game's clocks start ``now``. A game made with an Idempotency-Key is appended with it:
        its first creation's result comes back (replayed) when the key was used already."""
        return self.writer.commit([new_game(game, now, self.tables) for game in games])

    def adopt(
        self, game: Game, version: int, verdict: Verdict, stored: Sequence[StoredEvent]
    ) -> None:
        """Make the game the verdict left the game in memory, if nothing moved it since
        ``version`` (a reader may have caught up already); the clock counts the stored times."""
        if game.version != version or stored[-1].version != verdict.after.version:
            return
        if game.clock is None:
            note(game, stored)
            game.remember(stored)
            game.replay = verdict.after
            return
        self._catch_up(game, stored)

    def _save_later(self, game_id: str, due: list[tuple[int, bytes]]) -> None:
        """``_save_due`` on a worker thread, not waited for: snapshots are derived data, so the
        reply to a move does not wait for another commit; a failure is logged."""
        work = anyio.to_thread.run_sync(self._save_due, game_id, due)
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._saved)

    def _saved(self, task: asyncio.Task[None]) -> None:
        self._background.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            structlog.get_logger().warning("snapshot not saved", error=repr(error))

    def _save_due(self, game_id: str, due: list[tuple[int, bytes]]) -> None:
        """Store the snapshots (version, bytes) that appends made due."""
        for version, data in due:
            self.store.save_snapshot(game_id, version, data)


class Judged(NamedTuple):
    """A verdict on a game as it stood when judged: what ``Repository.commit`` stores."""

    game: Game
    version: int
    before: Replay
    verdict: Verdict
    at: datetime
    """When it was judged: a timed game's next deadline is counted from then."""


class NewGame(NamedTuple):
    """A game to create: its first events, the game they leave, its secrets, its meta."""

    game_id: str
    batch: Batch
    after: Replay
    secrets: Secrets
    meta: dict[str, Any]
    key: tokens.Keyed | None = None


def appending(
    judged: Judged, key: str | None, fingerprint: str, tables: TableTimes = TABLE_TIMES
) -> Appending:
    """The append of a judged verdict, at the version it was judged on, with the key and its
    fingerprint and the game's next deadline (a gathering table's as ``tables`` says); a
    verdict that finishes or reopens the game, or seats someone, writes its summary with it."""
    after = judged.verdict.after
    changed = summaries.changes_status(judged.before, after)
    return Appending(
        judged.game.id,
        new_events(judged.verdict.batch),
        judged.version,
        key,
        fingerprint=fingerprint,
        deadline=next_deadline(judged.game, judged.verdict, judged.at, tables),
        summary=summaries.summary_of(after) if changed else None,
    )


def new_game(game: NewGame, now: datetime, tables: TableTimes = TABLE_TIMES) -> Appending:
    """The append creating a game: its events, meta, secrets, first deadline (a gathering
    table's as ``tables`` says) and summary."""
    created = game.after.created
    listed = {"ruleset": created.ruleset, "seats": list(created.seats), "tags": created.tags}
    key, fingerprint = game.key or (None, "")
    return Appending(
        game.game_id,
        new_events(game.batch),
        0,
        idempotency_key=key,
        fingerprint=fingerprint,
        meta=listed | game.meta,
        private=msgspec.to_builtins(game.secrets),
        deadline=first_deadline(game.after, now, tables),
        summary=summaries.summary_of(game.after),
    )


def first_deadline(game: Replay, now: datetime, tables: TableTimes = TABLE_TIMES) -> str | None:
    """When the first seat of a new timed game runs out, its clocks starting ``now``; for a
    table that gathers, when its invitations or its time run out."""
    if game.gathering:
        moment = table_deadline(game, now, tables)
        return iso_timestamp(moment) if moment is not None else None
    if game.created.clock is None:
        return None
    clock = ClockState(msgspec.convert(game.created.clock, Clock), len(game.created.seats))
    clock.update(now, None, game.rules.to_act(game.state))
    moment = clock.deadline(now)
    return iso_timestamp(moment) if moment is not None else None


def next_deadline(
    game: Game, verdict: Verdict, now: datetime, tables: TableTimes = TABLE_TIMES
) -> str | None:
    """When the first pending seat of a timed game runs out once ``verdict`` is stored (as if
    stored ``now``), or while its table gathers, its invitations or its time; None for an
    untimed or finished game."""
    if verdict.after.gathering and game.born is not None:
        moment = table_deadline(verdict.after, game.born, tables)
        return iso_timestamp(moment) if moment is not None else None
    if game.clock is None:
        return None
    trial = game.clock.copy()
    pending = clocked(verdict.after)
    for by, event in verdict.batch:
        trial.update(now, acted_for(by, event), pending)
    trial.update(now, None, pending)
    moment = trial.deadline(now)
    return iso_timestamp(moment) if moment is not None else None


def earliest_revert(events: list[StoredEvent]) -> int | None:
    """The earliest version an undo among ``events`` reverts to, if any."""
    targets = [int(e.data["reverts"]) for e in events if e.type == "MoveUndone"]
    return min(targets, default=None)


def snapshots_due(replay: Replay, appended: Sequence[StoredEvent]) -> list[tuple[int, bytes]]:
    """The snapshots to save among events just appended: (version, bytes) every SNAPSHOT_EVERY."""
    return [
        (e.version, frame_bytes(replay, e.version))
        for e in appended
        if e.version % SNAPSHOT_EVERY == 0 and e.version in replay.snapshots
    ]


def frame_bytes(replay: Replay, version: int) -> bytes:
    """The snapshot of ``replay`` kept at ``version``, as bytes for the store."""
    return Replay(replay.created, replay.snapshots[version], version).snapshot_bytes()

"""Use cases: create a game, load it, play a move, read it at any version.

Each game is one event stream; its secrets (token hashes, seed) are the stream's private
record. Live games are kept as in-memory projections, caught up from the log on each use.
Every ``SNAPSHOT_EVERY`` versions the fold is saved as a snapshot beside the log; loading a
game and ``replay_at`` start from the latest snapshot that serves and fold only the events
after it (an undo reaching before that snapshot makes them fold from an earlier one).
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from itertools import islice
from typing import Any

import anyio.to_thread
import msgspec
import structlog

from domain.events import (
    Event,
    GameCreated,
    MoveUndone,
    SeedRevealed,
    event_data,
    event_type,
    parse_event,
)
from domain.model import CHANCE_KINDS, GameError, Move, Pending, Viewer
from domain.registry import RULESETS
from domain.replay import CHANCE_EVENTS, SNAPSHOT_EVERY, MissingHistory, Replay, fold
from domain.ruleset import RuleSet
from eventstore import (
    AppendResult,
    EventStore,
    NewEvent,
    StoredEvent,
    VersionConflict,
)
from service import chance, tokens
from service.clocks import Clock, ClockState, clock_fault, parse_at
from service.problems import ServiceError, problem
from service.referee import adjudication, check_own_undo, external_outcome, timeout_events
from service.wire import Adjudicate, Created, CreateGame, PlayMove, PostChance, Tokens, Undo

Actor = int | str
MAX_AUTOMATIC = 10_000
LATEST = 2**62
MAX_LIVE_GAMES = 10_000  # games kept in memory; the least recently used are forgotten
WRITE_ATTEMPTS = 8  # an async move checked again after another write came between


class Secrets(msgspec.Struct, frozen=True):
    """What the service keeps of a game that no event shows."""

    referee: str
    seats: list[str]
    seed: str
    auto_chance: bool = False
    allow_undo: bool = False


class Game:
    """One game's projection: its replay, secrets and a lock serialising its writes."""

    def __init__(self, game_id: str, replay: Replay, secrets: Secrets) -> None:
        self.id = game_id
        self.secrets = secrets
        self.lock = threading.RLock()
        self.replay = replay
        self.clock: ClockState | None = None

    @property
    def created(self) -> GameCreated:
        return self.replay.created

    @property
    def rules(self) -> RuleSet:
        return self.replay.rules

    @property
    def version(self) -> int:
        return self.replay.version

    @property
    def finished(self) -> bool:
        return bool(self.replay.state.finished)

    def role(self, token: str | None) -> Viewer:
        """Who a bearer token is in this game; a wrong token is refused."""
        if token is None:
            return None
        role = tokens.identify(token, self.secrets.referee, self.secrets.seats)
        if role is None:
            raise problem("unauthorized", f"the token is not valid for game {self.id}")
        return role


def to_domain(stored: StoredEvent) -> Event:
    """A stored event as a domain event."""
    return parse_event(stored.type, stored.data)


class Games:
    """The service's use cases over one event store."""

    def __init__(self, store: EventStore, max_live: int = MAX_LIVE_GAMES) -> None:
        self.store = store
        self.max_live = max_live
        self._games: OrderedDict[str, Game] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()
        self._background: set[asyncio.Task[None]] = set()  # snapshot saves not waited for

    def create(self, command: CreateGame) -> Created:
        """Validate and store a new game; the tokens are shown only in this reply."""
        rules, merged, auto_chance, allow_undo = self.check(command)
        seed = command.seed or chance.new_seed()
        names = tuple(s.name or f"Player {i + 1}" for i, s in enumerate(command.seats))
        clock = msgspec.to_builtins(command.clock) if command.clock else None
        created = GameCreated(
            rules.NAME, merged, names, command.chance, chance.commitment(seed), clock
        )
        referee, seats = tokens.new_token(), [tokens.new_token() for _ in names]
        secrets = Secrets(
            tokens.token_hash(referee),
            [tokens.token_hash(t) for t in seats],
            seed,
            auto_chance,
            allow_undo,
        )
        game_id = self.new_id()
        replay = Replay(created)
        batch = self._advance(game_id, replay, secrets, [])
        meta = {"ruleset": rules.NAME, "seats": list(names), "tags": command.tags}
        events = [("referee", created), *batch]
        self.store.append(
            game_id, new_events(events), 0, meta=meta, private=msgspec.to_builtins(secrets)
        )
        return Created(game_id, len(events), created.seed_commitment, Tokens(referee, seats))

    def check(self, command: CreateGame) -> tuple[RuleSet, dict[str, Any], bool, bool]:
        """The rule set, its options with defaults, auto chance and undo of a valid command."""
        rules = find(command.ruleset)
        options = dict(command.options)
        auto_chance = bool(options.pop("auto_chance", command.auto_chance))
        allow_undo = bool(options.pop("allow_undo", command.allow_undo))
        merged = {**rules.OPTIONS, **options}
        rules.setup(merged, len(command.seats))  # raises BadSetup
        if command.clock is not None and (fault := clock_fault(command.clock)):
            raise problem("bad-setup", fault)
        return rules, merged, auto_chance, allow_undo

    def new_id(self) -> str:
        """A fresh game id."""
        return uuid.uuid4().hex

    @contextmanager
    def open(self, game_id: str) -> Iterator[Game]:
        """The game, caught up with its log and locked for the duration."""
        game = self._cached(game_id)
        with game.lock:
            self._catch_up(game, self.store.read(game_id, after=game.version))
            yield game

    @contextmanager
    def held(self, game_id: str) -> Iterator[Game]:
        """The game as this process last saw it (at least its own writes), locked; no read of
        the log. For replies to a write, which show the state that write left."""
        game = self._cached(game_id)
        with game.lock:
            yield game

    def _catch_up(self, game: Game, events: Iterable[StoredEvent]) -> None:
        """Fold new events into a game; fold it again from the start if an undo needs to."""
        try:
            for stored in events:
                game.replay.push(stored.version, to_domain(stored))
                if game.clock is not None:
                    pending = game.rules.to_act(game.replay.state)
                    game.clock.update(parse_at(stored.at), stored.by, pending)
        except MissingHistory:
            game.replay = self._fold(game.id, from_start=True)

    def _cached(self, game_id: str) -> Game:
        with self._lock:
            game = self._games.get(game_id)
            if game is not None:
                self._games.move_to_end(game_id)
                return game
        game = self._load(game_id)
        with self._lock:
            game = self._games.setdefault(game_id, game)
            self._evict()
            return game

    def _load(self, game_id: str) -> Game:
        """The game folded from its latest snapshot and the events after it."""
        private = self.store.private(game_id)
        if private is None:
            raise problem("game-not-found", f"no game with id {game_id!r}")
        game = Game(game_id, self._fold(game_id), msgspec.convert(private, Secrets))
        if game.created.clock is not None:
            game.clock = self._clock_of(game)
        return game

    @contextmanager
    def glance(self, game_id: str) -> Iterator[Game]:
        """The game for one read among many (lists, standings, archives): the one in memory if
        it is there, else loaded for this read only, so going through every game neither grows
        memory nor pushes the games in play out of it."""
        with self._lock:
            held = game_id in self._games
        if held:
            with self.open(game_id) as game:
                yield game
        else:
            yield self._load(game_id)

    def _evict(self) -> None:
        """Forget the least recently used games beyond ``max_live`` (under ``_lock``); a running
        timed game stays, so the sweeper keeps enforcing its clock. A forgotten game is loaded
        again from its latest snapshot when next used; a request still holding it finishes on
        it, and the store's version check refuses a write it would make on stale state."""
        excess = len(self._games) - self.max_live
        victims: list[str] = []
        for game_id, game in islice(self._games.items(), len(self._games) - 1):  # not the newest
            if len(victims) >= excess:
                break
            if game.clock is None or game.finished:
                victims.append(game_id)
        for game_id in victims:
            del self._games[game_id]

    def live(self) -> int:
        """How many games are held in memory."""
        with self._lock:
            return len(self._games)

    def _clock_of(self, game: Game) -> ClockState:
        """A game's clocks, from every event's timestamp since the start."""
        assert game.created.clock is not None
        clock = ClockState(msgspec.convert(game.created.clock, Clock), len(game.created.seats))
        stored = self.store.read(game.id)
        replay = Replay(game.created)
        clock.update(parse_at(stored[0].at), stored[0].by, game.rules.to_act(replay.state))
        for event in stored[1:]:
            replay.push(event.version, to_domain(event))
            clock.update(parse_at(event.at), event.by, game.rules.to_act(replay.state))
        return clock

    def enforce_clocks(self, now: datetime | None = None) -> int:
        """Play out every expired clock of the games in memory; how many ran out."""
        with self._lock:
            timed = [g.id for g in self._games.values() if g.clock is not None and not g.finished]
        return sum(bool(self.enforce_clock(game_id, now)) for game_id in timed)

    def enforce_clock(self, game_id: str, now: datetime | None = None) -> list[StoredEvent]:
        """If a pending seat's time ran out: TimeExpired and its consequence, appended."""
        if self._cached(game_id).clock is None:
            return []  # no clock: no need to read the log (this runs before every write)
        with self.open(game_id) as game:
            if game.clock is None or game.finished:
                return []
            expired = game.clock.expired(now or datetime.now(UTC))
            if not expired:
                return []
            batch = timeout_events(game, expired[0])
            batch += self._advance(game.id, game.replay, game.secrets, batch)
            return list(self._append(game, batch, None).events)

    def replay_at(self, game_id: str, at: int) -> Replay:
        """The game folded up to version ``at``, from the nearest snapshot."""
        with self.open(game_id) as game:
            if not 1 <= at <= game.version:
                raise problem(
                    "out-of-range", f"at={at} is outside this game's versions 1..{game.version}"
                )
        return self._fold(game_id, at)

    def _fold(self, game_id: str, at: int | None = None, from_start: bool = False) -> Replay:
        """The game folded up to ``at`` (its end by default) from the latest snapshot that
        serves; the latest snapshot it folded past is saved."""
        replay, events = self._restore(game_id, 0 if from_start else (at or LATEST), at)
        start = replay.version
        try:
            for stored in events:
                replay.push(stored.version, to_domain(stored))
        except MissingHistory:  # not expected: _restore starts before every undo's target
            return self._fold(game_id, at, from_start=True)
        if passed := [v for v in replay.snapshots if v > start]:
            self.store.save_snapshot(game_id, max(passed), frame_bytes(replay, max(passed)))
        return replay

    def _restore(
        self, game_id: str, at_most: int, at: int | None
    ) -> tuple[Replay, list[StoredEvent]]:
        """The latest stored snapshot at or before ``at_most`` from which every undo up to
        ``at`` can be folded (each reverts to after the snapshot's frame), else the start;
        and the events after it."""
        first = self.store.read(game_id, until=1)
        if not first:
            raise problem("game-not-found", f"no game with id {game_id!r}")
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

    def play(
        self, game_id: str, token: str | None, command: PlayMove, key: str | None
    ) -> list[StoredEvent]:
        """Check and play one move for the caller's seat; returns the events stored."""
        return self._write(game_id, token, key, command.expected_version, self._move(command))

    async def play_async(
        self, game_id: str, token: str | None, command: PlayMove, key: str | None
    ) -> list[StoredEvent]:
        """``play`` on the event loop, which goes on serving while the append commits.

        The move is checked and built under the game's lock, which is let go while the append
        waits for its commit. The first try builds on the game as this process holds it,
        without reading the log: the append's own version check catches any write that came
        between or that this process has not seen (another process's), and the move is then
        checked again on the log (unless the caller named the version it expected: that is a
        409, as always). A move refused on the game as held is judged again on the log before
        the refusal is final. Timed games take the threaded path (their clocks are enforced
        under the game's lock).
        """
        build = self._move(command)
        if self._cached(game_id).clock is not None:
            return await anyio.to_thread.run_sync(self.play, game_id, token, command, key)
        if key is not None and (earlier := self.store.lookup(game_id, key)) is not None:
            return list(earlier.events)
        fresh = False  # the first try builds on the game as held, unread: the append checks it
        for _ in range(WRITE_ATTEMPTS):
            with self.open(game_id) if fresh else self.held(game_id) as game:
                try:
                    batch: list[tuple[Actor, Event]] | None = self._batch(
                        game, token, command.expected_version, build
                    )
                except (ServiceError, GameError):
                    if fresh:
                        raise
                    batch = None  # refused on the game as held: judge it again on the log
                version = game.version
            fresh = True
            if batch is None:
                continue
            try:
                result = await self.store.append_async(game_id, new_events(batch), version, key)
            except VersionConflict:
                if command.expected_version is not None:
                    raise
                continue
            due = self._settle(game_id, version, result.events)
            if due:
                self._save_later(game_id, due)
            return list(result.events)
        raise problem("version-conflict", f"game {game_id} kept changing; try again")

    def _move(self, command: PlayMove) -> Callable[[Game, Viewer], list[tuple[Actor, Event]]]:
        def build(game: Game, role: Viewer) -> list[tuple[Actor, Event]]:
            return self._decision(game, acting_seat(game, role, command.seat), command)

        return build

    def undo(
        self, game_id: str, token: str | None, command: Undo, key: str | None
    ) -> list[StoredEvent]:
        """Revert the latest decision (the referee, or its own seat where undo is allowed)."""

        def build(game: Game, role: Viewer) -> list[tuple[Actor, Event]]:
            if not game.replay.complete:  # restored from a snapshot: undo needs every frame
                game.replay = self._fold(game.id, from_start=True)
            target = game.replay.last_decision()
            if target is None:
                raise problem("nothing-to-undo", "there is no decision left to undo")
            if role != "referee":
                check_own_undo(game, role, target, self.store.read(game.id, after=target - 1))
            actor: Actor = role if role is not None else "referee"
            return [(actor, MoveUndone(target, command.reason))]

        return self._write(game_id, token, key, command.expected_version, build, finished_ok=True)

    def post_chance(
        self, game_id: str, token: str | None, command: PostChance, key: str | None
    ) -> list[StoredEvent]:
        """Record a physical draw or throw (games with external chance, referee only)."""

        def build(game: Game, role: Viewer) -> list[tuple[Actor, Event]]:
            if role != "referee":
                raise problem("forbidden", "only the referee posts chance outcomes")
            if game.created.chance != "external":
                raise problem("forbidden", "this game's chance is the server's, not external")
            return [("referee", external_outcome(game, command))]

        return self._write(game_id, token, key, command.expected_version, build)

    def adjudicate(
        self, game_id: str, token: str | None, command: Adjudicate, key: str | None
    ) -> list[StoredEvent]:
        """Record a referee's decision; a forfeit or an agreement ends the game."""

        def build(game: Game, role: Viewer) -> list[tuple[Actor, Event]]:
            if role != "referee":
                raise problem("forbidden", "only the referee adjudicates")
            return [("referee", e) for e in adjudication(game, command)]

        return self._write(game_id, token, key, command.expected_version, build)

    def _write(
        self,
        game_id: str,
        token: str | None,
        key: str | None,
        expected: int | None,
        build: Callable[[Game, Viewer], list[tuple[Actor, Event]]],
        finished_ok: bool = False,
    ) -> list[StoredEvent]:
        """One write: idempotency, authorisation, version check, events, append."""
        if key is not None and (earlier := self.store.lookup(game_id, key)) is not None:
            return list(earlier.events)
        self.enforce_clock(game_id)
        with self.open(game_id) as game:
            batch = self._batch(game, token, expected, build, finished_ok)
            return list(self._append(game, batch, key).events)

    def _batch(
        self,
        game: Game,
        token: str | None,
        expected: int | None,
        build: Callable[[Game, Viewer], list[tuple[Actor, Event]]],
        finished_ok: bool = False,
    ) -> list[tuple[Actor, Event]]:
        """The events of one write and what follows by itself, checked; nothing stored yet."""
        role = game.role(token)
        if role is None:
            raise problem("unauthorized", "writing needs a seat's or the referee's token")
        check_version(game, expected)
        if game.finished and not finished_ok:
            raise problem("game-over", f"game {game.id} is finished")
        batch = build(game, role)
        return batch + self._advance(game.id, game.replay, game.secrets, batch)

    def _decision(self, game: Game, seat: int, command: PlayMove) -> list[tuple[Actor, Event]]:
        """The events of the seat's decision (or its draw or roll)."""
        state, rules = game.replay.state, game.rules
        mine = [p for p in rules.to_act(state) if p.seat == seat]
        if not mine:
            raise problem("not-your-turn", not_your_turn(rules.to_act(state), seat))
        legal = rules.legal_moves(state, seat)
        move_id = resolve_move(legal, command)
        if move_id in CHANCE_KINDS and any(p.kind == move_id for p in mine):
            if game.created.chance == "external":
                raise problem("waiting-for-chance", "the referee posts the outcome in this game")
            return [(seat, self._chance(game.replay, game.secrets, seat, state, 0))]
        events = rules.decide(state, seat, move_id)
        if move_id not in {m.id for m in legal}:
            raise problem("illegal-move", f"move {move_id!r} is not a legal move of seat {seat}")
        return [(seat, event) for event in events]

    def _chance(self, replay: Replay, secrets: Secrets, seat: int, state: Any, extra: int) -> Event:
        need = replay.rules.chance(state)
        if need is None:
            raise problem("illegal-move", f"seat {seat} has nothing to draw or roll")
        return chance.outcome(secrets.seed, replay.chance_count + extra, need, seat)

    def _advance(
        self, game_id: str, replay: Replay, secrets: Secrets, batch: list[tuple[Actor, Event]]
    ) -> list[tuple[Actor, Event]]:
        """Events that follow by themselves: automatic ones, auto chance, the seed's reveal."""
        rules, state = replay.rules, replay.state
        drawn = 0
        for _, event in batch:
            state = rules.apply(state, event)
            drawn += isinstance(event, CHANCE_EVENTS)
        more: list[tuple[Actor, Event]] = []
        for _ in range(MAX_AUTOMATIC):
            step: list[Event] = rules.automatic(state)
            if not step and not state.finished and secrets.auto_chance:
                step = self._auto_chance(replay, secrets, state, drawn)
            if not step:
                break
            for event in step:
                state = rules.apply(state, event)
                drawn += isinstance(event, CHANCE_EVENTS)
                more.append(("server", event))
        else:
            raise RuntimeError(f"game {game_id}: automatic events did not settle")
        if state.finished and not replay.state.finished:
            more.append(("server", SeedRevealed(secrets.seed)))
        return more

    def _auto_chance(self, replay: Replay, secrets: Secrets, state: Any, drawn: int) -> list[Event]:
        if replay.created.chance != "server":
            return []
        for pending in replay.rules.to_act(state):
            if pending.kind in CHANCE_KINDS:
                return [self._chance(replay, secrets, pending.seat, state, drawn)]
        return []

    def _append(
        self, game: Game, batch: list[tuple[Actor, Event]], key: str | None
    ) -> AppendResult:
        result = self.store.append(game.id, new_events(batch), game.version, key)
        self._catch_up(game, result.events)
        self._save_due(game.id, snapshots_due(game, result.events))
        return result

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

    def _settle(
        self, game_id: str, version: int, appended: Sequence[StoredEvent]
    ) -> list[tuple[int, bytes]]:
        """Fold events appended at ``version`` into the cached game (unless a reader already
        caught up past them); the snapshots they make due."""
        game = self._cached(game_id)
        with game.lock:
            if game.version == version:
                self._catch_up(game, appended)
            return snapshots_due(game, appended)

    def list(
        self, status: str | None = None, ruleset: str | None = None, tag: str | None = None
    ) -> list[dict[str, Any]]:
        """Game summaries, oldest first, filtered by status, rule set and tag (``key:value``)."""
        summaries = [
            {
                "id": info.stream_id,
                "ruleset": info.meta.get("ruleset", ""),
                "status": "finished" if info.last_type == "SeedRevealed" else "active",
                "version": info.version,
                "seats": info.meta.get("seats", []),
                "created_at": info.created_at,
                "tags": info.meta.get("tags", {}),
            }
            for info in self.store.streams()
        ]
        return [
            g
            for g in summaries
            if (status is None or g["status"] == status)
            and (ruleset is None or g["ruleset"] == ruleset)
            and (tag is None or has_tag(g["tags"], tag))
        ]


def has_tag(tags: dict[str, str], wanted: str) -> bool:
    """Whether ``tags`` has ``key:value`` (or just the key, or just the value)."""
    key, sep, value = wanted.partition(":")
    if sep:
        return tags.get(key) == value
    return wanted in tags or wanted in tags.values()


def earliest_revert(events: list[StoredEvent]) -> int | None:
    """The earliest version an undo among ``events`` reverts to, if any."""
    targets = [int(e.data["reverts"]) for e in events if e.type == "MoveUndone"]
    return min(targets, default=None)


def snapshots_due(game: Game, appended: Sequence[StoredEvent]) -> list[tuple[int, bytes]]:
    """The snapshots to save among events just appended: (version, bytes) every SNAPSHOT_EVERY."""
    return [
        (e.version, frame_bytes(game.replay, e.version))
        for e in appended
        if e.version % SNAPSHOT_EVERY == 0 and e.version in game.replay.snapshots
    ]


def frame_bytes(replay: Replay, version: int) -> bytes:
    """The snapshot of ``replay`` kept at ``version``, as bytes for the store."""
    return Replay(replay.created, replay.snapshots[version], version).snapshot_bytes()


def find(name: str) -> RuleSet:
    """The rule set, or an unknown-ruleset problem listing the known ones."""
    if name not in RULESETS:
        raise problem("unknown-ruleset", f"unknown rule set {name!r}; known: {sorted(RULESETS)}")
    return RULESETS[name]


def new_events(batch: list[tuple[Actor, Event]]) -> list[NewEvent]:
    """Domain events ready for the store."""
    return [NewEvent(event_type(e), event_data(e), by) for by, e in batch]


def check_version(game: Game, expected: int | None) -> None:
    """Refuse a write based on a stale version."""
    if expected is not None and expected != game.version:
        raise problem(
            "version-conflict",
            f"expected_version {expected} but game {game.id} is at version {game.version}",
            current_version=game.version,
        )


def acting_seat(game: Game, role: Viewer, asked: int | None) -> int:
    """The seat a move is for: the token's own, or for the referee the one asked or pending."""
    if isinstance(role, int):
        if asked is not None and asked != role:
            raise problem("forbidden", f"this token plays for seat {role}, not seat {asked}")
        return role
    if asked is not None:
        count = len(game.created.seats)
        if not 0 <= asked < count:
            raise problem("validation-failed", f"seats are numbered 0 to {count - 1}")
        return asked
    pending = sorted({p.seat for p in game.rules.to_act(game.replay.state)})
    if len(pending) != 1:
        raise problem("validation-failed", f"seats {pending} are pending: say which with 'seat'")
    return pending[0]


def resolve_move(moves: list[Move], command: PlayMove) -> str:
    """The move id named by id or by steps; an unknown id is left for the rules to explain."""
    if (command.move is None) == (command.steps is None):
        raise problem("validation-failed", "give exactly one of 'move' (an id) or 'steps'")
    if command.move is not None:
        return command.move
    wanted = tuple(command.steps or ())
    for move in moves:
        if move.steps == wanted:
            return move.id
    shown = ", ".join(f"{s.piece} {s.from_}>{s.to}" for s in wanted) or "no steps"
    raise problem("illegal-move", f"no legal move has the steps {shown}")


def not_your_turn(pending: list[Pending], seat: int) -> str:
    """Who is to act instead of ``seat``."""
    if not pending:
        return f"seat {seat} has nothing to do now"
    waiting = ", ".join(f"seat {p.seat} ({p.kind})" for p in pending)
    return f"it is not seat {seat}'s turn: waiting for {waiting}"

"""Write use cases: create a game, play, undo, post chance, adjudicate, enforce clocks.

Each write is: find the game, identify the caller (401 before anything else), honour an
Idempotency-Key (scoped to the caller's token and the route), let the referee core judge the
command on the game as it is, append the verdict with the version it was judged on.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import anyio.to_thread
import msgspec

from domain.events import GameCreated
from domain.model import BadOption, GameError, Viewer
from domain.registry import RULESETS
from domain.replay import Replay
from domain.ruleset import RuleSet
from eventstore import StoredEvent, iso_timestamp, utcnow
from service.core import chance, names
from service.core.clocks import Clock, ClockState, clock_fault
from service.core.commands import (
    Adjudicate,
    Command,
    CreateBatch,
    CreateGame,
    PlayMove,
    PostChance,
    Timeout,
    Undo,
)
from service.core.delay import delay_fault, parse_delay
from service.core.fields import bad_field
from service.core.luck import Seeded
from service.core.referee import Batch, judge, open_game
from service.core.refusal import Refusal, refuse
from service.usecases import tokens
from service.usecases.figures import Tally
from service.usecases.records import GameRecord, judged_record
from service.usecases.replies import BatchCreated, Created, Tokens
from service.usecases.repository import Game, Repository, Secrets, new_events, stored_errors
from service.usecases.summaries import summary_of

WRITE_ATTEMPTS = 8  # an async move judged again after another write came between
Now = Callable[[], datetime]


class Holders(msgspec.Struct, frozen=True):
    """Who holds a new game's tokens, as the hashes of tokens given out elsewhere (a
    tournament's director referees its tables, its players sit with their own tokens)."""

    referee: str
    seats: tuple[str, ...]


class Commands:
    """The writes of the service."""

    def __init__(self, games: Repository, now: Now = utcnow) -> None:
        self.games = games
        self.store = games.store
        self.now = now
        self.moves = Tally()  # moves played (appended, not replayed), by rule set

    def create(self, command: CreateGame, holders: Holders | None = None) -> Created:
        """Validate and store a new game; the tokens are shown only in this reply. With
        ``holders`` (a tournament's table) the game takes those token hashes instead of new
        tokens, and the reply's tokens are empty."""
        seed = command.seed or tokens.new_seed()
        created = self.setup(command, chance.commitment(seed))
        verdict = open_game(created, Seeded(seed))
        return self.store_new(verdict.after, verdict.batch, seed, {}, holders)

    def import_record(self, record: GameRecord) -> Created:
        """Judge a record again event by event, then store it as a new game with new tokens;
        an invalid record names its first bad event."""
        replay, batch = judged_record(record)
        if record.seed is None and record.chance == "server" and not replay.state.finished:
            raise refuse(
                "invalid-record",
                "a running game with server chance cannot be imported without its seed",
            )
        if any("\x00" in key + value for key, value in replay.created.tags.items()):
            raise refuse(
                "invalid-record", "event 1: a tag holds a NUL character", first_bad_event=1
            )
        try:
            parse_delay(replay.created.spectator_delay)
        except ValueError as error:
            raise refuse("invalid-record", f"event 1: {error}", first_bad_event=1) from None
        seed = record.seed or tokens.new_seed()
        return self.store_new(replay, batch, seed, {"imported_from": record.game_id})

    def create_batch(
        self, batch: CreateBatch, holders: Sequence[Holders] | None = None
    ) -> BatchCreated:
        """Create every table, after checking them all: a bad table creates none (``holders``:
        each table's token hashes, as ``create`` takes them)."""
        if not batch.games:
            raise bad_field(("games",), "a batch needs at least one game")
        for index, command in enumerate(batch.games):
            try:
                self.setup(command, "")
            except Refusal as error:
                extra = dict(error.extra)
                if "pointer" in extra:
                    extra["pointer"] = f"/games/{index}{extra['pointer']}"
                raise refuse(error.slug, f"table {index}: {error.detail}", **extra) from None
            except GameError as error:
                raise refuse("bad-setup", f"table {index}: {error}") from None
        held: Sequence[Holders | None] = holders or [None] * len(batch.games)
        return BatchCreated(
            [self.create(command, h) for command, h in zip(batch.games, held, strict=True)]
        )

    def setup(self, command: CreateGame, commitment: str) -> GameCreated:
        """The first event of a game ``command`` creates, checked (every setting in it)."""
        rules = find(command.ruleset)
        options = dict(command.options)
        auto_chance = bool(options.pop("auto_chance", command.auto_chance))
        allow_undo = bool(options.pop("allow_undo", command.allow_undo))
        merged = {**rules.OPTIONS, **options}
        try:
            rules.setup(merged, len(command.seats))  # raises BadSetup
        except BadOption as error:
            raise refuse("validation-failed", str(error)) from None
        if command.clock is not None and (fault := clock_fault(command.clock)):
            raise refuse("bad-setup", fault)
        if command.spectator_delay is not None and (fault := delay_fault(command.spectator_delay)):
            raise bad_field(("spectator_delay",), fault)
        for key, value in command.tags.items():
            if "\x00" in key + value:  # listings index tags as text, which PostgreSQL's cannot be
                raise bad_field(("tags", key), "a tag may not hold a NUL character")
        given = [names.normal(s.name, ("seats", i, "name")) for i, s in enumerate(command.seats)]
        seated = tuple(name or f"Player {i + 1}" for i, name in enumerate(given))
        clock = msgspec.to_builtins(command.clock) if command.clock else None
        delay = command.spectator_delay
        return GameCreated(
            rules.NAME,
            merged,
            seated,
            command.chance,
            commitment,
            clock,
            auto_chance,
            allow_undo,
            dict(command.tags),
            command.rated,
            msgspec.to_builtins(delay) if delay else None,
            rules.VERSION,
        )

    def store_new(
        self,
        after: Replay,
        batch: Batch,
        seed: str,
        meta: dict[str, Any],
        holders: Holders | None = None,
    ) -> Created:
        """Store a new game's first events with fresh tokens (shown only in this reply), or
        with the token hashes of ``holders``; a timed game's clocks start now."""
        created = after.created
        if holders is None:
            referee, seats = tokens.new_token(), [tokens.new_token() for _ in created.seats]
            secrets = Secrets(
                tokens.token_hash(referee), [tokens.token_hash(t) for t in seats], seed
            )
        else:
            referee, seats = "", [""] * len(created.seats)
            secrets = Secrets(holders.referee, list(holders.seats), seed)
        game_id = uuid.uuid4().hex
        listed = {"ruleset": created.ruleset, "seats": list(created.seats), "tags": created.tags}
        self.store.append(
            game_id,
            new_events(batch),
            0,
            meta=listed | meta,
            private=msgspec.to_builtins(secrets),
            deadline=first_deadline(after, self.now()),
            summary=summary_of(after),
        )
        return Created(game_id, len(batch), created.seed_commitment, Tokens(referee, seats))

    def play(
        self, game_id: str, token: str | None, command: PlayMove, key: str | None
    ) -> list[StoredEvent]:
        """Judge and store one move (or draw or roll) for the caller's seat."""
        return self.write(game_id, token, "moves", command, key)

    def undo(
        self, game_id: str, token: str | None, command: Undo, key: str | None
    ) -> list[StoredEvent]:
        """Revert the latest decision (or, for the referee of an external-chance game, the
        latest outcome no decision followed)."""
        return self.write(game_id, token, "undo", command, key)

    def post_chance(
        self, game_id: str, token: str | None, command: PostChance, key: str | None
    ) -> list[StoredEvent]:
        """Record a physical draw or throw (games with external chance, referee only)."""
        return self.write(game_id, token, "chance", command, key)

    def adjudicate(
        self, game_id: str, token: str | None, command: Adjudicate, key: str | None
    ) -> list[StoredEvent]:
        """Record a referee's decision; a forfeit or an agreement ends the game."""
        return self.write(game_id, token, "adjudicate", command, key)

    def write(
        self, game_id: str, token: str | None, route: str, command: Command, key: str | None
    ) -> list[StoredEvent]:
        """One write on a worker thread: the game locked while it is judged and appended."""
        role, scoped, fingerprint = self.identify(game_id, token, route, command, key)
        if scoped is not None and (earlier := self.replayed(game_id, scoped, fingerprint)):
            return earlier
        with self.games.open(game_id) as game:
            self.expire(game)  # a seat out of time first, on the same read of the log
            if isinstance(command, Undo):
                self.games.complete(game)
            verdict = judge(game.replay, role, command, Seeded(game.secrets.seed))
            result = self.games.append(game, verdict, scoped, fingerprint, self.now())
            if route == "moves" and not result.replayed:
                self.moves.add(game.created.ruleset)
            return list(result.events)

    async def play_async(
        self, game_id: str, token: str | None, command: PlayMove, key: str | None
    ) -> list[StoredEvent]:
        """``play`` on the event loop, which goes on serving while the append commits.

        The move is judged under the game's lock, which is let go while the append waits for
        its commit. The first try judges the game as this process holds it, without reading
        the log: the append's own version check catches any write that came between or that
        this process has not seen (another process's), and the move is then judged again on
        the log (unless the caller named the version it expected: that is a 409, as always).
        A move refused on the game as held is judged again on the log before the refusal is
        final. Timed games take the threaded path (their clocks are enforced under the lock).
        """
        if self.games.cached(game_id).clock is not None:
            return await anyio.to_thread.run_sync(self.play, game_id, token, command, key)
        role, scoped, fingerprint = self.identify(game_id, token, "moves", command, key)
        if scoped is not None and (earlier := self.replayed(game_id, scoped, fingerprint)):
            return earlier
        fresh = False  # the first try judges the game as held, unread: the append checks it
        for _ in range(WRITE_ATTEMPTS):
            with self.games.open(game_id) if fresh else self.games.held(game_id) as game:
                try:
                    verdict = judge(game.replay, role, command, Seeded(game.secrets.seed))
                except (Refusal, GameError):
                    if fresh:
                        raise
                    verdict = None  # refused on the game as held: judge it again on the log
                version = game.version
            fresh = True
            if verdict is None:
                continue
            try:
                result = await self.games.append_async(
                    game_id, version, verdict, scoped, fingerprint
                )
            except Refusal as refusal:
                if refusal.slug != "version-conflict" or command.expected_version is not None:
                    raise
                continue
            if not result.replayed:
                self.moves.add(game.created.ruleset)
            return list(result.events)
        raise refuse("version-conflict", f"game {game_id} kept changing; try again")

    def identify(
        self, game_id: str, token: str | None, route: str, command: Command, key: str | None
    ) -> tuple[Viewer, str | None, str]:
        """The caller's role (a write needs a token: 401 before any stored reply is looked
        up), the Idempotency-Key as stored, and the fingerprint of the command."""
        role = self.games.cached(game_id).role(token)
        if role is None or token is None:
            raise refuse("unauthorized", "writing needs a seat's or the referee's token")
        if key is None:
            return role, None, ""
        body = msgspec.json.encode(command)
        return role, tokens.scoped_key(key, token, route), tokens.fingerprint(body)

    def replayed(self, game_id: str, key: str, fingerprint: str) -> list[StoredEvent] | None:
        """The events of an earlier write with this key and body, if any (422 when the key
        came with another body)."""
        with stored_errors():
            earlier = self.store.lookup(game_id, key, fingerprint)
        return list(earlier.events) if earlier is not None else None

    def enforce_due(self) -> int:
        """Play out every clock the store says is due now (games in memory or not); how many
        ran out."""
        now = self.now()
        expired = 0
        for game_id, _ in self.store.due(iso_timestamp(now)):
            try:
                expired += bool(self.enforce_clock(game_id, now))
            except Refusal as refusal:  # another process enforced it first: its write stands
                if refusal.slug != "version-conflict":
                    raise
        return expired

    def enforce_clock(self, game_id: str, now: datetime | None = None) -> list[StoredEvent]:
        """If a pending seat's time ran out: TimeExpired and its consequence, appended."""
        if self.games.cached(game_id).clock is None:
            return []  # no clock: no need to read the log
        with self.games.open(game_id) as game:
            return self.expire(game, now)

    def expire(self, game: Game, now: datetime | None = None) -> list[StoredEvent]:
        """``enforce_clock`` on a game held open (caught up and locked)."""
        if game.clock is None or game.finished:
            return []
        now = now or self.now()
        expired = game.clock.expired(now)
        if not expired:
            return []
        verdict = judge(game.replay, "server", Timeout(expired[0]), Seeded(game.secrets.seed))
        return list(self.games.append(game, verdict, None, "", now).events)


def first_deadline(game: Replay, now: datetime) -> str | None:
    """When the first seat of a new timed game runs out, its clocks starting ``now``."""
    if game.created.clock is None:
        return None
    clock = ClockState(msgspec.convert(game.created.clock, Clock), len(game.created.seats))
    clock.update(now, None, game.rules.to_act(game.state))
    moment = clock.deadline(now)
    return iso_timestamp(moment) if moment is not None else None


def find(name: str) -> RuleSet[Any]:
    """The rule set, or an unknown-ruleset problem listing the known ones."""
    if name not in RULESETS:
        known = ", ".join(f"`{known}`" for known in sorted(RULESETS))
        why = f"no rule set `{name}`; the rule sets are {known}"
        raise bad_field(("ruleset",), why, "unknown-ruleset", sorted(RULESETS))
    return RULESETS[name]

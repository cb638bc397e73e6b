"""Write use cases: create a game, play, undo, post chance, adjudicate, enforce clocks.

Each write is: find the game, identify the caller (401 before anything else), honour an
Idempotency-Key (scoped to the caller's token and the route), let the referee core judge the
command on the game as it is, append the verdict with the version it was judged on.

Joining a table (``TakeSeat``) is the one write without a seat: a guest joins with no token
(her Idempotency-Keys are scoped to the guests), a registered player with her key.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from datetime import datetime

import anyio.to_thread
import msgspec

from domain.model import GameError, Viewer
from eventstore import AppendResult, StoredEvent
from service.core.actor import BOT, SERVER_BOT, Actor, Caller, GameCaller, Player
from service.core.clocks import Clock
from service.core.commands import (
    Adjudicate,
    Command,
    CreateBatch,
    CreateGame,
    PlayMove,
    PostChance,
    TakeSeat,
    Timeout,
    Undo,
)
from service.core.luck import Seeded
from service.core.referee import judge
from service.core.refusal import Refusal, refuse
from service.core.seating import level_version, timeout_bot
from service.core.tables import expiry as table_expiry
from service.usecases import tokens
from service.usecases.games.creation import Creation, Holders, Now
from service.usecases.games.figures import Tally
from service.usecases.games.records import GameRecord
from service.usecases.games.repository import Game, Judged, Repository
from service.usecases.owners import BotShare
from service.usecases.replies import BatchCreated, Created
from service.usecases.tokens import Keyed
from service.usecases.writer import Conflict

WRITE_ATTEMPTS = 8  # a write judged again after another write came between
TOURNAMENT_TAG = "tournament"
"""The tag a tournament's tables carry (its id)."""


class Commands:
    """The writes of the service."""

    def __init__(
        self, games: Repository, now: Now, creation: Creation, bots: BotShare, moves: Tally
    ) -> None:
        self.games = games
        self.now = now
        self.moves = moves  # moves played (appended, not replayed), by rule set
        self.creation = creation
        self.bots = bots  # whose games with bots, played fairly

    def create(
        self,
        command: CreateGame,
        holders: Holders | None = None,
        owner: str | None = None,
        key: Keyed | None = None,
    ) -> Created:
        """Validate and store a new game (see ``Creation.create``: ``key`` replays a retry);
        a game with bots is ``owner``'s, within its cap (``BotShare.seating``)."""
        with self.bots.seating(owner, with_bots([command])):
            return self.creation.create(command, holders, key)

    def import_record(self, record: GameRecord, key: Keyed | None = None) -> Created:
        """Judge a record again and store it as a new game (see ``Creation.import_record``)."""
        return self.creation.import_record(record, key)

    def create_batch(
        self,
        batch: CreateBatch,
        holders: Sequence[Holders] | None = None,
        owner: str | None = None,
        key: Keyed | None = None,
    ) -> BatchCreated:
        """Create every table in one transaction (see ``Creation.create_batch``); the tables
        with bots are ``owner``'s, within its cap (``BotShare.seating``)."""
        with self.bots.seating(owner, with_bots(batch.games)):
            return self.creation.create_batch(batch, holders, key)

    def play(
        self, game_id: str, caller: Caller, command: PlayMove, key: str | None
    ) -> list[StoredEvent]:
        """Judge and store one move (or draw or roll) for the caller's seat, waiting for the
        store (a worker thread): the door of every move, a bot's included (``play_async``
        makes its first attempt on the event loop). ``caller`` is a bearer token, or
        ``SERVER_BOT`` for a bot's move (``by: "bot"``, its Idempotency-Key scoped to the
        bots)."""
        return self.write(game_id, caller, "moves", command, key)

    def undo(
        self, game_id: str, token: GameCaller, command: Undo, key: str | None
    ) -> list[StoredEvent]:
        """Revert the latest decision (or, for the referee of an external-chance game, the
        latest outcome no decision followed)."""
        return self.write(game_id, token, "undo", command, key)

    def post_chance(
        self, game_id: str, token: GameCaller, command: PostChance, key: str | None
    ) -> list[StoredEvent]:
        """Record a physical draw or throw (games with external chance, referee only)."""
        return self.write(game_id, token, "chance", command, key)

    def adjudicate(
        self, game_id: str, token: GameCaller, command: Adjudicate, key: str | None
    ) -> list[StoredEvent]:
        """Record a referee's decision; a forfeit or an agreement ends the game."""
        return self.write(game_id, token, "adjudicate", command, key)

    def write(
        self, game_id: str, caller: Caller, route: str, command: Command, key: str | None
    ) -> list[StoredEvent]:
        """One write, waiting for the store (a worker thread): identify the caller, replay an
        earlier write with the same key, then judge on the game caught up with its log (a
        seat out of time first) and commit at the version judged on, judging again when
        another write came between, up to ``WRITE_ATTEMPTS`` times."""
        with self.games.game(game_id, fresh=False) as game:
            role, scoped = self.identify(game, caller, route, command, key)
        if scoped is not None and (earlier := self.games.writer.replayed(game_id, *scoped)):
            return earlier
        for _ in range(WRITE_ATTEMPTS):
            with self.games.game(game_id) as game:
                expiry = self.expiry(game, self.now())
                judged = expiry or self.judged(game, role, command)
            key_used = scoped if scoped is not None and expiry is None else (None, "")
            try:
                result = self.games.commit(judged, *key_used)
            except Conflict as conflict:
                if not again(conflict, command):
                    raise
                continue
            if expiry is None:
                return self.counted(route, game, result)
        raise refuse("version-conflict", f"game {game_id} kept changing; try again")

    async def play_async(
        self, game_id: str, caller: Caller, command: PlayMove, key: str | None
    ) -> list[StoredEvent]:
        """``play`` for a caller on the event loop, which goes on serving while the append
        commits: the door of HTTP's and the socket's moves.

        ``write``'s first attempt, made on the game as this process holds it (under its lock,
        without reading the log: the commit's version check catches any write that came
        between, this process's or another's). Whatever that attempt cannot settle is
        ``write`` on a worker thread, from the start: a key to look up, a game not in memory,
        a timed game (its clocks are enforced on the log), a move refused on the game as held
        and a conflict (both judged again on the log, so a refusal is final only there)."""
        judged = self.held_verdict(game_id, caller, command) if key is None else None
        if judged is not None:
            with suppress(Conflict):
                result = await self.games.commit_async(judged, None, "")
                return self.counted("moves", judged.game, result)
        return await anyio.to_thread.run_sync(self.write, game_id, caller, "moves", command, key)

    def held_verdict(self, game_id: str, caller: Caller, command: PlayMove) -> Judged | None:
        """The verdict on ``command`` judged on the untimed game as this process holds it;
        None when it does not hold the game, the game is timed or the move is refused there."""
        if not self.games.holds(game_id):
            return None
        with self.games.game(game_id, fresh=False) as game:
            role, _ = self.identify(game, caller, "moves", command, None)
            if game.clock is not None:
                return None
            with suppress(Refusal, GameError):
                return self.judged(game, role, command)
        return None

    def judged(self, game: Game, role: Actor | Viewer, command: Command) -> Judged:
        """The referee's verdict on ``command`` by ``role`` on the game (held, locked). A
        tournament table's result is final: an undo that would reopen it is refused."""
        if isinstance(command, Undo):
            if game.finished and TOURNAMENT_TAG in game.created.tags:
                raise refuse(
                    "result-final",
                    "this game is a tournament table and has finished: its result is final"
                    " (the tournament recorded it), so its finishing move cannot be undone",
                )
            self.games.complete(game)
        verdict = judge(game.replay, role, command, Seeded(game.secrets.seed))
        return Judged(game, game.version, game.replay, verdict, self.now())

    def identify(
        self, game: Game, caller: Caller, route: str, command: Command, key: str | None
    ) -> tuple[Actor | Viewer, tuple[str, str] | None]:
        """The caller's role (a write needs a token, or to be ``SERVER_BOT``: 401 before any
        stored reply is looked up), the Idempotency-Key as stored (scoped to the caller's
        token, or to the bots, and the route) with the fingerprint of the command, if any."""
        if caller is SERVER_BOT:
            role: Actor | Viewer = BOT
            scope = SERVER_BOT.value
        elif isinstance(command, TakeSeat):
            role, scope = None, joiner_scope(game, caller)
        else:
            role = game.role(caller)
            if role is None or caller is None:
                raise refuse("unauthorized", "writing needs a seat's or the referee's token")
            scope = f"player:{caller.handle}" if isinstance(caller, Player) else caller
        if key is None:
            return role, None
        body = msgspec.json.encode(command)
        return role, (tokens.scoped_key(key, scope, route), tokens.fingerprint(body))

    def counted(self, route: str, game: Game, result: AppendResult) -> list[StoredEvent]:
        """The events a write stored (or replayed); a move appended counts in ``moves``."""
        if route == "moves" and not result.replayed:
            self.moves.add(game.created.ruleset)
        return list(result.events)

    def enforce_due(self) -> int:
        """Play out every clock the store says is due now (games in memory or not); how many
        ran out."""
        now = self.now()
        expired = 0
        for game_id in self.games.due(now):
            try:
                expired += bool(self.enforce_clock(game_id, now))
            except Refusal as refusal:  # another process enforced it first: its write stands
                if refusal.slug != "version-conflict":
                    raise
        return expired

    def enforce_clock(self, game_id: str, now: datetime | None = None) -> list[StoredEvent]:
        """If a pending seat's time ran out: TimeExpired and its consequence, appended."""
        with self.games.game(game_id, fresh=False) as game:
            if game.clock is None and not game.replay.gathering:
                return []  # no clock, no table gathering: no need to read the log
        with self.games.game(game_id) as game:
            judged = self.expiry(game, now or self.now())
        if judged is None:
            return []
        return list(self.games.commit(judged, None, "").events)

    def expiry(self, game: Game, now: datetime) -> Judged | None:
        """The verdict of a pending seat's time running out on the game (held, locked), if
        it has: TimeExpired and its consequence; of a gathering table, its invitations or
        its own time running out."""
        if game.replay.gathering and game.born is not None:
            ran_out = table_expiry(game.replay, game.born, now, self.games.tables)
            if ran_out is None:
                return None
            verdict = judge(game.replay, "server", ran_out, Seeded(game.secrets.seed))
            return Judged(game, game.version, game.replay, verdict, now)
        if game.clock is None or game.finished:
            return None
        expired = game.clock.expired(now)
        if not expired:
            return None
        to_bot = level_version(timeout_bot(msgspec.convert(game.created.clock, Clock).on_timeout))
        timeout = Timeout(expired[0], to_bot)
        verdict = judge(game.replay, "server", timeout, Seeded(game.secrets.seed))
        return Judged(game, game.version, game.replay, verdict, now)


def joiner_scope(game: Game, caller: Caller) -> str:
    """Whom a joiner's Idempotency-Keys are scoped to: a registered player, or the guests
    (no token: a guest's key stands for her until she holds her seat's token). A token of
    the game is refused: its holder sits at the table already, or is its referee."""
    if isinstance(caller, Player):
        return f"player:{caller.handle}"
    if isinstance(caller, str):
        role = game.role(caller)
        if role == "referee":
            why = "the referee's token joins no seat: join with a player's key, or as a guest"
            raise refuse("forbidden", why)
        held = f"seat {role + 1}" if isinstance(role, int) else "a seat"
        raise refuse("already-seated", f"this token holds {held} at this table already")
    return "guests"


def with_bots(games: Sequence[CreateGame]) -> int:
    """How many of ``games`` seat a bot from the start, or have a clock that hands a seat out
    of time, or an absence rule that hands an absent seat, to one."""
    return sum(
        any(seat.bot for seat in game.seats)
        or (game.clock is not None and timeout_bot(game.clock.on_timeout) is not None)
        or (game.absent is not None and timeout_bot(game.absent.then) is not None)
        for game in games
    )


def again(refusal: Refusal, command: Command) -> bool:
    """Whether a refused commit is judged again: another write came between (a conflict),
    and the caller did not name the version it expected (that is a 409, as always)."""
    expected = getattr(command, "expected_version", None)
    return isinstance(refusal, Conflict) and expected is None

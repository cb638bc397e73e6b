"""The bot driver: plays every seat a bot holds as soon as it is pending.

After each commit to a game (a move, a creation, a clock running out, another bot's move) the
command use cases tell the driver the game's id. If a bot plays a pending seat, a worker
thread (never the event loop) folds what that seat may see, asks the bot for a move and
submits it through the door of every move, ``Commands.play``, as ``SERVER_BOT``: the same
referee, append, clocks and idempotency as a ``POST /games/{id}/moves``. The move names the
version it was chosen at, and its Idempotency-Key (scoped to the bots) is derived from the
game, that version and the seat, so a retry or a second process choosing the same move (the
bot's seed is a hash of the game id and the version) appends nothing twice, and a move made
meanwhile by anyone else just means the bot looks again. On start, and every
``RESUME_EVERY`` seconds after, the driver looks for running games whose summary says bots
play in them: a game whose bot was due when its process stopped
(a restart, or another process over the same PostgreSQL database gone) is played on.

The workers share their time fairly between the games' owners (``service.usecases.owners``): the
games due wait in one queue per owner, served round-robin, so one owner's many games never hold
back another's one.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import msgspec
import structlog

import bots
from domain.model import CHANCE_KINDS, GameError, Move
from domain.replay import Replay
from domain.ruleset import RuleSet
from eventstore import Appending, NewEvent, StoredEvent, SummaryQuery
from service.core.actor import SERVER_BOT, GameCaller
from service.core.commands import HandOver, PlayMove
from service.core.refusal import Refusal
from service.core.seating import seated, timeout_bot
from service.usecases.games import summaries
from service.usecases.games.commands import Commands
from service.usecases.games.seen import SeatLogs
from service.usecases.owners import BotShare
from service.usecases.replies import BotInfo, BotList

RESUME_EVERY = 60.0
"""Seconds between two looks for running games with bots (the first is at start)."""
LOGS_KEPT = 1000
"""Games and seats whose logs as they see them the driver keeps between decisions."""


class Turn(NamedTuple):
    """A decision a bot is to make: for which seat, at which version, among which moves."""

    seat: int
    level: str
    version: int
    moves: list[Move]
    ruleset: str
    ruleset_version: int
    rules: RuleSet[Any]


def hand_over(
    commands: Commands,
    game_id: str,
    token: GameCaller,
    command: HandOver,
    key: str | None,
    owner: str | None = None,
) -> list[StoredEvent]:
    """The referee hands a seat to a bot (a level that plays the game's rule set) or back; a
    game that has no owner yet becomes ``owner``'s, within its cap of games with bots."""
    if command.bot is None:
        return commands.write(game_id, token, "seats", command, key)
    with commands.games.game(game_id, fresh=False) as game:
        ruleset = game.created.ruleset
    level = seated(("bot",), command.bot, ruleset)
    command = msgspec.structs.replace(command, version=level.version)
    new = 0 if game_id in commands.bots.owned() else 1
    with commands.bots.seating(owner, new):
        return commands.write(game_id, token, "seats", command, key)


def bot_seed(game_id: str, version: int) -> int:
    """The seed of the bot's own generator for the decision at ``version`` of ``game_id``."""
    digest = hashlib.sha256(f"{game_id}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def seats_a_bot(events: Sequence[NewEvent]) -> bool:
    """Whether appending ``events`` seats a bot: a game created with bots, a seat handed to
    one, a table started with bots in its open seats (a loop, not a generator: every commit
    asks)."""
    for event in events:
        if event.type == "SeatHandedOver" or (
            event.type in ("GameCreated", "TableStarted") and event.data.get("bots")
        ):
            return True
    return False


def starts(events: Sequence[NewEvent]) -> bool:
    """Whether appending ``events`` starts a gathering table (whose bots may play now)."""
    return any(event.type == "TableStarted" for event in events)


def owned_games(events: Sequence[NewEvent]) -> bool:
    """Whether appending ``events``, which seat no bot, makes the game its writer's all the
    same (``BotShare.seated``): it creates a game whose clock hands a seat out of time, or
    whose absence rule an absent seat, to a bot (only a creation's first event can)."""
    first = events[0] if events else None
    if first is None or first.type != "GameCreated":
        return False
    on_timeout = (first.data.get("clock") or {}).get("on_timeout", "")
    then = (first.data.get("absent") or {}).get("then", "")
    return timeout_bot(on_timeout) is not None or timeout_bot(then) is not None


def plays(replay: Replay) -> bool:
    """Whether a bot plays a seat of the game, and it runs (a table that gathers does not:
    nobody acts before it starts)."""
    return bool(replay.top.bots) and not replay.state.finished and not replay.gathering


def bot_key(game_id: str, version: int, seat: int) -> str:
    """The Idempotency-Key of the bot's move for ``seat`` at ``version``."""
    return f"bot:{game_id}:{version}:{seat}"


class BotDriver:
    """Worker threads that play the bots' seats of the games they are told about (``follow``,
    which the composition root, ``service.app``, makes a follower of the writer), taking them
    from the commands' ``BotShare`` (owner by owner)."""

    def __init__(
        self, commands: Commands, workers: int = 2, resume_every: float = RESUME_EVERY
    ) -> None:
        self.commands, self.games = commands, commands.games
        self.resume_every, self.stopping = resume_every, threading.Event()
        self.share: BotShare = commands.bots
        self.logs = SeatLogs(commands.games.store, LOGS_KEPT)
        self.threads = [
            threading.Thread(target=self.run, name=f"bot-{n}", daemon=True) for n in range(workers)
        ]
        self.decided = 0  # decisions submitted (appended or not)

    def start(self) -> None:
        """Start the workers, and play the running games bots have seats in."""
        for thread in self.threads:
            thread.start()
        threading.Thread(target=self.resuming, name="bot-resume", daemon=True).start()

    def stop(self) -> None:
        self.stopping.set()
        self.share.close()

    def resuming(self) -> None:
        """``resume`` now and every ``resume_every`` seconds until stopped."""
        self.resume()
        while not self.stopping.wait(self.resume_every):
            self.resume()

    def resume(self) -> None:
        """Poke every running game whose summary says a bot plays a seat; an owned game that
        no longer runs (finished unseen) counts against its owner's cap no more."""
        query = SummaryQuery(status="active", other_than=summaries.TOURNAMENT)
        owned, running = self.share.owned(), []
        try:
            for row in summaries.every(self.games.store, query):
                if row.stream_id in owned:
                    running.append(row.stream_id)
                if row.summary.document.get("bots"):
                    self.poke(row.stream_id)
            self.share.keep(running, owned)
        except Exception:
            structlog.get_logger().exception("bot resume failed")

    def follow(self, appending: Appending) -> None:
        """The writer's follower, told of each commit before the game in memory has taken it
        in: a commit that seats a bot (a game created with bots, a seat handed to one) is
        looked at whatever the game in memory says; any other, if the game in memory has
        bots (nothing is read on the committing thread, which may be the event loop's). The
        worker reads the game afresh. Other processes' games: ``resume``. A commit that seats
        a bot makes the game the owner's of the write, if it has none (``BotShare.seated``)."""
        seating = seats_a_bot(appending.events)
        if seating or owned_games(appending.events):
            self.share.seated(appending.stream_id)
        seating = seating or starts(appending.events)  # bots seated at its creation play now
        game = None if seating else self.games.held(appending.stream_id)
        if seating or (game is not None and plays(game.replay)):
            self.queue(appending.stream_id)

    def poke(self, game_id: str) -> None:
        """Look at ``game_id`` soon (on a worker) if a bot plays one of its seats."""
        try:
            with self.games.game(game_id, fresh=False) as game:
                held = game.replay
        except Refusal:
            return
        if plays(held):
            self.queue(game_id)

    def queue(self, game_id: str) -> None:
        """Play a decision of ``game_id`` when its owner's turn comes."""
        self.share.put(game_id)

    def run(self) -> None:
        """Play one decision of each game poked, owner by owner, until stopped; an error is
        logged."""
        while (game_id := self.share.take()) is not None:
            try:
                self.play(game_id)
            except Exception:
                structlog.get_logger().exception("bot move failed", game_id=game_id)

    def play(self, game_id: str) -> bool:
        """Make the next bot decision of ``game_id``, if one is due; whether one was submitted.
        The commit pokes the game again for the decision after it."""
        turn = self.turn(game_id)
        if turn is None:
            return False
        seen = self.logs.seen_by(game_id, turn.seat, turn.rules, turn.version)
        started = time.perf_counter()
        move = bots.choose(
            turn.level,
            turn.ruleset,
            turn.ruleset_version,
            turn.seat,
            seen,
            turn.moves,
            bot_seed(game_id, turn.version),
        )
        command = PlayMove(move=move, seat=turn.seat, expected_version=turn.version)
        log = structlog.get_logger().bind(game_id=game_id, seat=turn.seat, bot=turn.level)
        try:
            self.commands.play(
                game_id, SERVER_BOT, command, bot_key(game_id, turn.version, turn.seat)
            )
        except Refusal as refusal:  # someone moved first: the commit that did pokes again
            log.info("bot move not taken", problem=refusal.slug, detail=refusal.detail)
            return False
        except GameError as error:
            log.warning("bot move refused", move=move, detail=str(error))
            return False
        self.decided += 1
        log.info("bot moved", move=move, ms=round((time.perf_counter() - started) * 1000, 1))
        return True

    def turn(self, game_id: str) -> Turn | None:
        """The first pending seat of ``game_id`` a bot plays and can act for, if any (a game
        in which no bot plays any more is let go of: ``BotShare.done``)."""
        with self.games.game(game_id) as game:
            replay = game.replay
            if not plays(replay):
                self.share.done(game_id)
                return None
            external = replay.created.chance == "external"
            for pending in replay.rules.to_act(replay.state):
                level = replay.bot_of(pending.seat)
                if level is None or (external and pending.kind in CHANCE_KINDS):
                    continue
                moves = replay.rules.legal_moves(replay.state, pending.seat)
                created = replay.created
                return Turn(
                    pending.seat,
                    level,
                    replay.version,
                    moves,
                    created.ruleset,
                    created.ruleset_version,
                    replay.rules,
                )
        return None


def levels() -> BotList:
    """``GET /bots``: every level, weakest first."""
    return BotList(
        [
            BotInfo(level.name, level.description, level.version, list(level.rulesets))
            for level in bots.LEVELS
        ]
    )

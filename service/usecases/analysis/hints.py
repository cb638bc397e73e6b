"""A seat's hints (``GET /games/{id}/hints``): its legal moves ranked by the chance of winning
each keeps, judged from what that seat can see.

Only a seat asks, with its own token, in a game created with ``allow_hints`` (never a rated
game nor a tournament's), while the game runs. The log records each showing as ``HintsShown``
(the seat, the version judged at, the method), once per seat and position: asking again
before anything but showings happened records nothing more (``shown_at``), and a showing that
meets another write at the store is looked at again on the game as it then is (the same
seat's showing made meanwhile is found there), so concurrent reads append one and none of
them is a 409. The judging reads the log as the seat sees it
(other hands hidden), fills the hidden cards in as the bots do (``bots.knowledge``: each fill
consistent with what the seat has seen, fills seeded by the game, seat and version), and
values each move by the analysis model after it, averaged over the fills. The hidden cards
move a chance only where they change what happens automatically after the move (a hand laid
down), so the fills stop at ``SETTLED`` when each gave every move the same chance, and go on
to ``SAMPLES`` otherwise. A position's hints are kept in memory (``KEEP`` of them, by game,
seat and version): asking again judges nothing twice; so is each seat's log as it sees it,
read from the store past what its last hint read.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from functools import cache
from typing import Any

import msgspec

from analysis.game import Valuer
from analysis.model import Model, load
from bots.knowledge import fills as filled
from bots.latest import keep
from domain.events import Event, HintsShown, no_secrets
from domain.model import CHANCE_KINDS, GameError, Move
from domain.ruleset import RuleSet
from service.core.actor import GameCaller
from service.core.commands import ShowHints
from service.core.refusal import Refusal, refuse
from service.usecases.analysis.store import method
from service.usecases.games.commands import Commands
from service.usecases.games.repository import Repository
from service.usecases.games.seen import SeatLogs

SAMPLES = 8
"""Fills of the hidden cards a hint averages over at the most (one when nothing is hidden)."""
SETTLED = 2
"""Fills after which a hint stops when every fill gave each move the same chance."""
VALUES = 64
"""Moves valued by one hint at the most, over all its fills, but never fewer than ``SETTLED``
fills (a hand of many legal moves is judged on fewer fills)."""
KEEP = 256
"""Positions whose hints are kept in memory."""
LOGS_KEPT = 64
"""Games and seats whose logs as they see them are kept between hints."""
SHOW_ATTEMPTS = 64
"""Times a showing is tried on the game as it then is when another write came between (each
try that fails follows another write to the game: its seats would have to write this often
while one of them is to move)."""


class Hint(msgspec.Struct, frozen=True):
    """A legal move and the chance of winning it keeps; ``loss``: the best move's less its."""

    move: Move
    chance: float
    loss: float


class Hints(msgspec.Struct, frozen=True):
    """``GET /games/{id}/hints``: the seat's legal moves at ``judged_at``, best first;
    ``version``: the game's once the showing was recorded (what a move's
    ``expected_version`` names)."""

    game_id: str
    version: int
    judged_at: int
    seat: int
    method: str
    hints: list[Hint]


@cache
def model_of(ruleset: str) -> Model:
    """The analysis model of a rule set (read once)."""
    return load(ruleset)


class HintGiver:
    """Hints for the seats of the games of one repository, recorded through the commands."""

    def __init__(self, games: Repository, commands: Commands) -> None:
        self.games, self.commands = games, commands
        self.judged: OrderedDict[tuple[str, int, int], list[Hint]] = OrderedDict()
        self.logs = SeatLogs(games.store, LOGS_KEPT)

    def hints(self, game_id: str, token: GameCaller) -> Hints:
        """The caller's seat's legal moves ranked; refused for anyone but a seat, in a game
        without ``allow_hints``, and once the game is finished. A showing that meets another
        write at the store (another seat's showing, the same seat's asked at once, a move)
        is looked at again on the game as it then is: that is no 409 for a read."""
        for _ in range(SHOW_ATTEMPTS):
            seat, version, rules, moves = self.position(game_id, token)
            log = self.logs.seen_by(game_id, seat, rules, version)
            now, shown = version, shown_at(log, seat)
            if shown is not None:
                version = shown.version  # shown at this position already: judged alike
            elif moves:
                command = ShowHints(seat, method(), expected_version=version)
                try:
                    now = self.commands.write(game_id, token, "hints", command, None)[-1].version
                except Refusal as refusal:
                    if refusal.slug != "version-conflict":
                        raise
                    continue  # another write came between: look at the game again
            ranked = self.ranked(game_id, seat, version, log, moves, rules)
            return Hints(game_id, now, version, seat, method(), ranked)
        raise refuse("version-conflict", f"game {game_id} kept changing; ask again")

    def position(
        self, game_id: str, token: GameCaller
    ) -> tuple[int, int, RuleSet[Any], list[Move]]:
        """The caller's seat, the game's version, rules and the seat's legal moves (refused
        for anyone but a seat, without ``allow_hints``, once the game is finished)."""
        with self.games.game(game_id) as game:
            seat = game.role(token)
            if not isinstance(seat, int):
                raise refuse("forbidden", "hints are a seat's: ask with that seat's token")
            if not game.created.allow_hints:
                raise refuse("hints-not-allowed", f"game {game_id} was not created with hints")
            if game.finished:
                raise refuse("game-over", "the game is finished")
            return seat, game.version, game.rules, game.rules.legal_moves(game.replay.state, seat)

    def ranked(
        self,
        game_id: str,
        seat: int,
        version: int,
        log: list[Event],
        moves: list[Move],
        rules: RuleSet[Any],
    ) -> list[Hint]:
        """The hints of ``seat`` at ``version`` (of its ``log``), kept or judged now."""
        key = (game_id, seat, version)
        ranked = self.judged.pop(key, None)
        if ranked is None:
            samples = 1 if rules.redact is no_secrets else SAMPLES
            rng = random.Random(f"{game_id}:{seat}:{version}")
            ranked = rank(rules, log[:version], seat, moves, rng, samples)
        keep(self.judged, key, ranked, KEEP)
        return ranked


def shown_at(log: list[Event], seat: int) -> HintsShown | None:
    """The showing of ``seat``'s hints at the position ``log`` ends at, if any: a
    ``HintsShown`` of that seat since the last event of another kind (a showing changes
    nothing in the game, so other seats' showings leave the position as it was)."""
    for event in reversed(log):
        if not isinstance(event, HintsShown):
            return None
        if event.seat == seat:
            return event
    return None


def rank(
    rules: RuleSet[Any],
    seen: list[Event],
    seat: int,
    moves: list[Move],
    rng: random.Random,
    samples: int,
) -> list[Hint]:
    """``moves`` valued over at most ``samples`` fills of what ``seat`` cannot see (``SETTLED``
    when they all agree; fewer when that would value more than ``VALUES`` moves), best
    first."""
    if not moves:
        return []
    valuer = Valuer(rules, model_of(rules.NAME), by_view=samples > 1)
    totals = dict.fromkeys((m.id for m in moves), 0.0)
    fills, valued = 0, set()
    most = min(samples, max(SETTLED, VALUES // len(moves)))
    for replay in filled(seen, seat, rng, most):
        state = replay.state
        fills += 1
        values = tuple(kept(valuer, state, seat, move.id) for move in moves)
        valued.add(values)
        for move, found in zip(moves, values, strict=True):
            totals[move.id] += found
        if fills >= SETTLED and len(valued) == 1:
            break
    chances = {m: round(total / max(fills, 1), 4) for m, total in totals.items()}
    best = max(chances.values())
    order = sorted(moves, key=lambda m: (-chances[m.id], m.id))
    return [Hint(m, chances[m.id], round(best - chances[m.id], 4)) for m in order]


def kept(valuer: Valuer, state: Any, seat: int, move: str) -> float:
    """The chance ``seat`` keeps by ``move`` (a draw or roll: its chance now)."""
    if move in CHANCE_KINDS:
        return valuer.chances(state)[seat]
    try:
        return valuer.move_value(state, seat, move)[seat]
    except GameError:
        return 0.0

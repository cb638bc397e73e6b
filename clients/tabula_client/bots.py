"""Bots and a game runner that lets them play a whole game through the API.

The runner (``play_game_flow``, written once and played by either client) plays chance like
everything else: a seat whose only legal move is ``roll`` or ``draw`` posts that move, and
the server produces the outcome (``auto_chance`` is not used).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypedDict, Unpack

from tabula_client.client import AsyncClient, Client
from tabula_client.flows import Flow
from tabula_client.models import (
    CreatedGame,
    EventPage,
    GameView,
    LegalMoves,
    Move,
    Piece,
    PlayResult,
    StoredEvent,
)
from tabula_client.routes import Routes, bot_seat
from tabula_client.wire import PartnersView

DEFAULT_NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")
EventHandler = Callable[[StoredEvent], None]


class Bot(Protocol):
    """Chooses one of a seat's legal moves, seeing the game as that seat sees it."""

    def choose(self, view: GameView, moves: list[Move]) -> Move: ...


class RandomBot:
    """Picks a legal move uniformly at random (reproducibly, given a seed)."""

    def __init__(self, seed: int | str | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: GameView, moves: list[Move]) -> Move:
        """Any legal move."""
        if not moves:
            raise ValueError(f"no legal move to choose from in game {view.game_id}")
        return self._rng.choice(moves)


class GreedyBot:
    """Plays the move that scores best on what the API shows: its steps, effects and the
    board; no rules knowledge. Ties (and moves with no signal, such as card exchanges) are
    broken by a seeded random generator, so a seed replays the same choices.

    A move scores for bringing pieces home (``+home``), into their lane, out of ``start``,
    for sending opponents to ``start`` (a bump, a Sorry!, a capture) and for the squares its
    own pieces gain (slides included), less what it loses: own pieces sent back to ``start``,
    squares moved backwards, an ally's piece bumped, and pieces left where an opponent can
    reach them (within ``reach`` squares behind, on the shared track).
    """

    HOME = 100.0
    LANE = 30.0
    OUT_OF_START = 35.0
    BUMP = 60.0
    OWN_SENT_BACK = -80.0
    PER_SQUARE = 1.0
    PER_SQUARE_BACK = -1.5
    OPPONENT_PER_SQUARE_BACK = 0.5
    THREAT = -8.0

    def __init__(self, seed: int | str | None = None, *, reach: int = 12) -> None:
        self._rng = random.Random(seed)
        self.reach = reach

    def choose(self, view: GameView, moves: list[Move]) -> Move:
        """The best-scoring legal move (a seeded random one among equals)."""
        if not moves:
            raise ValueError(f"no legal move to choose from in game {view.game_id}")
        board = Board.of(view, moves)
        shuffled = self._rng.sample(moves, len(moves))
        return max(shuffled, key=lambda move: self.score(board, move))

    def score(self, board: Board, move: Move) -> float:
        """How good ``move`` looks for its seat on ``board``."""
        seat, total = move.seat, 0.0
        after = dict(board.at)
        for step in move.steps:
            total += self.progress(board, step.from_, step.to)
            after[step.piece] = step.to
        for effect in move.effects:
            owner = board.owner.get(effect.piece, -1)
            after[effect.piece] = effect.to
            if owner == seat:
                total += self.progress(board, effect.from_, effect.to)
            elif effect.to == "start" and effect.from_ != "start":
                total += -self.BUMP if owner in board.allies(seat) else self.BUMP
            elif owner not in board.allies(seat):
                gain = board.distance(effect.from_, effect.to)
                total -= self.OPPONENT_PER_SQUARE_BACK * gain
        moved = {step.piece for step in move.steps}
        for piece in moved | {e.piece for e in move.effects if board.owner.get(e.piece) == seat}:
            total += self.THREAT * (
                board.threats(after, piece, seat, self.reach)
                - board.threats(board.at, piece, seat, self.reach)
            )
        return total

    def progress(self, board: Board, start: str, end: str) -> float:
        """What moving one of the bot's own pieces from ``start`` to ``end`` is worth."""
        if end == "start":
            return 0.0 if start == "start" else self.OWN_SENT_BACK
        if end == "home":
            return self.HOME
        if start == "start":
            return self.OUT_OF_START
        value = 0.0
        if end.startswith("lane:") and not start.startswith("lane:"):
            value += self.LANE
        if start.startswith("lane:") and not end.startswith("lane:"):
            value -= self.LANE
        squares = board.distance(start, end)
        weight = self.PER_SQUARE if squares >= 0 else -self.PER_SQUARE_BACK
        return value + weight * squares


class Board:
    """What the bot reads off a view: where each piece is, whose it is, the track's size."""

    BIG_JUMP = 30
    """A move along the track longer than this is taken as going round the other way."""

    def __init__(self, pieces: list[Piece], teams: list[list[int]], loop: int) -> None:
        self.at = {piece.id: piece.at for piece in pieces}
        self.owner = {piece.id: piece.seat for piece in pieces}
        self.teams = teams
        self.loop = loop

    @classmethod
    def of(cls, view: GameView, moves: list[Move]) -> Board:
        """The board of ``view``; the loop's size is estimated from every track square seen."""
        squares = [square(piece.at) for piece in view.pieces]
        squares += [square(s.from_) for m in moves for s in m.steps]
        squares += [square(s.to) for m in moves for s in m.steps]
        seen = [n for n in squares if n is not None]
        loop = max(seen, default=0) + (1 if 0 in seen else 0)
        teams = view.teams if isinstance(view, PartnersView) else []
        return cls(view.pieces, teams, max(loop, 2 * cls.BIG_JUMP))

    def allies(self, seat: int) -> set[int]:
        """The seat and its partners (from the view's ``teams``, when it has them)."""
        for team in self.teams:
            if seat in team:
                return set(team)
        return {seat}

    def distance(self, start: str, end: str) -> int:
        """Squares gained from ``start`` to ``end`` (negative going backwards), roughly."""
        a, b = square(start), square(end)
        if a is not None and b is not None:
            delta = b - a
            if delta > self.BIG_JUMP:
                return delta - self.loop
            if delta < -self.BIG_JUMP:
                return delta + self.loop
            return delta
        if start.startswith("lane:") and end.startswith("lane:"):
            return int(end[5:]) - int(start[5:])
        if end.startswith("lane:"):
            return int(end[5:]) + 3
        if start.startswith("lane:"):
            return -int(start[5:]) - 3
        return 0

    def threats(self, at: dict[str, str], piece: str, seat: int, reach: int) -> int:
        """Opponent pieces that could land on ``piece`` (within ``reach`` squares behind it)."""
        target = square(at.get(piece, ""))
        if target is None:
            return 0
        allies = self.allies(seat)
        count = 0
        for other, where in at.items():
            origin = square(where)
            if origin is None or self.owner.get(other, seat) in allies:
                continue
            if 0 < (target - origin) % self.loop <= reach:
                count += 1
        return count


def square(position: str) -> int | None:
    """N for ``track:N``; ``None`` off the shared track."""
    if position.startswith("track:"):
        try:
            return int(position[6:])
        except ValueError:
            return None
    return None


class GameStuck(RuntimeError):
    """The game is active but no seat has a legal move (a server bug, or another actor)."""


def seat_names(players: int | Sequence[str]) -> list[str]:
    """The names for ``players``: given names, or ``Ann``, ``Bob``, ... for a count."""
    if not isinstance(players, int):
        return list(players)
    return [
        DEFAULT_NAMES[i] if i < len(DEFAULT_NAMES) else f"Player {i + 1}" for i in range(players)
    ]


def seat_bots(
    count: int, bots: Sequence[Bot] | Mapping[int, Bot] | None, seed: int | str | None
) -> dict[int, Bot]:
    """A bot for every seat: the given ones, and ``RandomBot``s (seeded from ``seed``) for the
    rest."""
    given: Mapping[int, Bot] = dict(enumerate(bots)) if isinstance(bots, Sequence) else bots or {}
    return {
        seat: given.get(seat) or RandomBot(None if seed is None else f"{seed}:{seat}")
        for seat in range(count)
    }


def pending_seats(view: GameView) -> list[int]:
    """The seats that must act, each once, in order."""
    return sorted({pending.seat for pending in view.to_act})


class EventFeed:
    """Hands every event of a game to a handler exactly once, in order, without gaps."""

    def __init__(self, handler: EventHandler | None) -> None:
        self.handler = handler
        self.seen = 0

    def continues(self, result: PlayResult) -> bool:
        """Whether ``result``'s events follow on from the last event seen (no gap)."""
        if self.handler is None or result.version <= self.seen:
            return True
        versions = [event.version for event in result.events]
        return versions == list(range(self.seen + 1, result.version + 1))

    def emit(self, events: Sequence[StoredEvent]) -> None:
        """Pass on the events not seen yet."""
        for event in events:
            if self.handler is not None and event.version > self.seen:
                self.handler(event)
                self.seen = event.version


def server_seed(seed: int | str | None) -> str | None:
    """The chance seed to send for ``seed``."""
    return None if seed is None else str(seed)


class Playing(TypedDict, total=False):
    """How ``play_game`` sets up and plays a game (all optional)."""

    options: Mapping[str, Any] | None
    bots: Sequence[Bot] | Mapping[int, Bot] | None
    server_bots: Mapping[int, str] | None
    seed: int | str | None
    on_event: EventHandler | None


def play_game_flow(
    routes: Routes,
    ruleset: str,
    players: int | Sequence[str],
    *,
    options: Mapping[str, Any] | None = None,
    bots: Sequence[Bot] | Mapping[int, Bot] | None = None,
    server_bots: Mapping[int, str] | None = None,
    seed: int | str | None = None,
    on_event: EventHandler | None = None,
) -> Flow[GameView]:
    """Create a game and let bots play it to the end; the final view (as the referee sees
    it). A flow: ``Client.run`` or ``AsyncClient.run`` plays it.

    ``server_bots`` seats the server's own bots: a level (``GET /bots``) by seat number; the
    server plays those seats, this flow the others. ``seed`` fixes both the server's chance
    seed and the default bots, so a game replays.
    """
    names = seat_names(players)
    levels = server_bots or {}
    seats = [bot_seat(name, levels[n]) if n in levels else name for n, name in enumerate(names)]
    created: CreatedGame = yield routes.create_game(
        ruleset, seats, options=options, chance="server", seed=server_seed(seed)
    )
    referee = routes.with_token(created.tokens.referee)
    players_bots = seat_bots(len(names), bots, seed)
    tokens = [token or "" for token in created.tokens.seats]  # seated by name: each has one
    return (
        yield from play_table_flow(
            referee, created.id, tokens, bots=players_bots, on_event=on_event
        )
    )


def play_table_flow(
    watcher: Routes,
    game_id: str,
    seat_tokens: Sequence[str],
    *,
    bots: Sequence[Bot] | Mapping[int, Bot] | None = None,
    seed: int | str | None = None,
    on_event: EventHandler | None = None,
) -> Flow[GameView]:
    """Let bots play a game that exists (a tournament's table, say) to the end, each seat with
    its token; the final view as ``watcher`` (the referee, or anyone once it has finished)
    sees it. A flow, like ``play_game_flow``."""
    seats = [watcher.with_token(token) for token in seat_tokens]
    players_bots = seat_bots(len(seats), bots, seed)
    feed = EventFeed(on_event)
    if on_event is not None:
        yield from _catch_up(watcher, game_id, feed)
    view: GameView = yield watcher.game(game_id)
    latest: tuple[int, PlayResult] | None = None  # the last write: by which seat, its reply
    while not view.is_finished:
        last = None
        if not (ours := [seat for seat in pending_seats(view) if not view.seats[seat].bot]):
            view = yield watcher.game(game_id)  # the server's bots are to act: look again
            if on_event is not None:
                yield from _catch_up(watcher, game_id, feed)
            continue
        for seat in ours:
            own = latest[1] if latest is not None and latest[0] == seat else None
            result = yield from _play_turn(seats[seat], players_bots[seat], game_id, own)
            if result is not None:
                last, latest = result, (seat, result)
                if feed.continues(result):
                    feed.emit(result.events)
                else:
                    yield from _catch_up(watcher, game_id, feed)
        if last is None:
            raise GameStuck(f"game {game_id} is {view.status} but no seat can move")
        assert last.state is not None  # bots play with whole replies: they choose from the state
        view = last.state
    final: GameView = yield watcher.game(game_id)
    return final


def _play_turn(
    seat: Routes, bot: Bot, game_id: str, own: PlayResult | None
) -> Flow[PlayResult | None]:
    """One seat's move, chosen by its bot from its legal moves (``None`` if it has none).

    ``own`` is the reply to this seat's own write when nothing was written since: its state
    and legal moves spare the two reads (a roll, then the move it allows).
    """
    if own is not None and own.legal_moves and own.state is not None:
        move = bot.choose(own.state, own.legal_moves)
        played: PlayResult = yield seat.play(game_id, move, expected_version=own.version)
        return played
    legal: LegalMoves = yield seat.legal_moves(game_id)
    if not legal.moves:
        return None
    view: GameView = yield seat.game(game_id)
    result: PlayResult = yield seat.play(
        game_id, bot.choose(view, legal.moves), expected_version=legal.version
    )
    return result


def _catch_up(referee: Routes, game_id: str, feed: EventFeed) -> Flow[None]:
    """Feed the log from the last event seen to the current version, page by page."""
    while feed.handler is not None:
        page: EventPage = yield referee.events(game_id, after=feed.seen)
        feed.emit(page.events)
        if not page.events or feed.seen >= page.version:
            return


def play_game(
    client: Client, ruleset: str, players: int | Sequence[str], **settings: Unpack[Playing]
) -> GameView:
    """``play_game_flow`` played by ``client``: the final view."""
    return client.run(play_game_flow(client.routes, ruleset, players, **settings))


async def play_game_async(
    client: AsyncClient, ruleset: str, players: int | Sequence[str], **settings: Unpack[Playing]
) -> GameView:
    """``play_game_flow`` played by an ``AsyncClient``: the final view."""
    return await client.run(play_game_flow(client.routes, ruleset, players, **settings))

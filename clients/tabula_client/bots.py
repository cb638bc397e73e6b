"""Bots and a game runner that lets them play a whole game through the API.

The runner plays chance like everything else: a seat whose only legal move is ``roll`` or
``draw`` posts that move, and the server produces the outcome (``auto_chance`` is not used).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from tabula_client.client import AsyncClient, Client
from tabula_client.models import CreatedGame, GameView, Move, PlayResult, StoredEvent

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


def play_game(
    client: Client,
    ruleset: str,
    players: int | Sequence[str],
    *,
    options: Mapping[str, Any] | None = None,
    bots: Sequence[Bot] | Mapping[int, Bot] | None = None,
    seed: int | str | None = None,
    on_event: EventHandler | None = None,
) -> GameView:
    """Create a game and let bots play it to the end; the final view (as the referee sees it).

    ``seed`` fixes both the server's chance seed and the default bots, so a game replays.
    """
    names = seat_names(players)
    created = client.create_game(
        ruleset, names, options=options, chance="server", seed=server_seed(seed)
    )
    referee = client.with_token(created.tokens.referee)
    seats = [client.with_token(token) for token in created.tokens.seats]
    players_bots = seat_bots(len(names), bots, seed)
    feed = EventFeed(on_event)
    if on_event is not None:
        _catch_up(referee, created.id, feed)
    view = referee.game(created.id)
    while not view.is_finished:
        last = None
        for seat in pending_seats(view):
            result = _play_turn(seats[seat], players_bots[seat], created)
            if result is not None:
                last = result
                if feed.continues(result):
                    feed.emit(result.events)
                else:
                    _catch_up(referee, created.id, feed)
        if last is None:
            raise GameStuck(f"game {created.id} is {view.status} but no seat can move")
        view = last.state
    return referee.game(created.id)


def _play_turn(seat: Client, bot: Bot, created: CreatedGame) -> PlayResult | None:
    """One seat's move, chosen by its bot from its legal moves (``None`` if it has none)."""
    legal = seat.legal_moves(created.id)
    if not legal.moves:
        return None
    move = bot.choose(seat.game(created.id), legal.moves)
    return seat.play(created.id, move, expected_version=legal.version)


def _catch_up(referee: Client, game_id: str, feed: EventFeed) -> None:
    """Feed the log from the last event seen to the current version, page by page."""
    while feed.handler is not None:
        page = referee.events(game_id, after=feed.seen)
        feed.emit(page.events)
        if not page.events or feed.seen >= page.version:
            return


async def play_game_async(
    client: AsyncClient,
    ruleset: str,
    players: int | Sequence[str],
    *,
    options: Mapping[str, Any] | None = None,
    bots: Sequence[Bot] | Mapping[int, Bot] | None = None,
    seed: int | str | None = None,
    on_event: EventHandler | None = None,
) -> GameView:
    """The mirror of ``play_game`` for ``AsyncClient``."""
    names = seat_names(players)
    created = await client.create_game(
        ruleset, names, options=options, chance="server", seed=server_seed(seed)
    )
    referee = client.with_token(created.tokens.referee)
    seats = [client.with_token(token) for token in created.tokens.seats]
    players_bots = seat_bots(len(names), bots, seed)
    feed = EventFeed(on_event)
    if on_event is not None:
        await _catch_up_async(referee, created.id, feed)
    view = await referee.game(created.id)
    while not view.is_finished:
        last = None
        for seat in pending_seats(view):
            result = await _play_turn_async(seats[seat], players_bots[seat], created)
            if result is not None:
                last = result
                if feed.continues(result):
                    feed.emit(result.events)
                else:
                    await _catch_up_async(referee, created.id, feed)
        if last is None:
            raise GameStuck(f"game {created.id} is {view.status} but no seat can move")
        view = last.state
    return await referee.game(created.id)


async def _play_turn_async(seat: AsyncClient, bot: Bot, created: CreatedGame) -> PlayResult | None:
    legal = await seat.legal_moves(created.id)
    if not legal.moves:
        return None
    move = bot.choose(await seat.game(created.id), legal.moves)
    return await seat.play(created.id, move, expected_version=legal.version)


async def _catch_up_async(referee: AsyncClient, game_id: str, feed: EventFeed) -> None:
    while feed.handler is not None:
        page = await referee.events(game_id, after=feed.seen)
        feed.emit(page.events)
        if not page.events or feed.seen >= page.version:
            return

"""Live events as Server-Sent Events: each event once, redacted per viewer, resumable."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import anyio
import msgspec
from litestar.response import ServerSentEventMessage

from domain.model import Viewer
from eventstore import StoredEvent
from service.games import Game, Games
from service.views import event_out

POLL_SECONDS = 0.1
KEEPALIVE_SECONDS = 15.0
PAGE = 200


async def game_events(
    games: Games, game_id: str, viewer: Viewer, after: int
) -> AsyncIterator[ServerSentEventMessage]:
    """Events after version ``after`` as they are appended; ends once the game has finished.

    The log is polled, so the stream also sees writes of other service processes.
    """
    cursor, quiet_since = after, time.monotonic()
    while True:
        game, stored, finished = await anyio.to_thread.run_sync(_next_page, games, game_id, cursor)
        for event in stored:
            cursor = event.version
            shown = event_out(game, event, viewer)
            data = msgspec.json.encode(shown).decode()
            yield ServerSentEventMessage(data=data, event=event.type, id=event.version)
        if stored:
            quiet_since = time.monotonic()
            continue
        if finished:
            return
        if time.monotonic() - quiet_since > KEEPALIVE_SECONDS:
            quiet_since = time.monotonic()
            yield ServerSentEventMessage(comment="keep-alive", data=None)
        await anyio.sleep(POLL_SECONDS)


def _next_page(games: Games, game_id: str, cursor: int) -> tuple[Game, list[StoredEvent], bool]:
    """The game, its events after ``cursor``, and whether it finished with nothing new."""
    with games.open(game_id) as game:
        finished = game.finished and game.version <= cursor
    return game, games.store.read(game_id, after=cursor, limit=PAGE), finished

"""Reading a whole log through the client: ``GET /games/{id}/events`` is paged."""

from __future__ import annotations

from tabula_client import AsyncClient, Client, StoredEvent


def whole_log(client: Client, game_id: str) -> list[StoredEvent]:
    """Every event of the game, page by page (a long game has more than one page)."""
    events: list[StoredEvent] = []
    while page := client.events(game_id, after=len(events)).events:
        events += page
    return events


async def whole_log_async(client: AsyncClient, game_id: str) -> list[StoredEvent]:
    """``whole_log`` through the async client."""
    events: list[StoredEvent] = []
    while page := (await client.events(game_id, after=len(events))).events:
        events += page
    return events

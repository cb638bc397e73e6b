"""AsyncClient against the real app in-process through httpx's ASGI transport."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from tabula_client import AsyncClient, Conflict, StoredEvent, play_game_async


async def create_read_and_play(transport: httpx.ASGITransport) -> None:
    async with AsyncClient("http://tabula.test", transport=transport) as client:
        assert (await client.health()).status == "ok"
        created = await client.create_game("race35", ["Ann", "Bob"], tags={"cup": "x"})
        view = await client.game(created.id)
        assert [p.kind for p in view.to_act] == ["roll"]
        ann = client.with_token(created.tokens.seats[0])
        legal = await ann.legal_moves(created.id)
        result = await ann.play(created.id, legal.moves[0], expected_version=legal.version)
        assert result.version == (await client.events(created.id)).version
        assert [g.id for g in await client.list_games(tag="cup:x")] == [created.id]
        with pytest.raises(Conflict) as stale:
            await ann.play(created.id, "roll", expected_version=legal.version)
        assert stale.value.problem.extra["current_version"] == result.version


async def bots_finish_a_game(transport: httpx.ASGITransport) -> None:
    seen: list[StoredEvent] = []
    async with AsyncClient("http://tabula.test", transport=transport) as client:
        final = await play_game_async(client, "race35", 4, seed=3, on_event=seen.append)
    assert final.status == "finished" and len(final.winners) == 1
    assert [e.version for e in seen] == list(range(1, final.version + 1))


async def bots_finish_every_ruleset(transport: httpx.ASGITransport) -> None:
    async with AsyncClient("http://tabula.test", transport=transport) as client:
        for info in await client.rulesets():
            final = await play_game_async(client, info.name, info.min_players, seed=11)
            assert final.status == "finished", info.name
            assert final.winners, info.name


def test_async_client_creates_reads_and_plays(transport: httpx.ASGITransport) -> None:
    asyncio.run(create_read_and_play(transport))


def test_async_bots_play_race35_to_a_winner(transport: httpx.ASGITransport) -> None:
    asyncio.run(bots_finish_a_game(transport))


@pytest.mark.slow
def test_random_bots_finish_every_ruleset_the_server_offers(
    transport: httpx.ASGITransport,
) -> None:
    asyncio.run(bots_finish_every_ruleset(transport))

"""The clients' ``analysis()`` and ``hints()`` against the real app."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from tabula_client import AsyncClient, Client, Forbidden, play_game
from tabula_client.wire import GameAnalysis, Hints, Progress

from tests.waiting import wait_until


def analysed(client: Client, game_id: str) -> GameAnalysis:
    """The analysis once computed (asking again through the 202s)."""

    def done() -> GameAnalysis | None:
        found = client.analysis(game_id)
        if isinstance(found, GameAnalysis):
            return found
        assert isinstance(found, Progress) and found.done <= found.total
        return None

    return wait_until(done, timeout=30, message="the analysis did not finish", interval=0.05)


def test_the_client_reads_a_finished_games_analysis(client: Client) -> None:
    final = play_game(client, "race35", 2, seed=5)
    assert final.status == "finished"
    found = analysed(client, final.game_id)
    assert found.game_id == final.game_id and found.version == final.version
    assert found.positions and len(found.luck) == len(found.lost) == 2
    assert {d.version for d in found.decisions} <= {p.version for p in found.positions}
    assert client.analysis(final.game_id) == found


def test_a_seats_client_gets_hints_in_a_game_that_allows_them(client: Client) -> None:
    created = client.create_game("race35", ["Ann", "Bo"], allow_hints=True, rated=False)
    ann = client.with_token(created.tokens.seats[0])
    hints = ann.hints(created.id)
    assert isinstance(hints, Hints) and hints.seat == 0
    legal = ann.legal_moves(created.id)
    assert [h.move.id for h in hints.hints] == [m.id for m in legal.moves]
    with pytest.raises(Forbidden):
        client.hints(created.id)


async def hints_async(transport: httpx.ASGITransport) -> Hints:
    async with AsyncClient("http://tabula.test", transport=transport) as client:
        created = await client.create_game("sorry", ["Ann", "Bo"], allow_hints=True, rated=False)
        return await client.with_token(created.tokens.seats[0]).hints(created.id)


def test_the_async_client_gets_hints(transport: httpx.ASGITransport) -> None:
    assert asyncio.run(hints_async(transport)).seat == 0

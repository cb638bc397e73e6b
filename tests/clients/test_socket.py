"""The client's game sockets, sync and async, against the real app on uvicorn."""

from __future__ import annotations

import asyncio

import pytest
from tabula_client import AsyncClient, Client, Conflict, GameSocket, SocketClosed


def whole_log(client: Client, game_id: str) -> list[int]:
    """Every version of the game's log, page after page (a race35 game can pass one page)."""
    versions: list[int] = []
    while True:
        page = client.events(game_id, after=versions[-1] if versions else 0)
        if not page.events:
            return versions
        versions += [event.version for event in page.events]


def test_a_whole_game_played_over_the_sync_socket(server_url: str) -> None:
    with Client(server_url) as lobby:
        created = lobby.create_game("race35", ["Ann", "Bob"])
    referee = Client(server_url, token=created.tokens.referee)
    with referee.socket(created.id) as live:
        assert live.welcome.role == "referee"
        legal = referee.legal_moves(created.id)
        while legal.moves:
            move = legal.moves[0]
            played = live.play(move.id, seat=move.seat, expected_version=legal.version)
            legal = played.legal_moves
        log = whole_log(referee, created.id)
        assert [e.version for e in live.events(timeout=0.2)] == log
        assert live.version == log[-1]
    referee.close()


def test_a_refused_play_raises_the_error_http_would(server_url: str) -> None:
    with Client(server_url) as lobby:
        created = lobby.create_game("sorry", ["Ann", "Bob"])
    with GameSocket(server_url, created.id, created.tokens.seats[1]) as live:
        with pytest.raises(Conflict) as refused:
            live.play("draw")
        assert refused.value.problem.slug == "not-your-turn"


def test_a_socket_with_a_made_up_token_is_closed_4401(server_url: str) -> None:
    with Client(server_url) as lobby:
        created = lobby.create_game("sorry", ["Ann", "Bob"])
    with pytest.raises(SocketClosed) as closed:
        GameSocket(server_url, created.id, "made-up").open()
    assert closed.value.code == 4401


def test_the_async_socket_sees_a_move_made_over_http(server_url: str) -> None:
    async def scenario() -> None:
        async with AsyncClient(server_url) as lobby:
            created = await lobby.create_game("sorry", ["Ann", "Bob"])
        ann = AsyncClient(server_url, token=created.tokens.seats[0])
        async with AsyncClient(server_url).with_token(None).socket(created.id) as watching:
            played = await ann.play(created.id, "draw")
            seen = [event async for event in watching.events(timeout=1)]
            assert [e.version for e in seen] == list(range(1, played.version + 1))
        async with ann.socket(created.id, after=played.version) as again:
            assert again.welcome.seat == 0
            assert [event async for event in again.events(timeout=0.2)] == []
        await ann.aclose()

    asyncio.run(scenario())

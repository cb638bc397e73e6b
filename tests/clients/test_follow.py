"""``follow``: the live event stream (Server-Sent Events), resumed after a dropped connection."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Iterator

import httpx
import pytest
from tabula_client import (
    AsyncClient,
    Client,
    CreatedGame,
    GameView,
    NotFound,
    StoredEvent,
    play_game,
)
from tabula_client.sse import Decoder, Message, messages

from tests.clients.logs import whole_log, whole_log_async


def play_to_end(client: Client, created: CreatedGame, seed: int = 1) -> int:
    """Play random legal moves for whoever must act until the game ends; the last version."""
    rng = random.Random(seed)
    seats = [client.with_token(token) for token in created.tokens.seats]
    view = client.game(created.id)
    while not view.is_finished:
        seat = seats[view.to_act[0].seat]
        legal = seat.legal_moves(created.id)
        view = seat.play(created.id, rng.choice(legal.moves), expected_version=legal.version).state
    return view.version


def versions(events: list[StoredEvent]) -> list[int]:
    return [event.version for event in events]


@pytest.fixture(scope="module")
def finished(server_url: str) -> GameView:
    """A finished three-player race35 game."""
    with Client(server_url) as client:
        return play_game(client, "race35", 3, seed=9)


def test_follow_of_a_finished_game_gives_its_whole_log_then_ends(
    client: Client, finished: GameView
) -> None:
    final = finished
    followed = list(client.follow(final.game_id))
    assert followed == whole_log(client, final.game_id)
    assert followed[-1].type == "SeedRevealed"


def test_follow_of_a_game_longer_than_a_page_gives_every_event(client: Client) -> None:
    # The seed makes a race35 game of 1,622 events (the red square restarts it), more than a
    # page of GET /events (1,000 by default).
    created = client.create_game("race35", ["Ann", "Bob"], auto_chance=True, seed="long-3")
    log = whole_log(client, created.id)
    assert len(log) > len(client.events(created.id).events)
    assert list(client.follow(created.id)) == log


def test_follow_after_n_starts_with_event_n_plus_one(client: Client, finished: GameView) -> None:
    final = finished
    assert versions(list(client.follow(final.game_id, after=5))) == list(
        range(6, final.version + 1)
    )


def test_follow_sees_a_live_game_to_its_end(client: Client) -> None:
    created = client.create_game("ludo", ["Ann", "Bob"], auto_chance=True, seed="live")
    seen: list[StoredEvent] = []
    watcher = threading.Thread(target=lambda: seen.extend(client.follow(created.id)))
    watcher.start()
    last = play_to_end(client, created)
    watcher.join(timeout=30)
    assert not watcher.is_alive()
    assert versions(seen) == list(range(1, last + 1))


def test_follow_of_an_unknown_game_raises_not_found(client: Client) -> None:
    with pytest.raises(NotFound):
        next(client.follow("no-such-game"))


class DroppingTransport(httpx.BaseTransport):
    """Cuts the first stream after its first chunk; records each request's Last-Event-ID."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.last_event_ids: list[str | None] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if not request.url.path.endswith("/stream"):
            return response
        self.last_event_ids.append(request.headers.get("last-event-id"))
        if len(self.last_event_ids) > 1:
            return response
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=CutStream(response.stream),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self.inner.close()


class CutStream(httpx.SyncByteStream):
    """The first chunk of a stream, then a dropped connection."""

    def __init__(self, inner: httpx.SyncByteStream) -> None:
        self.inner = inner

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            yield chunk
            raise httpx.ReadError("connection dropped")

    def close(self) -> None:
        self.inner.close()


def test_follow_resumes_after_the_last_event_when_the_connection_drops(
    server_url: str, finished: GameView
) -> None:
    final = finished
    transport = DroppingTransport()
    with Client(server_url, transport=transport) as flaky:
        followed = list(flaky.follow(final.game_id))
    assert versions(followed) == list(range(1, final.version + 1))
    first_cut = transport.last_event_ids[1]
    assert transport.last_event_ids[0] is None and first_cut is not None
    assert 1 <= int(first_cut) < final.version


async def follow_async(client: AsyncClient, game_id: str, after: int = 0) -> list[StoredEvent]:
    return [event async for event in client.follow(game_id, after=after)]


def test_async_follow_in_process_of_a_finished_game(transport: httpx.ASGITransport) -> None:
    # httpx's ASGI transport hands over a response once the app has sent all of it, so
    # in process only a finished game's stream can be followed; live is tested over TCP.
    async def run() -> None:
        async with AsyncClient("http://tabula.test", transport=transport) as client:
            created = await client.create_game("race35", ["Ann", "Bob"], auto_chance=True)
            assert await follow_async(client, created.id) == await whole_log_async(
                client, created.id
            )
            assert versions(await follow_async(client, created.id, after=3))[0] == 4

    asyncio.run(run())


def test_async_follow_sees_a_live_game_to_its_end(client: Client, server_url: str) -> None:
    created = client.create_game("parchis-2dice", ["Ann", "Bob"], auto_chance=True, seed="a")

    async def watch() -> list[StoredEvent]:
        async with AsyncClient(server_url) as spectator:
            return await follow_async(spectator, created.id)

    seen: list[StoredEvent] = []
    watcher = threading.Thread(target=lambda: seen.extend(asyncio.run(watch())))
    watcher.start()
    last = play_to_end(client, created)
    watcher.join(timeout=30)
    assert not watcher.is_alive()
    assert versions(seen) == list(range(1, last + 1))


def test_sse_decoder_joins_data_lines_and_skips_comments() -> None:
    lines = [": keep-alive", "", "id: 3", "event: MovePlayed", "data: {", "data: }", "", "x"]
    assert list(messages(lines)) == [Message("{\n}", "MovePlayed", "3")]


def test_sse_decoder_keeps_the_last_id_and_needs_data_to_dispatch() -> None:
    decoder = Decoder()
    assert [decoder.feed(line) for line in ("id: 7", "event: x", "")] == [None, None, None]
    assert decoder.feed("data:no space") is None
    assert decoder.feed("") == Message("no space", "message", "7")

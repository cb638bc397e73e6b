"""A player's feed through the Python client (``Client.feed``), against the real app on
uvicorn: the notes that stand when it opens, each note as it comes, a dropped connection
resumed after the greatest id received (nothing lost, nothing twice), a feed opened again
after ``last``, and a replaced key ending it (4401 ``key-revoked``, not retried)."""

from __future__ import annotations

import asyncio
import secrets

import pytest
from tabula_client import AsyncClient, Client, Note, SocketClosed, player_seat

NO_SPECIAL_SQUARES: dict[str, object] = {"special_squares": {}}


def player(anyone: Client, stem: str) -> tuple[str, Client]:
    """A fresh registered player: her handle, and a client acting with her key."""
    registered = anyone.register_player(f"{stem}-{secrets.token_hex(4)}")
    return registered.handle, anyone.with_token(registered.key)


def duel(anyone: Client, first: str, second: str) -> str:
    """A race35 game (every move a roll) of two registered players; its id."""
    seats = [player_seat(first), player_seat(second)]
    return anyone.create_game("race35", seats, options=NO_SPECIAL_SQUARES).id


def kinds(notes: list[Note], game_id: str) -> list[str]:
    return [note.kind for note in notes if note.game_id == game_id]


def test_the_feed_pushes_her_notes_and_resumes_after_a_drop(client: Client) -> None:
    ann_handle, ann = player(client, "ann")
    bob_handle, bob = player(client, "bob")
    with ann.feed() as feed:
        assert feed.handle == ann_handle
        game = duel(client, ann_handle, bob_handle)
        notes = [next(iter(feed.notes(timeout=10))) for _ in range(2)]
        assert kinds(notes, game) == ["game-started", "your-turn"]
        assert notes[1].pending == ["roll"] and notes[1].seat == 0
        ann.play(game, "roll")
        bob.play(game, "roll")
        assert feed.connection is not None
        feed.connection.close()  # dropped: notes() opens it again after the last id
        again = next(iter(feed.notes(timeout=10)))
    assert (again.kind, again.game_id, again.seat) == ("your-turn", game, 0)
    assert again.id > notes[-1].id
    with ann.feed(after=again.id) as resumed:
        assert list(resumed.notes(timeout=0.5)) == []  # nothing after it yet, nothing twice


def test_a_replaced_key_ends_the_feed(client: Client) -> None:
    _, ann = player(client, "ann")
    with ann.feed() as feed:
        ann.rotate_key()
        with pytest.raises(SocketClosed) as closed:
            list(feed.notes(timeout=10))
    assert closed.value.key_revoked


def test_the_async_feed_takes_what_stands_now(server_url: str) -> None:
    asyncio.run(what_stands(server_url))


async def what_stands(server_url: str) -> None:
    """An async feed opened on a game already created: its start and her turn."""
    async with AsyncClient(server_url) as anyone:
        registered = [await anyone.register_player(f"p-{secrets.token_hex(4)}") for _ in "ab"]
        first, second = (r.handle for r in registered)
        seats = [player_seat(first), player_seat(second)]
        game = (await anyone.create_game("race35", seats, options=NO_SPECIAL_SQUARES)).id
        async with anyone.with_token(registered[0].key).feed() as feed:
            notes = []
            async for note in feed.notes(timeout=10):
                notes.append(note)
                if len(notes) == 2:
                    break
    assert kinds(notes, game) == ["game-started", "your-turn"]

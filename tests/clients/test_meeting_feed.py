"""A player's feed over Server-Sent Events through the Python client (``stream_notes``, ``GET
/me/stream``), against the real app on uvicorn: an invitation comes as a note, the feed opened
again after its id goes on with what came since (the table started), and a key that is not a
player's is refused. (``Client.feed()``, the same notes over the socket, is tested in
tests/clients/test_feed.py.)"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from itertools import islice

import pytest
from tabula_client import Client, Unauthorized, invite_seat, player_seat

from tests.clients.conftest import make_app
from tests.live import serving


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    app = make_app(tmp_path_factory.mktemp("feed"), create_rate=1000.0, create_burst=100_000)
    with serving(app) as served:
        yield served


def test_the_notes_stream_tells_an_invitation_and_resumes_after_its_id(url: str) -> None:
    with Client(url) as anyone:
        ann_handle, bob_handle = (f"{stem}-{secrets.token_hex(4)}" for stem in ("ann", "bob"))
        ann = anyone.with_token(anyone.register_player(ann_handle).key)
        bob = anyone.with_token(anyone.register_player(bob_handle).key)
        table = bob.create_game("race35", [player_seat(bob_handle), invite_seat(ann_handle)])
        [invited] = islice(ann.stream_notes(), 1)
        assert (invited.kind, invited.game_id, invited.seat) == ("invitation", table.id, 1)

        ann.join_table(table.id)  # the last seat: the table starts
        [started] = islice(ann.stream_notes(after=invited.id), 1)
        assert (started.kind, started.game_id) == ("game-started", table.id)
        assert started.id > invited.id


def test_the_notes_stream_refuses_a_credential_that_is_no_players_key(url: str) -> None:
    with Client(url) as anyone, pytest.raises(Unauthorized):
        next(anyone.stream_notes())

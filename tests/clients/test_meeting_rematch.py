"""A rematch through both clients, against the real app on uvicorn: after a finished game
between a registered player and a guest, the guest asks for the next table (``rematch``: her
new seat's token), the player asks too and gets the same table, and it starts with the seats
turned by one; from TypeScript, ``rematch`` posts to its route and unwraps the reply (its own
stand-in tests)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from tabula_client import Client, Conflict, play_table_flow, player_seat

from tests.clients.conftest import make_app
from tests.live import serving

NO_SPECIAL_SQUARES: dict[str, object] = {"special_squares": {}}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    app = make_app(tmp_path_factory.mktemp("rematch"), create_rate=1000.0, create_burst=100_000)
    with serving(app) as served:
        yield served


def test_a_guest_and_a_player_rematch_a_finished_game_at_one_table(url: str) -> None:
    with Client(url) as anyone:
        handle = f"ann-{secrets.token_hex(4)}"
        key = anyone.register_player(handle).key
        ann = anyone.with_token(key)
        game = ann.create_game(
            "race35", [player_seat(handle), "Gus"], options=NO_SPECIAL_SQUARES, rated=False
        )
        gus_token = game.tokens.seats[1]
        assert gus_token is not None
        gus = anyone.with_token(gus_token)
        with pytest.raises(Conflict):
            gus.rematch(game.id)  # not finished yet
        referee = anyone.routes.with_token(game.tokens.referee)
        first = anyone.run(play_table_flow(referee, game.id, [key, gus_token]))
        assert first.is_finished

        asked = gus.rematch(game.id)
        assert asked.seat is not None and asked.token is not None  # a guest: her new token
        again = ann.rematch(game.id)  # the same table: Ann, invited, takes her seat
        assert again.id == asked.id and again.token is None
        assert (asked.seat, again.seat) == (0, 1)  # turned by one: Gus plays first now
        view = anyone.game(asked.id)
        assert view.status == "active"
        assert [seat.name for seat in view.seats] == ["Gus", handle]
        assert view.rematch_of == game.id and anyone.game(game.id).rematch == asked.id

"""The Python client's quick play against the real app on uvicorn: a player (her key) and a
guest seek a table, read their seeks, play their seats, and a third cancels hers."""

from __future__ import annotations

from pathlib import Path

import pytest
from tabula_client import Client, Conflict

from service.app import create_app
from service.settings import Settings
from tests.live import serving


def test_a_player_and_a_guest_seek_play_and_cancel_with_the_client(tmp_path: Path) -> None:
    settings = Settings(database=str(tmp_path / "tabula.db"), log_level="warning")
    with serving(create_app(settings)) as url, Client(url) as anyone:
        ann = anyone.with_token(anyone.register_player("ann").key)
        mine = ann.post_seek("race35", 2, options={"special_squares": {}})
        posted = anyone.post_seek("race35", 2, options={"special_squares": {}}, name="Gus")
        assert mine.secret is None and posted.secret is not None
        guest = anyone.with_token(posted.secret)
        hers, seen = ann.seek(mine.id), guest.seek(posted.id)
        assert (hers.status, hers.seat, seen.seat) == ("matched", 0, 1)
        game_id = hers.game_id
        assert game_id is not None and seen.game_id == game_id
        seats = {0: ann, 1: guest}
        view = anyone.game(game_id)
        assert [seat.name for seat in view.seats] == ["ann", "Gus"]
        acting = seats[view.to_act[0].seat]
        legal = acting.legal_moves(game_id)
        assert acting.play(game_id, legal.moves[0], expected_version=legal.version)
        waiting = anyone.post_seek("ludo", 4, bots_after=60, bots="random")
        loner = anyone.with_token(waiting.secret)  # a guest's: never None
        assert loner.cancel_seek(waiting.id).status == "cancelled"
        with pytest.raises(Conflict):
            guest.cancel_seek(posted.id)

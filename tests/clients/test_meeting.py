"""The meeting place through the Python client, against the real app on uvicorn: a table with
open and invited seats (``open_seat``, ``invite_seat``), found in the lobby (filters, pages),
joined by a player with her key and by a guest with a name, left, declined, started early
with bots, cancelled; and seeks posted, read and cancelled."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from tabula_client import (
    Client,
    Conflict,
    Forbidden,
    invite_seat,
    next_cursor,
    open_seat,
    player_seat,
)

from tests.clients.conftest import make_app
from tests.live import serving

NO_SPECIAL_SQUARES: dict[str, object] = {"special_squares": {}}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server for the module (its lobby is the module's alone)."""
    app = make_app(tmp_path_factory.mktemp("meeting"), create_rate=1000.0, create_burst=100_000)
    with serving(app) as served:
        yield served


@pytest.fixture
def anyone(url: str) -> Iterator[Client]:
    """A client with no credential: a guest, or a spectator."""
    with Client(url) as client:
        yield client


def player(anyone: Client, stem: str) -> tuple[str, Client]:
    """A fresh registered player: her handle, and a client acting with her key."""
    registered = anyone.register_player(f"{stem}-{secrets.token_hex(4)}")
    return registered.handle, anyone.with_token(registered.key)


def test_a_table_of_an_open_and_an_invited_seat_fills_through_the_client(anyone: Client) -> None:
    ann_handle, ann = player(anyone, "ann")
    bob_handle, bob = player(anyone, "bob")
    created = ann.create_game(
        "race35",
        [player_seat(ann_handle), open_seat(), invite_seat(bob_handle)],
        options=NO_SPECIAL_SQUARES,
        rated=False,
    )
    game_id = created.id
    assert anyone.game(game_id).status == "gathering"
    listed = [t for t in anyone.lobby(ruleset="race35", players=3).tables if t.id == game_id]
    assert [(s.open, s.invite) for s in listed[0].seats] == [
        (False, None),
        (True, None),
        (False, bob_handle),
    ]
    guest = anyone.join_table(game_id, name="Gus")
    assert guest.seat == 1 and guest.token is not None
    mine = bob.join_table(game_id)  # her invitation's seat, as herself: no token
    assert (mine.seat, mine.token) == (2, None)
    view = anyone.game(game_id)
    assert view.status == "active"
    assert [s.name for s in view.seats] == [ann_handle, "Gus", bob_handle]
    assert game_id not in [t.id for t in anyone.lobby(ruleset="race35").tables]
    acting = {0: ann, 1: anyone.with_token(guest.token), 2: bob}[view.to_act[0].seat]
    legal = acting.legal_moves(game_id)
    assert acting.play(game_id, legal.moves[0], expected_version=legal.version).events


def test_a_joiner_leaves_an_invitation_is_declined_and_the_referee_starts_with_bots(
    anyone: Client,
) -> None:
    bob_handle, bob = player(anyone, "bob")
    created = anyone.create_game(
        "race35", ["Host", open_seat(), invite_seat(bob_handle)], rated=False
    )
    game_id, referee = created.id, anyone.with_token(created.tokens.referee)
    joined = anyone.join_table(game_id, name="Gus")
    guest = anyone.with_token(joined.token)
    assert guest.leave_table(game_id).events[-1].type == "SeatLeft"
    with pytest.raises(Forbidden):
        anyone.join_table(game_id, seat=2, name="Eve")  # kept for Bob
    assert bob.decline_invitation(game_id).events[-1].type == "InvitationDeclined"
    started = referee.start_table(game_id, "random")
    assert "TableStarted" in [event.type for event in started.events]
    view = anyone.game(game_id)
    assert view.status == "active" and [s.bot for s in view.seats][1:] == ["random", "random"]


def test_the_referee_cancels_a_gathering_table_and_nobody_joins_it(anyone: Client) -> None:
    created = anyone.create_game("race35", ["Host", open_seat()], rated=False, unlisted=True)
    game_id = created.id
    assert game_id not in [t.id for t in anyone.lobby().tables]  # unlisted: by its link only
    referee = anyone.with_token(created.tokens.referee)
    assert "TableClosed" in [event.type for event in referee.cancel_table(game_id).events]
    assert anyone.game(game_id).status == "closed"
    with pytest.raises(Conflict):
        anyone.join_table(game_id, name="Late")


def test_the_lobby_comes_filtered_and_a_page_at_a_time(anyone: Client) -> None:
    made = [anyone.create_game("sorry", ["Host", open_seat()], rated=False).id for _ in range(3)]
    seen: list[str] = []
    cursor: str | None = None
    while True:
        page = anyone.lobby(ruleset="sorry", players=2, rated=False, limit=2, cursor=cursor)
        assert len(page.tables) <= 2
        seen += [table.id for table in page.tables]
        if (cursor := next_cursor(page)) is None:
            break
    assert [game for game in seen if game in made] == made
    assert anyone.lobby(ruleset="sorry", players=3).tables == []


def test_seeks_are_posted_read_and_cancelled_through_the_client(anyone: Client) -> None:
    _, ann = player(anyone, "ann")
    mine = ann.post_seek("ludo", 4, options={}, bots_after=600)
    assert mine.secret is None and ann.seek(mine.id).status == "waiting"
    posted = anyone.post_seek("ludo", 4, name="Gus")
    guest = anyone.with_token(posted.secret)
    assert guest.seek(posted.id).ruleset == "ludo"
    assert ann.cancel_seek(mine.id).status == "cancelled"
    assert guest.cancel_seek(posted.id).status == "cancelled"
    assert ann.cancel_seek(mine.id).status == "cancelled"  # again: the same answer

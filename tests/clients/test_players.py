"""Registered players and their keys through the Python client, against the real app on
uvicorn: registering (by the player, or by an app in its namespace), ``me``, rotating a key,
retiring a handle, an app's keys for its players, a player's record, and a player's seat
played with her key over HTTP and the socket."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from litestar import Litestar
from tabula_client import (
    AsyncClient,
    Client,
    Conflict,
    Forbidden,
    GameSocket,
    SocketClosed,
    Unauthorized,
    Unprocessable,
    bot_seat,
    play_table_flow,
    player_seat,
)

from service.__main__ import main as service_main
from tests.clients.conftest import make_app
from tests.live import serving
from tests.waiting import wait_until

NO_SPECIAL_SQUARES: dict[str, object] = {"special_squares": {}}  # race35, no skipped turns


@dataclass(frozen=True)
class Served:
    """The real app on uvicorn, and its apps' book (what ``python -m service apps add``
    writes to)."""

    url: str
    app: Litestar

    def app_key(self) -> tuple[str, str]:
        """A new app's name and key, as the operator's command makes them."""
        name = "app-" + secrets.token_hex(4)
        key: str = self.app.state.apps.add(name)
        return name, key


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One server for the module, its creation budget out of the tests' way."""
    app = make_app(tmp_path_factory.mktemp("players"), create_rate=1000.0, create_burst=100_000)
    with serving(app) as url:
        yield Served(url, app)


@pytest.fixture
def lobby(served: Served) -> Iterator[Client]:
    """A client without a key: where a player registers herself."""
    with Client(served.url) as client:
        yield client


def fresh_handle(stem: str = "ann") -> str:
    return f"{stem}-{secrets.token_hex(4)}"


def test_a_player_registers_and_plays_her_seat_with_her_key(lobby: Client) -> None:
    registered = lobby.register_player(handle := fresh_handle())
    assert registered.handle == handle and registered.key.startswith("tabula_pk_")
    ann = lobby.with_token(registered.key)
    assert ann.me().handle == handle
    created = ann.create_game("race35", [player_seat(handle), "Guest"], options=NO_SPECIAL_SQUARES)
    assert created.tokens.seats[0] is None  # her key plays her seat: no token is issued for it
    guest = created.tokens.seats[1]
    assert guest is not None
    referee = ann.routes.with_token(created.tokens.referee)
    final = ann.run(play_table_flow(referee, created.id, [registered.key, guest]))
    assert final.is_finished and final.seat_name(0) == handle
    mine = ann.me()
    assert [game.id for game in mine.games] == [created.id]
    assert mine.games[0].status == "finished" and mine.ratings == []  # a guest's game: unrated


def test_nobody_but_her_key_plays_her_seat(lobby: Client) -> None:
    handle = fresh_handle()
    key = lobby.register_player(handle).key
    other = lobby.register_player(fresh_handle("bob")).key
    created = lobby.create_game("sorry", [player_seat(handle), "Guest"])
    with pytest.raises(Unauthorized):
        lobby.play(created.id, "draw", seat=0)
    for stranger in (other, created.tokens.referee, created.tokens.seats[1]):
        with pytest.raises(Forbidden):
            lobby.with_token(stranger).play(created.id, "draw", seat=0)
    played = lobby.with_token(key).play(created.id, "draw")
    assert played.events[0].by == 0


def test_a_rotated_key_is_refused_at_once_and_the_new_one_acts(lobby: Client) -> None:
    old = lobby.with_token(lobby.register_player(handle := fresh_handle()).key)
    new = lobby.with_token(old.rotate_key().key)
    with pytest.raises(Unauthorized) as refused:
        old.me()
    assert refused.value.problem.slug == "key-refused"
    assert new.me().handle == handle


def test_a_retired_handle_is_refused_and_never_registered_again(lobby: Client) -> None:
    ann = lobby.with_token(lobby.register_player(handle := fresh_handle()).key)
    assert ann.retire_handle() is None
    with pytest.raises(Unauthorized):
        ann.me()
    with pytest.raises(Conflict) as taken:
        lobby.register_player(handle.upper())  # the same handle, in any case
    assert taken.value.problem.slug == "handle-taken"
    with pytest.raises(Unprocessable) as unknown:
        lobby.create_game("race35", [player_seat(handle), "Guest"])
    assert unknown.value.problem.slug == "unknown-player"


def test_a_look_alike_or_reserved_handle_is_refused(lobby: Client) -> None:
    look_alike = "\u0430nn-" + secrets.token_hex(2)  # a Cyrillic a, then Latin letters
    for handle in (look_alike, "admin"):
        with pytest.raises(Unprocessable) as refused:
            lobby.register_player(handle)
        assert refused.value.problem.slug == "bad-handle"


def test_an_app_registers_its_players_and_mints_their_keys(served: Served, lobby: Client) -> None:
    name, key = served.app_key()
    app = lobby.with_token(key)
    member = app.register_player("8812")
    assert member.handle == f"{name}:8812"
    minted = app.mint_player_key(member.handle)
    with pytest.raises(Unauthorized):
        lobby.with_token(member.key).me()  # the key before the minted one stops
    player = lobby.with_token(minted.key)
    assert player.me().handle == member.handle
    created = player.create_game("race35", [player_seat(member.handle), "Guest"])
    assert player.legal_moves(created.id).moves  # she moves first, with the minted key
    with pytest.raises(Forbidden):
        app.legal_moves(created.id)  # an app never acts in a game itself
    with pytest.raises(Forbidden):
        app.me()


def test_an_app_mints_no_key_outside_its_namespace(served: Served, lobby: Client) -> None:
    _, ours = served.app_key()
    theirs_name, theirs = served.app_key()
    lobby.with_token(theirs).register_player("7")
    lobby.register_player(plain := fresh_handle())
    app = lobby.with_token(ours)
    for handle in (f"{theirs_name}:7", plain):
        with pytest.raises(Forbidden):
            app.mint_player_key(handle)


def test_a_players_record_verifies_offline_and_holds_no_key(
    lobby: Client, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = lobby.register_player(handle := fresh_handle())
    ann = lobby.with_token(first.key)
    second = ann.rotate_key().key
    record = lobby.with_token(second).player_record(handle)
    assert record["format"] == "tabula-player-record" and record["handle"] == handle
    assert [event["type"] for event in record["events"]] == [
        "PlayerRegistered",
        "KeyIssued",
        "KeyIssued",
    ]
    text = json.dumps(record)
    for key in (first.key, second):
        assert key.rsplit("_", 1)[1] not in text  # only the secret's digest is kept
    with pytest.raises(Unauthorized):
        lobby.player_record(handle)  # no key: no record
    with pytest.raises(Forbidden):
        lobby.with_token(lobby.register_player(fresh_handle("bob")).key).player_record(handle)
    path = tmp_path / "player.json"
    path.write_text(text)
    assert service_main(["verify", str(path)]) == 0
    assert f"valid player record of {handle}" in capsys.readouterr().out


def test_a_rated_game_against_a_server_bot_rates_her(lobby: Client) -> None:
    ann = lobby.with_token(lobby.register_player(handle := fresh_handle()).key)
    seats = [player_seat(handle), bot_seat("Robin", "random")]
    created = ann.create_game("race35", seats, rated=True, options=NO_SPECIAL_SQUARES)
    referee = ann.routes.with_token(created.tokens.referee)
    final = ann.run(play_table_flow(referee, created.id, [ann.token or "", ""]))
    assert final.is_finished
    rated = wait_until(lambda: ann.me().ratings, message=f"{handle} was never rated")
    assert [(rating.ruleset, rating.games) for rating in rated] == [("race35", 1)]
    assert lobby.player(handle).rulesets[0].rating.games == 1


def test_her_key_plays_her_seat_over_the_socket(served: Served, lobby: Client) -> None:
    ann = lobby.with_token(lobby.register_player(handle := fresh_handle()).key)
    created = ann.create_game("race35", [player_seat(handle), "Guest"], options=NO_SPECIAL_SQUARES)
    with ann.socket(created.id) as live:
        assert (live.welcome.role, live.welcome.seat) == ("seat", 0)
        legal = ann.legal_moves(created.id)
        played = live.play(legal.moves[0].id, expected_version=legal.version)
        assert played.events[0].by == 0
    with pytest.raises(SocketClosed) as closed:
        GameSocket(served.url, created.id, "tabula_pk_" + "0" * 24 + "_made-up").open()
    assert closed.value.code == 4401


def test_rotating_her_key_closes_her_open_socket_key_revoked(lobby: Client) -> None:
    ann = lobby.with_token(lobby.register_player(handle := fresh_handle()).key)
    created = ann.create_game("sorry", [player_seat(handle), "Guest"])
    with ann.socket(created.id) as live:
        ann.rotate_key()
        with pytest.raises(SocketClosed) as closed:
            list(live.events(timeout=10))  # ends only when closed (or after 10 s of nothing)
    assert (closed.value.code, closed.value.reason) == (4401, "key-revoked")
    assert closed.value.key_revoked


def test_the_async_client_covers_the_players_calls(served: Served) -> None:
    async def scenario() -> None:
        name, app_key = served.app_key()
        async with AsyncClient(served.url) as lobby:
            registered = await lobby.register_player(handle := fresh_handle())
            ann = lobby.with_token(registered.key)
            assert (await ann.me()).handle == handle
            rotated = lobby.with_token((await ann.rotate_key()).key)
            record = await rotated.player_record(handle)
            assert len(record["events"]) == 3
            app = lobby.with_token(app_key)
            member = await app.register_player("1")
            minted = await app.mint_player_key(member.handle)
            assert (await lobby.with_token(minted.key).me()).handle == f"{name}:1"
            await rotated.retire_handle()
            with pytest.raises(Unauthorized):
                await rotated.me()

    asyncio.run(scenario())


def test_the_key_goes_only_in_the_authorization_header() -> None:
    key = "tabula_pk_" + "0" * 24 + "_" + secrets.token_urlsafe(32)
    seen: list[httpx.Request] = []
    replies = {
        "/me": {"handle": "ann"},
        "/me/keys": {"key": "tabula_pk_new"},
        "/players/ann/record": {"handle": "ann", "events": []},
    }

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=replies[request.url.path])

    with Client("http://tabula.test", token=key, transport=httpx.MockTransport(answer)) as ann:
        ann.me()
        ann.rotate_key()
        ann.player_record("ann")
    assert len(seen) == 3
    for request in seen:
        assert request.headers["Authorization"] == f"Bearer {key}"
        assert key not in str(request.url) and key.encode() not in request.content

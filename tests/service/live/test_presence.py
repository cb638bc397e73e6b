"""Presence: a seat is present while its socket or stream is open, and for presence_seconds
after it was last seen; shown in GET /games/{id}, pushed to the table's sockets, never in the
log. Time is the test's (``ManualClock``), never slept on."""

from __future__ import annotations

import json
import threading
from typing import Any

from litestar.testing import TestClient

from tests.clocks import ManualClock
from tests.service.conftest import auth, create
from tests.service.games.test_clocks import swept
from tests.service.live.test_socket import SERVER, Socket, opened
from tests.waiting import wait_until

SECONDS = 60  # the presence_seconds setting's default


def present(api: TestClient[Any], game_id: str) -> list[bool]:
    """Each seat's ``present`` in GET /games/{id}, asked without a token (which is nobody)."""
    return [seat["present"] for seat in api.get(f"/games/{game_id}").json()["seats"]]


def next_presence(socket: Socket) -> list[dict[str, Any]]:
    """The seats of the next ``presence`` message (events pushed meanwhile passed over)."""
    while True:
        message = json_of(socket)
        if message["type"] == "presence":
            seats: list[dict[str, Any]] = message["seats"]
            return seats
        assert message["type"] == "events", message


def json_of(socket: Socket) -> dict[str, Any]:
    """The next message, failing rather than hanging when none comes."""
    message: dict[str, Any] = json.loads(socket.session.receive_text(timeout=10))
    SERVER.validate(message)
    return message


def closed_by_server(api: TestClient[Any], sockets: int) -> None:
    """Wait until the server has seen a socket closed: ``sockets`` remain open."""
    slots = api.app.state.limits.streams
    wait_until(lambda: slots.count() == sockets, message=f"not {sockets} sockets open")


def test_a_seats_socket_makes_it_present_and_tells_the_other_sockets(
    clocked: TestClient[Any],
) -> None:
    api = clocked
    created = create(api, "ludo", players=2)
    game_id, seats = created["id"], created["tokens"]["seats"]
    assert present(api, game_id) == [False, False]
    with opened(api, game_id) as watching:
        spectator = Socket(watching)
        spectator.hello(None, presence=True)
        with opened(api, game_id) as seat:
            assert Socket(seat).hello(seats[1])["role"] == "seat"
            told = next_presence(spectator)
            assert told == [{"seat": 0, "present": False}, {"seat": 1, "present": True}]
            assert present(api, game_id) == [False, True]


def test_a_socket_that_did_not_ask_for_presence_is_sent_only_what_it_knew_of(
    clocked: TestClient[Any],
) -> None:
    """Presence is asked for in the hello: a frontend written before it meets no new message."""
    api = clocked
    created = create(api, "ludo", players=2)
    game_id, seats = created["id"], created["tokens"]["seats"]
    with opened(api, game_id) as watching:
        version = api.get(f"/games/{game_id}").json()["version"]
        spectator = Socket(watching)
        spectator.hello(None, after=version)
        with opened(api, game_id) as seat:
            player = Socket(seat)
            player.hello(seats[0], after=version)
            moves = api.get(f"/games/{game_id}/legal-moves", headers=auth(seats[0])).json()
            played = player.play("r1", moves["moves"][0]["id"], version)
            assert played["type"] == "played", played
            pushed = spectator.receive()
            assert pushed["type"] == "events", pushed
            assert present(api, game_id) == [True, False]


def test_a_closed_socket_leaves_its_seat_present_for_presence_seconds(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    created = create(api, "ludo", players=2)
    game_id, seats = created["id"], created["tokens"]["seats"]
    with opened(api, game_id) as watching:
        spectator = Socket(watching)
        spectator.hello(None, presence=True)
        with opened(api, game_id) as seat:
            Socket(seat).hello(seats[0])
            assert next_presence(spectator)[0] == {"seat": 0, "present": True}
            clock.advance(10 * SECONDS)  # an open socket keeps its seat present
            swept(api, clock)
            assert present(api, game_id) == [True, False]
        closed_by_server(api, 1)
        clock.advance(SECONDS - 1)
        swept(api, clock)
        assert present(api, game_id) == [True, False]
        clock.advance(2)
        swept(api, clock)
        assert present(api, game_id) == [False, False]
        assert next_presence(spectator) == [
            {"seat": 0, "present": False},
            {"seat": 1, "present": False},
        ]


def test_any_request_made_as_the_seat_makes_it_present_for_a_while(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    created = create(api, "ludo", players=2)
    game_id, seats = created["id"], created["tokens"]["seats"]
    api.get(f"/games/{game_id}/legal-moves", headers=auth(seats[1]))
    assert present(api, game_id) == [False, True]
    api.get(f"/games/{game_id}", headers=auth(created["tokens"]["referee"]))
    assert present(api, game_id) == [False, True]  # the referee is no seat
    clock.advance(SECONDS + 1)
    assert present(api, game_id) == [False, False]


def test_a_registered_players_key_makes_her_seat_present(
    clocked: TestClient[Any],
) -> None:
    api = clocked
    key = api.post("/players", json={"handle": "ann"}).json()["key"]
    body = {"ruleset": "ludo", "seats": [{"name": "Bob"}, {"player": "ann"}]}
    game_id = api.post("/games", json=body).json()["id"]
    with opened(api, game_id) as session:
        assert Socket(session).hello(key)["seat"] == 1
        assert present(api, game_id) == [False, True]


def test_a_seats_event_stream_keeps_it_present_while_it_runs(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    created = create(api, "ludo", players=2)
    game_id, seats = created["id"], created["tokens"]["seats"]
    path, headers = f"/games/{game_id}/events/stream", auth(seats[1])

    def read() -> None:
        with api.stream("GET", path, headers=headers) as reply:
            for _ in reply.iter_lines():
                pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    clock.advance(10 * SECONDS)  # only the stream running can keep seat 1 present now
    wait_until(lambda: present(api, game_id) == [False, True], message="the stream's seat away")
    forfeit = {"kind": "forfeit", "seat": 0, "reason": "gone"}
    api.post(
        f"/games/{game_id}/adjudicate", json=forfeit, headers=auth(created["tokens"]["referee"])
    )
    reader.join(timeout=10)  # the game has finished: its stream ends
    assert not reader.is_alive()
    assert present(api, game_id) == [False, True]
    clock.advance(SECONDS + 1)
    assert present(api, game_id) == [False, False]


def test_presence_is_never_an_event_of_the_log(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    created = create(api, "ludo", players=2)
    game_id, seats = created["id"], created["tokens"]["seats"]
    before = api.get(f"/games/{game_id}/events").json()["events"]
    with opened(api, game_id) as session:
        Socket(session).hello(seats[0])
        api.get(f"/games/{game_id}", headers=auth(seats[1]))
    closed_by_server(api, 0)
    clock.advance(SECONDS + 1)
    swept(api, clock)
    assert api.get(f"/games/{game_id}/events").json()["events"] == before

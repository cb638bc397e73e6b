"""``GET /games/{id}/socket`` against the real app: every message, its JSON Schema, who sees
what, idempotent retries, resume, and bad messages answered without a crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from litestar.exceptions import WebSocketDisconnect
from litestar.testing import TestClient
from litestar.testing.websocket_test_session import WebSocketTestSession

from service.api.socket_messages import schema
from tests.service.conftest import auth, create

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads(json.dumps(schema()))  # as JSON: tuples become lists
CLIENT = jsonschema_rs.validator_for({**SCHEMA, "$ref": "#/$defs/ClientMessage"})
SERVER = jsonschema_rs.validator_for({**SCHEMA, "$ref": "#/$defs/ServerMessage"})


class Socket:
    """A test socket whose every message both ways is checked against the JSON Schema."""

    def __init__(self, session: WebSocketTestSession) -> None:
        self.session = session

    def send(self, message: dict[str, Any]) -> None:
        CLIENT.validate(message)
        self.session.send_text(json.dumps(message))

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.session.receive_text())
        SERVER.validate(message)
        return message

    def hello(self, token: str | None, after: int = 0, presence: bool = False) -> dict[str, Any]:
        hello = {"type": "hello", "token": token, "after": after}
        self.send(hello | {"presence": True} if presence else hello)
        return self.receive()

    def until(self, version: int) -> list[dict[str, Any]]:
        """The events pushed until ``version`` has come."""
        events: list[dict[str, Any]] = []
        while not events or events[-1]["version"] < version:
            message = self.receive()
            assert message["type"] == "events", message
            events.extend(message["events"])
        return events

    def play(self, ref: str, move: str, version: int, **extra: Any) -> dict[str, Any]:
        self.send({"type": "play", "ref": ref, "move": move, "expected_version": version, **extra})
        return self.receive()


def opened(api: TestClient[Any], game_id: str) -> Any:
    return api.websocket_connect(f"/games/{game_id}/socket")


def legal(api: TestClient[Any], game_id: str, token: str) -> dict[str, Any]:
    moves: dict[str, Any] = api.get(f"/games/{game_id}/legal-moves", headers=auth(token)).json()
    return moves


def test_the_socket_schema_on_disk_is_the_one_the_code_makes() -> None:
    on_disk = json.loads((ROOT / "openapi" / "socket.schema.json").read_text())
    assert on_disk == SCHEMA, "run `make openapi` to write openapi/socket.schema.json again"


def test_hello_is_welcomed_with_the_role_and_the_log_is_pushed(api: TestClient[Any]) -> None:
    created = create(api, "sorry", 2)
    game_id, seats = created["id"], created["tokens"]["seats"]
    with opened(api, game_id) as session:
        socket = Socket(session)
        welcome = socket.hello(seats[1])
        assert welcome == {"type": "welcome", "role": "seat", "seat": 1, "version": 1}
        events = socket.until(1)
        assert [e["type"] for e in events] == ["GameCreated"]
        log = api.get(f"/games/{game_id}/events", headers=auth(seats[1])).json()["events"]
        assert events == log  # the same event objects as GET /events
    with opened(api, game_id) as session:
        assert Socket(session).hello(created["tokens"]["referee"])["role"] == "referee"
    with opened(api, game_id) as session:
        assert Socket(session).hello(None) == {
            "type": "welcome",
            "role": "spectator",
            "seat": None,
            "version": 1,
        }


def test_a_play_is_answered_with_its_events_and_the_next_legal_moves(api: TestClient[Any]) -> None:
    created = create(api, "sorry", 2)
    game_id, seats = created["id"], created["tokens"]["seats"]
    with opened(api, game_id) as session:
        socket = Socket(session)
        socket.hello(seats[0])
        socket.until(1)
        played = socket.play("r1", "draw", 1)
        assert played["type"] == "played" and played["ref"] == "r1"
        log = api.get(f"/games/{game_id}/events", headers=auth(seats[0])).json()["events"]
        assert played["events"] == log[1:]  # every event of the write, none twice
        assert played["version"] == log[-1]["version"]
        assert played["legal_moves"] == legal(api, game_id, seats[0])


def test_events_of_other_writers_are_pushed_to_every_socket_once_in_order(
    api: TestClient[Any],
) -> None:
    created = create(api, "sorry", 2)
    game_id, (ann, bob) = created["id"], created["tokens"]["seats"]
    with opened(api, game_id) as first, opened(api, game_id) as second:
        anns, bobs = Socket(first), Socket(second)
        anns.hello(ann)
        bobs.hello(bob)
        anns.until(1)
        bobs.until(1)
        reply = api.post(f"/games/{game_id}/moves", json={"move": "draw"}, headers=auth(ann))
        version = reply.json()["version"]
        pushed_to_ann, pushed_to_bob = anns.until(version), bobs.until(version)
        assert [e["version"] for e in pushed_to_ann] == list(range(2, version + 1))
        assert (
            pushed_to_bob
            == api.get(f"/games/{game_id}/events?after=1", headers=auth(bob)).json()["events"]
        )


def test_a_hand_is_seen_only_by_its_seat_over_the_socket(api: TestClient[Any]) -> None:
    created = create(api, "sorry-hand", 2)
    game_id, bob = created["id"], created["tokens"]["seats"][1]
    with opened(api, game_id) as session:
        socket = Socket(session)
        socket.hello(bob)
        version = api.get(f"/games/{game_id}").json()["version"]
        pushed = socket.until(version)
        assert pushed == api.get(f"/games/{game_id}/events", headers=auth(bob)).json()["events"]
        referee_log = api.get(
            f"/games/{game_id}/events", headers=auth(created["tokens"]["referee"])
        ).json()["events"]
        assert pushed != referee_log  # Ann's cards are hidden from Bob, as over HTTP


def test_a_retried_play_with_its_key_appends_nothing_twice(api: TestClient[Any]) -> None:
    created = create(api, "sorry", 2)
    game_id, seats = created["id"], created["tokens"]["seats"]
    with opened(api, game_id) as session:
        socket = Socket(session)
        socket.hello(seats[0])
        socket.until(1)
        first = socket.play("a", "draw", 1, idempotency_key="k1")
        again = socket.play("b", "draw", 1, idempotency_key="k1")
        assert again["type"] == "played" and again["version"] == first["version"]
        assert again["events"] == []  # already sent with the first reply
    log = api.get(f"/games/{game_id}/events", headers=auth(seats[0])).json()["events"]
    assert log[-1]["version"] == first["version"]
    over_http = api.post(
        f"/games/{game_id}/moves",
        json={"move": "draw", "expected_version": 1},
        headers={**auth(seats[0]), "Idempotency-Key": "k1"},
    )
    assert over_http.status_code == 200  # one scope: the token and the route
    assert over_http.json()["version"] == first["version"]


def test_refusals_carry_the_problem_the_http_route_gives(api: TestClient[Any]) -> None:
    created = create(api, "sorry", 2)
    game_id, bob = created["id"], created["tokens"]["seats"][1]
    over_http = api.post(f"/games/{game_id}/moves", json={"move": "draw"}, headers=auth(bob))
    with opened(api, game_id) as session:
        socket = Socket(session)
        socket.hello(bob)
        socket.until(1)
        refused = socket.play("r", "draw", 1)
        assert refused["type"] == "refused" and refused["ref"] == "r"
        problem = refused["problem"]
        assert problem["type"] == over_http.json()["type"]
        assert problem["status"] == over_http.status_code == 409
        assert problem["detail"] == over_http.json()["detail"]
        stale = socket.play("s", "draw", 0)
        assert stale["problem"]["type"].endswith("/version-conflict")
        socket.send({"type": "undo", "ref": "u", "reason": "oops"})
        assert socket.receive()["problem"]["status"] in {403, 409}
        socket.send({"type": "chance", "ref": "c", "card": "1"})
        assert socket.receive()["problem"]["type"].endswith("/forbidden")


@pytest.mark.parametrize(
    ("frame", "slug"),
    [
        ("not json", "malformed-request"),
        ('{"type": "teleport", "ref": "x"}', "validation-failed"),
        ('{"type": "play", "ref": "x", "move": 7}', "validation-failed"),
        ('{"type": "play", "ref": "x", "ref": "y"}', "malformed-request"),
        ('{"type": "hello", "token": null}', "malformed-request"),
        ("[" * 100 + "]" * 100, "malformed-request"),
    ],
)
def test_a_bad_message_is_refused_and_the_socket_goes_on(
    api: TestClient[Any], frame: str, slug: str
) -> None:
    created = create(api, "sorry", 2)
    game_id = created["id"]
    with opened(api, game_id) as session:
        socket = Socket(session)
        socket.hello(None)
        socket.until(1)
        session.send_text(frame)
        refused = socket.receive()
        assert refused["type"] == "refused"
        assert refused["problem"]["type"].endswith("/" + slug), refused
        socket.send({"type": "ping", "ref": "still there?"})
        assert socket.receive() == {"type": "pong", "ref": "still there?"}


@pytest.mark.parametrize(
    ("first", "code"),
    [
        ('{"type": "ping"}', 4400),
        ("not json", 4400),
        ('{"type": "hello", "token": "made-up"}', 4401),
        ('{"type": "hello", "after": 99}', 4400),
    ],
)
def test_a_socket_that_does_not_say_a_good_hello_is_closed(
    api: TestClient[Any], first: str, code: int
) -> None:
    game_id = create(api, "sorry", 2)["id"]
    with opened(api, game_id) as session:
        session.send_text(first)
        with pytest.raises(WebSocketDisconnect) as closed:
            session.receive_text()
        assert closed.value.code == code


def test_a_socket_on_no_game_is_closed_4404(api: TestClient[Any]) -> None:
    with opened(api, "no-such-game") as session:
        session.send_text('{"type": "hello"}')
        with pytest.raises(WebSocketDisconnect) as closed:
            session.receive_text()
        assert closed.value.code == 4404


def test_a_reconnect_with_after_gets_exactly_what_it_missed(api: TestClient[Any]) -> None:
    created = create(api, "sorry", 2)
    game_id, (ann, bob) = created["id"], created["tokens"]["seats"]
    with opened(api, game_id) as session:
        socket = Socket(session)
        socket.hello(bob)
        seen = socket.until(1)
    version = api.post(f"/games/{game_id}/moves", json={"move": "draw"}, headers=auth(ann))
    last = version.json()["version"]
    with opened(api, game_id) as session:
        socket = Socket(session)
        assert socket.hello(bob, after=seen[-1]["version"])["version"] == last
        missed = socket.until(last)
    log = api.get(f"/games/{game_id}/events", headers=auth(bob)).json()["events"]
    assert seen + missed == log


def test_a_spectator_of_a_delayed_game_is_pushed_only_what_the_delay_shows(
    api: TestClient[Any],
) -> None:
    created = create(api, "sorry", 2, spectator_delay={"moves": 2})
    game_id, (ann, bob) = created["id"], created["tokens"]["seats"]
    for token in (ann, bob, ann):
        moves = legal(api, game_id, token)["moves"]
        if moves:
            api.post(f"/games/{game_id}/moves", json={"move": moves[0]["id"]}, headers=auth(token))
    shown = api.get(f"/games/{game_id}/events").json()
    with opened(api, game_id) as session:
        socket = Socket(session)
        assert socket.hello(None)["version"] == shown["version"]
        assert socket.until(shown["version"]) == shown["events"]

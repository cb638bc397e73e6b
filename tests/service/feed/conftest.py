"""What the feed's tests share: registering players, a feed socket whose every message both
ways is checked against the JSON Schema, a player's whole history of notes (what a feed opened
after the first possible id sends), and games played with the players' keys."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import jsonschema_rs
from litestar.testing import TestClient
from litestar.testing.websocket_test_session import WebSocketTestSession

from domain.players.handles import player_id
from tests.service.conftest import auth, seed_for_test
from tests.service.live.test_socket import SCHEMA
from tests.service.tables.conftest import register
from tests.waiting import wait_until

__all__ = ["register"]

CLIENT = jsonschema_rs.validator_for({**SCHEMA, "$ref": "#/$defs/FeedClientMessage"})
SERVER = jsonschema_rs.validator_for({**SCHEMA, "$ref": "#/$defs/FeedServerMessage"})
START = "0001-01-01T00:00:00.000000Z/start/00000000/0"
"""A note id before every note: a feed opened after it sends a player's whole history."""
SECONDS = 10.0
"""How long a test waits for a message the server sends at once."""


class FeedSocket:
    """A test client of ``GET /me/socket``."""

    def __init__(self, session: WebSocketTestSession) -> None:
        self.session = session

    def send(self, message: dict[str, Any]) -> None:
        CLIENT.validate(message)
        self.session.send_text(json.dumps(message))

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.session.receive_text(timeout=SECONDS))
        SERVER.validate(message)
        return message

    def hello(self, key: str | None, after: str | None = None) -> dict[str, Any]:
        self.send({"type": "hello", "token": key, "after": after})
        return self.receive()

    def note(self) -> dict[str, Any]:
        """The next note pushed."""
        message = self.receive()
        assert message["type"] == "note", message
        note: dict[str, Any] = message["note"]
        return note

    def until(self, game_id: str, kind: str) -> list[dict[str, Any]]:
        """The notes pushed up to the first of ``kind`` in ``game_id``."""
        notes = [self.note()]
        while (notes[-1]["game_id"], notes[-1]["kind"]) != (game_id, kind):
            notes.append(self.note())
        return notes


def feed_of(api: TestClient[Any]) -> Any:
    """A connection to the feed socket (a context manager)."""
    return api.websocket_connect("/me/socket")


def sentinel(api: TestClient[Any], handle: str) -> str:
    """A new table inviting ``handle``: its invitation is the latest note of hers."""
    game_id: str = table(api, [{"name": "Host"}, {"invite": handle}])["id"]
    return game_id


def history(api: TestClient[Any], key: str, handle: str) -> list[dict[str, Any]]:
    """Every note of the player's, oldest first (what a feed opened after ``START`` sends),
    ending with a new sentinel invitation's."""
    last = sentinel(api, handle)
    with feed_of(api) as session:
        socket = FeedSocket(session)
        assert socket.hello(key, START)["type"] == "welcome"
        return socket.until(last, "invitation")


def table(api: TestClient[Any], seats: list[dict[str, Any]], **body: Any) -> dict[str, Any]:
    """Create a game of ``seats`` (a ludo table unless said); the creation reply."""
    body.setdefault("seed", seed_for_test())
    body.setdefault("rated", False)
    body.setdefault("ruleset", "ludo")
    reply = api.post("/games", json={"seats": seats, **body})
    assert reply.status_code == 201, reply.text
    created: dict[str, Any] = reply.json()
    return created


def duel(api: TestClient[Any], first: str, second: str) -> str:
    """A race35 game (no special squares: every move a roll) of two registered players."""
    seats = [{"player": first}, {"player": second}]
    options: dict[str, Any] = {"special_squares": {}}
    game_id: str = table(api, seats, ruleset="race35", options=options)["id"]
    return game_id


def roll(api: TestClient[Any], game_id: str, key: str) -> dict[str, Any]:
    """The player whose key this is rolls (her seat must be to act); the reply."""
    reply = api.post(f"/games/{game_id}/moves", json={"move": "roll"}, headers=auth(key))
    assert reply.status_code == 200, reply.text
    played: dict[str, Any] = reply.json()
    return played


def to_act(api: TestClient[Any], game_id: str) -> int | None:
    """The seat to act in the game, None once it is over."""
    view = api.get(f"/games/{game_id}").json()
    return view["to_act"][0]["seat"] if view["to_act"] else None


def play_out(api: TestClient[Any], game_id: str, keys: list[str]) -> None:
    """Roll for whoever is to act (seat n plays with ``keys[n]``) until the game is over."""
    while (seat := to_act(api, game_id)) is not None:
        roll(api, game_id, keys[seat])


def rotate(api: TestClient[Any], key: str) -> str:
    """Replace the player's key (which ends her streams and closes her sockets); the new one."""
    reply = api.post("/me/keys", json={}, headers=auth(key))
    assert reply.status_code == 200, reply.text
    new: str = reply.json()["key"]
    return new


def sse_notes(body: str) -> list[dict[str, Any]]:
    """The notes of a ``GET /me/stream`` body, each event checked (``note``, its id)."""
    notes = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.partition(": ")[::2] for line in block.splitlines() if line)
        if "data" in fields:
            note = json.loads(fields["data"])
            assert (fields["event"], fields["id"]) == ("note", note["id"])
            notes.append(note)
    return notes


@contextmanager
def streamed(
    api: TestClient[Any], key: str, handle: str, headers: dict[str, str] | None = None
) -> Iterator[list[dict[str, Any]]]:
    """``GET /me/stream`` read on a thread; inside, once the stream follows the player; the
    list of its notes filled once it has ended (the ``with`` body must end it: replace the
    key). The test client hands over a body only once it is whole."""
    notes: list[dict[str, Any]] = []
    bodies: list[str] = []

    def read() -> None:
        reply = api.get("/me/stream", headers={**auth(key), **(headers or {})})
        assert reply.status_code == 200, reply.text
        assert reply.headers["content-type"].startswith("text/event-stream")
        bodies.append(reply.text)

    watchers = api.app.state.feeds.discovery.watchers
    wait_until(lambda: player_id(handle) not in watchers, message="an earlier feed still open")
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    wait_until(lambda: player_id(handle) in watchers, message="the stream never followed")
    yield notes
    reader.join(timeout=SECONDS)
    assert bodies, "the stream did not end"
    notes.extend(sse_notes(bodies[0]))

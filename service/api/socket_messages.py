"""The messages of ``GET /games/{id}/socket``: JSON text frames, told apart by ``type``.

The client says ``hello`` first, then plays (``play``, ``undo``, ``chance``) and may ``ping``;
the server says ``welcome``, pushes ``events`` and, whenever the table's present seats
change, ``presence``, answers each write with ``played`` or ``refused`` (matched by the
client's ``ref``) and each ping with ``pong``. ``python -m service
socket-schema`` prints the JSON Schema of every message (``openapi/socket.schema.json``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from domain.model import Step
from service.core.commands import PlayMove, PostChance, Undo
from service.usecases.replies import EventOut, LegalMoves

Ref = Annotated[str, msgspec.Meta(max_length=100, description="the client's id of the request")]
Key = Annotated[
    str,
    msgspec.Meta(
        min_length=1, max_length=255, description="as the Idempotency-Key header of HTTP writes"
    ),
]
Version = Annotated[int, msgspec.Meta(ge=0)]


class Hello(msgspec.Struct, tag="hello", forbid_unknown_fields=True):
    """The first message: who is calling (a seat's or the referee's token, a player's key, or
    none for a spectator), the last version the caller has seen (0 for the whole log) and
    whether to be sent ``presence`` when the table's present seats change."""

    token: str | None = None
    after: Version = 0
    presence: bool = False


class Play(msgspec.Struct, tag="play", forbid_unknown_fields=True):
    """A move for the caller's seat, as the body of ``POST /games/{id}/moves``."""

    ref: Ref
    move: str | None = None
    steps: list[Step] | None = None
    expected_version: int | None = None
    seat: int | None = None
    idempotency_key: Key | None = None

    def command(self) -> PlayMove:
        return PlayMove(self.move, self.steps, self.expected_version, self.seat)


class UndoRequest(msgspec.Struct, tag="undo", forbid_unknown_fields=True):
    """An undo, as the body of ``POST /games/{id}/undo``."""

    ref: Ref
    reason: str = ""
    expected_version: int | None = None
    idempotency_key: Key | None = None

    def command(self) -> Undo:
        return Undo(self.reason, self.expected_version)


class Chance(msgspec.Struct, tag="chance", forbid_unknown_fields=True):
    """An outcome from the table (external chance, referee), as ``POST /games/{id}/chance``."""

    ref: Ref
    card: str | None = None
    dice: list[int] | None = None
    hands: list[list[str]] | None = None
    expected_version: int | None = None
    idempotency_key: Key | None = None

    def command(self) -> PostChance:
        return PostChance(self.card, self.dice, self.hands, self.expected_version)


class Ping(msgspec.Struct, tag="ping", forbid_unknown_fields=True):
    """Is the server there? (Answered with ``pong``; browsers cannot send protocol pings.)"""

    ref: Ref | None = None


ClientMessage = Hello | Play | UndoRequest | Chance | Ping
Write = Play | UndoRequest | Chance


class Welcome(msgspec.Struct, tag="welcome"):
    """The answer to ``hello``: who the caller is and the game's version now."""

    role: Literal["seat", "referee", "spectator"]
    seat: int | None
    version: int


class Events(msgspec.Struct, tag="events"):
    """Events of the log the caller had not been sent, as ``GET /games/{id}/events`` shows
    them (redacted for the caller, delayed for spectators), in version order."""

    events: list[EventOut]


class Played(msgspec.Struct, tag="played"):
    """A write stored (durably): the events the caller had not been sent up to the write's
    own, and the caller's legal moves after it."""

    ref: str
    version: int
    events: list[EventOut]
    legal_moves: LegalMoves


class Refused(msgspec.Struct, tag="refused"):
    """A message refused, with the RFC 9457 problem the HTTP route would answer (``ref`` is
    null when the message was unreadable)."""

    ref: str | None
    problem: dict[str, Any]


class Pong(msgspec.Struct, tag="pong"):
    """The answer to ``ping``."""

    ref: str | None = None


class SeatPresence(msgspec.Struct):
    """Whether a seat's player is at the table now, as ``GET /games/{id}`` shows it."""

    seat: int
    present: bool


class Presence(msgspec.Struct, tag="presence"):
    """The table's present seats changed (a seat's socket or stream opened, a request made as
    the seat, or the time since it was last seen ran out): every seat of the table, in seat
    order. Presence is this server process's: it is never an event of the log."""

    seats: list[SeatPresence]


ServerMessage = Welcome | Events | Played | Refused | Pong | Presence

CLOSE_CODES: dict[int, str] = {
    1000: "normal closure (either side)",
    1009: "a message larger than the largest request body (TABULA_MAX_BODY_BYTES)",
    1011: "the server failed (the error is logged)",
    4400: "the first message was not a readable hello",
    4401: (
        "the hello's token is no token of this game, or its key is refused (the player's feed:"
        " the hello holds no player's key that checks); or, with the reason `key-revoked`, the"
        " player's key the socket was opened with was replaced or her handle retired"
    ),
    4404: "no such game",
    4408: "no hello within the first seconds",
    4409: "too slow a reader: a push could not be sent for too long",
    4429: (
        "too many open streams and sockets (per client or in all), or a socket that went on"
        " sending for a whole burst over its budget of messages (TABULA_SOCKET_MESSAGE_RATE,"
        " TABULA_SOCKET_MESSAGE_BURST); retry later"
    ),
}
"""Why the server closes a socket (the WebSocket close codes it uses)."""


def schema() -> dict[str, Any]:
    """The JSON Schema of every message: ``$defs/ClientMessage`` for what a client sends,
    ``$defs/ServerMessage`` for what the server sends, and each message by its name; the
    player's feed's (``GET /me/socket``, ``service.api.feed_messages``) as
    ``$defs/FeedClientMessage`` and ``$defs/FeedServerMessage``."""
    from service.api.feed_messages import FeedClientMessage, FeedServerMessage

    unions = [ClientMessage, ServerMessage, FeedClientMessage, FeedServerMessage]
    (client, server, feed_client, feed_server), defs = msgspec.json.schema_components(
        unions, ref_template="#/$defs/{name}"
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Tabula game socket messages",
        "description": " ".join((__doc__ or "").split()),
        "$defs": {
            "ClientMessage": client,
            "ServerMessage": server,
            "FeedClientMessage": feed_client,
            "FeedServerMessage": feed_server,
            **defs,
        },
        "x-close-codes": {str(code): why for code, why in CLOSE_CODES.items()},
    }

"""Multi-call flows written once for both clients, as generators of steps (sans-IO).

A flow yields a step and is sent back its outcome: a ``Call`` is sent and its parsed reply
comes back (its error is thrown into the flow); ``Open`` starts a stream (closing the one
before) and ``Read`` gets its next event (``None`` once it ends); ``Wait`` pauses; ``Emit``
hands a value out to whoever iterates the flow. ``Client.run``/``AsyncClient.run`` drive a
flow to its return value, ``Client.iterate``/``AsyncClient.iterate`` yield what it emits.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Generic, TypeAlias, TypeVar

import httpx
import msgspec

from tabula_client.feed import Note
from tabula_client.models import GameView, StoredEvent
from tabula_client.routes import Call, Routes, StreamCall

T = TypeVar("T")
R = TypeVar("R")
RECONNECTS = 5
"""How often ``follow`` reconnects in a row without receiving an event before giving up."""


@dataclass(frozen=True)
class Open:
    """Open ``call``'s stream, closing any stream opened before; the outcome is ``None``."""

    call: StreamCall


@dataclass(frozen=True)
class Read:
    """The next event of the open stream; ``None`` once the server has ended it."""


@dataclass(frozen=True)
class Wait:
    """Pause for ``seconds``."""

    seconds: float


@dataclass(frozen=True)
class Emit(Generic[T]):
    """Hand ``value`` to the caller of ``iterate``."""

    value: T


@dataclass(frozen=True)
class Done(Generic[T]):
    """What a driver yields last: the flow's return value."""

    value: T


Step: TypeAlias = Call[Any] | Open | Read | Wait | Emit[Any]
Flow: TypeAlias = Generator[Step, Any, R]


def backoff(attempt: int) -> float:
    """Seconds to wait before reconnect number ``attempt`` (1, 2, ...)."""
    return float(min(0.1 * 2 ** (attempt - 1), 5.0))


def stream_ended_early(game_id: str) -> httpx.RemoteProtocolError:
    """The error for a stream that keeps ending while its game is still running."""
    return httpx.RemoteProtocolError(f"the event stream of game {game_id} ended before it finished")


def follow(routes: Routes, game_id: str, after: int = 0) -> Flow[None]:
    """Emits the game's events after version ``after`` as they happen, until it has finished.

    A dropped connection is resumed after the last event received (``Last-Event-ID``), so
    each event comes once; ``RECONNECTS`` failures in a row raise the last one.
    """
    cursor, attempt = after, 0
    while True:
        try:
            yield Open(routes.follow(game_id, after=cursor))
            while (event := (yield Read())) is not None:
                if event.version > cursor:
                    cursor, attempt = event.version, 0
                    yield Emit[StoredEvent](event)
            view: GameView = yield routes.game(game_id)
            if view.is_finished and view.version <= cursor:
                return
            failure: Exception = stream_ended_early(game_id)
        except httpx.TransportError as error:
            failure = error
        attempt += 1
        if attempt > RECONNECTS:
            raise failure
        yield Wait(backoff(attempt))


def notes(routes: Routes, after: str | None = None) -> Flow[None]:
    """Emits the player's notes over ``GET /me/stream`` after the note id ``after`` (with
    none, those that stand now), as they come.

    A stream that drops or ends is opened again after the greatest id received, so each note
    comes once; ``RECONNECTS`` failures in a row raise the last one. A stream the server ended
    because her key was replaced is opened again and refused (``Unauthorized``).
    """
    cursor, attempt = after, 0
    while True:
        try:
            yield Open(routes.stream_notes(after=cursor))
            while (message := (yield Read())) is not None:
                note = msgspec.json.decode(message.data, type=Note)
                if cursor is None or note.id > cursor:
                    cursor = note.id
                attempt = 0
                yield Emit[Note](note)
            failure: Exception = httpx.RemoteProtocolError("the player's feed stream ended")
        except httpx.TransportError as error:
            failure = error
        attempt += 1
        if attempt > RECONNECTS:
            raise failure
        yield Wait(backoff(attempt))


class Runner(Generic[R]):
    """Steps a flow: the generator protocol (send, throw, ``StopIteration``) in one place,
    shared by the synchronous and the asynchronous driver."""

    def __init__(self, flow: Flow[R]) -> None:
        self.flow = flow
        self._reply: Any = None
        self._error: Exception | None = None

    def next(self) -> Step | Done[R]:
        """The flow's next step, given the outcome of the last one; ``Done`` at its end."""
        reply, error = self._reply, self._error
        self._reply, self._error = None, None
        try:
            return self.flow.send(reply) if error is None else self.flow.throw(error)
        except StopIteration as stop:
            return Done(stop.value)

    def reply(self, value: Any) -> None:
        """The outcome of the last step."""
        self._reply = value

    def fail(self, error: Exception) -> None:
        """The last step failed: ``error`` is raised inside the flow, which may handle it."""
        self._error = error

    def close(self) -> None:
        """Stop the flow early (its ``finally`` blocks run)."""
        self.flow.close()

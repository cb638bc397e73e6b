"""The I/O-free base of both clients: one method per route, each returning a ``Call``.

A ``Call`` is the ``httpx.Request`` to send and the function that turns the response into a
wire model (or raises the ``TabulaError`` its problem calls for). ``Client`` and
``AsyncClient`` only send; adding a route is one method here and one in each client.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import quote

import httpx
import msgspec

from tabula_client.errors import error_for
from tabula_client.models import (
    Audit,
    CreatedGame,
    EventPage,
    GameRecord,
    GameSummary,
    GameView,
    Health,
    LegalMoves,
    Move,
    PlayResult,
    RuleSetInfo,
    Step,
    StoredEvent,
)
from tabula_client.sse import Message

T = TypeVar("T")
DEFAULT_URL = "http://127.0.0.1:8000"
Chance = Literal["server", "external"]
STREAM_READ_TIMEOUT = 60.0
"""Seconds a live stream may stay silent; the server sends a keep-alive every 15."""


@dataclass(frozen=True)
class Call(Generic[T]):
    """A request and the parser of its response."""

    request: httpx.Request
    parse: Callable[[httpx.Response], T]


@dataclass(frozen=True)
class StreamCall:
    """A streaming request, the check of its response (an error's body read first), and the
    parser of each message."""

    request: httpx.Request
    check: Callable[[httpx.Response], None]
    parse: Callable[[Message], StoredEvent | None]


class Routes:
    """Builds the request for every route and parses its response; never does I/O."""

    def __init__(
        self, base_url: str = DEFAULT_URL, *, token: str | None = None, timeout: float = 10.0
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def with_token(self, token: str | None) -> Routes:
        """The same routes, acting with another token."""
        return Routes(self.base_url, token=token, timeout=self.timeout)

    def health(self) -> Call[Health]:
        """``GET /health``."""
        return Call(self._request("GET", "/health"), _decoder(Health))

    def rulesets(self) -> Call[list[RuleSetInfo]]:
        """``GET /rulesets``."""
        return Call(self._request("GET", "/rulesets"), _member("rulesets", list[RuleSetInfo]))

    def create_game(
        self,
        ruleset: str,
        seats: Sequence[str],
        *,
        options: Mapping[str, Any] | None = None,
        chance: Chance = "server",
        seed: str | None = None,
        auto_chance: bool = False,
        allow_undo: bool = False,
        tags: Mapping[str, str] | None = None,
    ) -> Call[CreatedGame]:
        """``POST /games``."""
        body: dict[str, Any] = {
            "ruleset": ruleset,
            "seats": [{"name": name} for name in seats],
            "options": dict(options or {}),
            "chance": chance,
            "auto_chance": auto_chance,
            "allow_undo": allow_undo,
            "tags": dict(tags or {}),
        }
        if seed is not None:
            body["seed"] = seed
        return Call(self._request("POST", "/games", json=body), _decoder(CreatedGame))

    def list_games(
        self, *, status: str | None = None, ruleset: str | None = None, tag: str | None = None
    ) -> Call[list[GameSummary]]:
        """``GET /games``, filtered; ``tag`` is ``key:value``."""
        params = {"status": status, "ruleset": ruleset, "tag": tag}
        request = self._request("GET", "/games", params=params)
        return Call(request, _member("games", list[GameSummary]))

    def game(self, game_id: str) -> Call[GameView]:
        """``GET /games/{id}``: the current state view."""
        return Call(self._request("GET", _game_path(game_id)), parse_view)

    def state(self, game_id: str, at: int) -> Call[GameView]:
        """``GET /games/{id}/state?at=N``: the state view after event ``at``."""
        request = self._request("GET", _game_path(game_id, "state"), params={"at": at})
        return Call(request, parse_view)

    def legal_moves(self, game_id: str) -> Call[LegalMoves]:
        """``GET /games/{id}/legal-moves``: the caller's moves (every pending seat's for the
        referee)."""
        request = self._request("GET", _game_path(game_id, "legal-moves"))
        return Call(request, _decoder(LegalMoves))

    def play(
        self,
        game_id: str,
        move: str | Move | None = None,
        *,
        steps: Sequence[Step] | None = None,
        seat: int | None = None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Call[PlayResult]:
        """``POST /games/{id}/moves``: a move id from legal-moves, or its steps."""
        body = play_body(move, steps=steps, seat=seat, expected_version=expected_version)
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        request = self._request("POST", _game_path(game_id, "moves"), json=body, headers=headers)
        return Call(request, parse_play_result)

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> Call[EventPage]:
        """``GET /games/{id}/events?after=N&limit=M``: the log after version ``after``."""
        params = {"after": after, "limit": limit}
        request = self._request("GET", _game_path(game_id, "events"), params=params)
        return Call(request, _decoder(EventPage))

    def undo(
        self,
        game_id: str,
        reason: str = "",
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Call[PlayResult]:
        """``POST /games/{id}/undo``: revert the latest decision and what followed it."""
        body: dict[str, Any] = {"reason": reason}
        if expected_version is not None:
            body["expected_version"] = expected_version
        return self._write(_game_path(game_id, "undo"), body, idempotency_key)

    def post_chance(
        self,
        game_id: str,
        *,
        card: str | None = None,
        dice: Sequence[int] | None = None,
        hands: Sequence[Sequence[str]] | None = None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Call[PlayResult]:
        """``POST /games/{id}/chance``: the card drawn, the dice thrown or the hands dealt at
        the table (external chance, referee)."""
        body = chance_body(card=card, dice=dice, hands=hands)
        if expected_version is not None:
            body["expected_version"] = expected_version
        return self._write(_game_path(game_id, "chance"), body, idempotency_key)

    def audit(self, game_id: str) -> Call[Audit]:
        """``GET /games/{id}/audit``: the full log, the seed once revealed, its verification."""
        return Call(self._request("GET", _game_path(game_id, "audit")), _decoder(Audit))

    def export(self, game_id: str) -> Call[GameRecord]:
        """``GET /games/{id}/export``: the game record, kept whole in ``GameRecord.raw``."""
        return Call(self._request("GET", _game_path(game_id, "export")), parse_record)

    def import_game(self, record: GameRecord | Mapping[str, Any]) -> Call[CreatedGame]:
        """``POST /games/import``: replay and store a record (a ``GameRecord`` sends its
        ``raw``) as a new game with new tokens."""
        body = record_body(record)
        request = self._request("POST", "/games/import", json=body)
        return Call(request, _decoder(CreatedGame))

    def follow(self, game_id: str, *, after: int = 0) -> StreamCall:
        """``GET /games/{id}/events/stream``: the events after version ``after``, live, as
        Server-Sent Events (sent as ``Last-Event-ID``, which is also how a stream resumes)."""
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
        if after:
            headers["Last-Event-ID"] = str(after)
        request = self._request("GET", _game_path(game_id, "events", "stream"), headers=headers)
        timeout = httpx.Timeout(self.timeout, read=max(self.timeout, STREAM_READ_TIMEOUT))
        request.extensions["timeout"] = timeout.as_dict()
        return StreamCall(request, check_stream, parse_message)

    def _write(
        self, path: str, body: dict[str, Any], idempotency_key: str | None
    ) -> Call[PlayResult]:
        """A ``POST`` that appends events and answers with them and the state after them."""
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        request = self._request("POST", path, json=body, headers=headers)
        return Call(request, parse_play_result)

    def _request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str | int | None] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Request:
        """A request to ``path`` with the token, the timeout and a JSON body if any."""
        all_headers = {"Accept": "application/json, application/problem+json"}
        all_headers.update(headers or {})
        if self.token:
            all_headers["Authorization"] = f"Bearer {self.token}"
        content = None
        if json is not None:
            content = msgspec.json.encode(json)
            all_headers["Content-Type"] = "application/json"
        query = {k: v for k, v in (params or {}).items() if v is not None}
        return httpx.Request(
            method,
            self.base_url + path,
            params=query,
            content=content,
            headers=all_headers,
            extensions={"timeout": httpx.Timeout(self.timeout).as_dict()},
        )


def play_body(
    move: str | Move | None,
    *,
    steps: Sequence[Step] | None,
    seat: int | None,
    expected_version: int | None,
) -> dict[str, Any]:
    """The body of ``POST /games/{id}/moves``; exactly one of ``move`` and ``steps``."""
    if (move is None) == (steps is None):
        raise ValueError("play needs either a move id or its steps, not both or neither")
    body: dict[str, Any] = {}
    if move is not None:
        body["move"] = move.id if isinstance(move, Move) else move
    else:
        body["steps"] = msgspec.to_builtins(list(steps or ()))
    if seat is not None:
        body["seat"] = seat
    if expected_version is not None:
        body["expected_version"] = expected_version
    return body


def chance_body(
    *,
    card: str | None,
    dice: Sequence[int] | None,
    hands: Sequence[Sequence[str]] | None,
) -> dict[str, Any]:
    """The body of ``POST /games/{id}/chance``; exactly one of ``card``, ``dice``, ``hands``."""
    given: dict[str, Any] = {
        "card": card,
        "dice": None if dice is None else list(dice),
        "hands": None if hands is None else [list(hand) for hand in hands],
    }
    chosen = {name: value for name, value in given.items() if value is not None}
    if len(chosen) != 1:
        raise ValueError("post_chance needs exactly one of card, dice or hands")
    return chosen


def record_body(record: GameRecord | Mapping[str, Any]) -> Any:
    """What ``POST /games/import`` sends for ``record``: the record as exported."""
    if isinstance(record, GameRecord):
        if record.raw:
            return record.raw
        return {k: v for k, v in msgspec.to_builtins(record).items() if k != "raw"}
    return dict(record)


def _game_path(game_id: str, *rest: str) -> str:
    return "/".join(("/games", quote(game_id, safe=""), *rest))


def _json(response: httpx.Response) -> Any:
    """The decoded body of a successful response; the error its problem calls for otherwise."""
    if response.is_error:
        raise error_for(response)
    return msgspec.json.decode(response.content)


def _decoder(model: type[T]) -> Callable[[httpx.Response], T]:
    def parse(response: httpx.Response) -> T:
        return msgspec.convert(_json(response), model)

    return parse


def _member(name: str, model: Any) -> Callable[[httpx.Response], Any]:
    """A parser of one member of the body (``{"games": [...]}``)."""

    def parse(response: httpx.Response) -> Any:
        return msgspec.convert(_json(response)[name], model)

    return parse


def view_from(data: dict[str, Any]) -> GameView:
    """A ``GameView`` from a decoded state view, keeping all of it in ``raw``."""
    return msgspec.structs.replace(msgspec.convert(data, GameView), raw=data)


def parse_view(response: httpx.Response) -> GameView:
    """A state view response."""
    return view_from(_json(response))


def parse_play_result(response: httpx.Response) -> PlayResult:
    """A ``POST /games/{id}/moves`` response."""
    data = _json(response)
    result = msgspec.convert(data, PlayResult)
    return msgspec.structs.replace(result, state=view_from(data["state"]))


def parse_record(response: httpx.Response) -> GameRecord:
    """A game record, whole in ``raw``."""
    data = _json(response)
    return msgspec.structs.replace(msgspec.convert(data, GameRecord), raw=data)


def check_stream(response: httpx.Response) -> None:
    """Raise the error a streaming response's problem calls for (read an error's body first)."""
    if response.is_error:
        raise error_for(response)


def parse_message(message: Message) -> StoredEvent | None:
    """The stored event a server-sent message carries (``None`` for other messages)."""
    if message.id is None or not message.id.isdigit():
        return None
    return msgspec.json.decode(message.data, type=StoredEvent)

"""The I/O-free base of both clients: one method per operation, each returning a ``Call``.

A ``Call`` is the ``httpx.Request`` to send, the ``httpx.Auth`` to send it with and the
function that turns the response into a wire type (or raises the ``TabulaError`` its problem
calls for). ``Client`` and ``AsyncClient`` only send; adding an operation is one method here
and one line in each client (and an entry in ``OPERATIONS``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, Literal, TypedDict, TypeVar, Unpack
from urllib.parse import quote

import httpx
import msgspec

from tabula_client.auth import BearerAuth
from tabula_client.errors import error_for
from tabula_client.models import (
    Archive,
    Audit,
    BatchCreated,
    CreatedGame,
    EventPage,
    GameList,
    GameRecord,
    GameSummary,
    GameView,
    Health,
    Leaderboard,
    LegalMoves,
    Move,
    Player,
    PlayResult,
    RuleSetInfo,
    Standings,
    Step,
    StoredEvent,
)
from tabula_client.sse import Message
from tabula_client.wire import (
    BotInfo,
    CreateGame,
    GameAnalysis,
    Hints,
    Joined,
    Lobby,
    Me,
    MyTable,
    NewKey,
    NewSeek,
    Progress,
    Registered,
    Rematched,
    RoundPairedReply,
    RuleSetDetail,
    SeekView,
    TournamentCreatedReply,
    TournamentList,
    TournamentStandings,
    TournamentView,
)

T = TypeVar("T")
DEFAULT_URL = "http://127.0.0.1:8000"
Chance = Literal["server", "external"]
AdjudicationKind = Literal["forfeit", "penalty", "agreement"]
STREAM_READ_TIMEOUT = 60.0
"""Seconds a live stream may stay silent; the server sends a keep-alive every 15."""

OPERATIONS = {
    "health": "health",
    "listRulesets": "rulesets",
    "getRuleset": "ruleset",
    "createGame": "create_game",
    "createBatch": "create_batch",
    "importGame": "import_game",
    "listGames": "list_games",
    "getGame": "game",
    "getStateAt": "state",
    "getLegalMoves": "legal_moves",
    "playMove": "play",
    "undo": "undo",
    "postChance": "post_chance",
    "adjudicate": "adjudicate",
    "listEvents": "events",
    "streamEvents": "follow",
    "audit": "audit",
    "exportGame": "export",
    "getBoardSvg": "board_svg",
    "getRulesetBoardSvg": "ruleset_board_svg",
    "viewGame": "game_page",
    "standings": "standings",
    "archive": "archive",
    "listRatings": "ratings",
    "getPlayer": "player",
    "listTournaments": "tournaments",
    "createTournament": "create_tournament",
    "pairRound": "pair_round",
    "getTournament": "tournament",
    "myTable": "my_table",
    "tournamentStandings": "tournament_standings",
    "withdrawPlayer": "withdraw",
    "exportTournament": "export_tournament",
    "listBots": "bots",
    "getAnalysis": "analysis",
    "getHints": "hints",
    "handSeatToBot": "hand_to_bot",
    "handSeatBack": "hand_back",
    "registerPlayer": "register_player",
    "getMe": "me",
    "rotateKey": "rotate_key",
    "retireHandle": "retire_handle",
    "mintPlayerKey": "mint_player_key",
    "getPlayerRecord": "player_record",
    "joinTable": "join_table",
    "leaveTable": "leave_table",
    "declineInvitation": "decline_invitation",
    "startTable": "start_table",
    "cancelTable": "cancel_table",
    "getLobby": "lobby",
    "postSeek": "post_seek",
    "getSeek": "seek",
    "cancelSeek": "cancel_seek",
    "rematch": "rematch",
    "streamMyNotes": "stream_notes",
}
"""The method of ``Routes``, ``Client`` and ``AsyncClient`` for each operation id of
openapi.json (a test checks that none is missing)."""


@dataclass(frozen=True)
class Call(Generic[T]):
    """A request, the auth to send it with, and the parser of its response."""

    request: httpx.Request
    parse: Callable[[httpx.Response], T]
    auth: httpx.Auth | None = None


@dataclass(frozen=True)
class StreamCall:
    """A streaming request, its auth, the check of its response (an error's body read
    first), and the parser of each message (what it gives for the messages it takes: a
    game's stored events, a feed's note messages; None for the others)."""

    request: httpx.Request
    check: Callable[[httpx.Response], None]
    parse: Callable[[Message], Any]
    auth: httpx.Auth | None = None


class Routes:
    """Builds the call for every operation; never does I/O. Every call carries the one
    bearer the routes act with: a seat's, the referee's or a tournament's token, a registered
    player's key or an app's key (none: a spectator, or a player registering herself)."""

    def __init__(
        self, base_url: str = DEFAULT_URL, *, token: str | None = None, timeout: float = 10.0
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.auth = BearerAuth(token) if token else None

    def with_token(self, token: str | None) -> Routes:
        """The same routes, acting with another token."""
        return Routes(self.base_url, token=token, timeout=self.timeout)

    def health(self) -> Call[Health]:
        """``GET /health``: liveness."""
        return self._call("GET", "/health", _decoder(Health))

    def rulesets(self) -> Call[list[RuleSetInfo]]:
        """``GET /rulesets``: the rule sets offered, with player counts and option defaults."""
        return self._call("GET", "/rulesets", _member("rulesets", list[RuleSetInfo]))

    def ruleset(self, name: str) -> Call[RuleSetDetail]:
        """``GET /rulesets/{name}``: one rule set, its rules text and its options' schema."""
        return self._call("GET", "/rulesets/" + quote(name, safe=""), _decoder(RuleSetDetail))

    def ruleset_board_svg(self, name: str, lang: str | None = None) -> Call[str]:
        """``GET /rulesets/{name}/board.svg?lang=``: the rule set's board as a game begins."""
        path = "/rulesets/" + quote(name, safe="") + "/board.svg"
        return self._call("GET", path, _text, params={"lang": lang}, accept="image/svg+xml")

    def bots(self) -> Call[list[BotInfo]]:
        """``GET /bots``: the bot levels a seat can be played by, weakest first."""
        return self._call("GET", "/bots", _member("bots", list[BotInfo]))

    def create_game(
        self, ruleset: str, seats: Sequence[SeatLike], **settings: Unpack[GameSettings]
    ) -> Call[CreatedGame]:
        """``POST /games``: a new game; the reply holds every token, once. A seat is a guest's
        name, ``{"name": "Robin", "bot": "<level>"}`` for a seat a server bot plays
        (``bot_seat``), or ``{"player": "<handle>"}`` for a registered player's seat
        (``player_seat``), which her key plays: its place in ``tokens.seats`` is ``None``."""
        body = game_body(ruleset, seats, **settings)
        return self._call("POST", "/games", _decoder(CreatedGame), json=body)

    def create_batch(self, games: Sequence[CreateGame | Mapping[str, Any]]) -> Call[BatchCreated]:
        """``POST /games/batch``: several games at once (each a ``CreateGame`` or its JSON,
        e.g. ``game_body(...)``), all or none."""
        body = {"games": [msgspec.to_builtins(game) for game in games]}
        return self._call("POST", "/games/batch", _decoder(BatchCreated), json=body)

    def import_game(self, record: GameRecord | Mapping[str, Any]) -> Call[CreatedGame]:
        """``POST /games/import``: replay and store a record (a ``GameRecord`` sends its
        ``raw``) as a new game with new tokens."""
        return self._call("POST", "/games/import", _decoder(CreatedGame), json=record_body(record))

    def list_games(
        self,
        *,
        status: str | None = None,
        ruleset: str | None = None,
        tag: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[list[GameSummary]]:
        """``GET /games``, filtered; ``tag`` is ``key:value``: one page (at most ``limit``
        games, the server's largest page without it; ``games_page`` gives its ``next``)."""
        page = self.games_page(status=status, ruleset=ruleset, tag=tag, limit=limit, cursor=cursor)
        return Call(page.request, _member("games", list[GameSummary]), page.auth)

    def games_page(
        self,
        *,
        status: str | None = None,
        ruleset: str | None = None,
        tag: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[GameList]:
        """``GET /games`` as a page: its games and ``next``, the path of the next page (None
        on the last); the next page is ``games_page(..., cursor=next_cursor(page))`` with the
        same filters."""
        params = {"status": status, "ruleset": ruleset, "tag": tag, "limit": limit}
        params["cursor"] = cursor
        return self._call("GET", "/games", _decoder(GameList), params=params)

    def game(self, game_id: str) -> Call[GameView]:
        """``GET /games/{id}``: the current state view, as the caller may see it."""
        return self._call("GET", _game_path(game_id), parse_view)

    def state(self, game_id: str, at: int) -> Call[GameView]:
        """``GET /games/{id}/state?at=N``: the state view after event ``at``."""
        path = _game_path(game_id, "state")
        return self._call("GET", path, parse_view, params={"at": at})

    def legal_moves(self, game_id: str) -> Call[LegalMoves]:
        """``GET /games/{id}/legal-moves``: the caller's moves (every pending seat's for the
        referee)."""
        return self._call("GET", _game_path(game_id, "legal-moves"), _decoder(LegalMoves))

    def play(
        self,
        game_id: str,
        move: str | Move | None = None,
        *,
        steps: Sequence[Step] | None = None,
        seat: int | None = None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        minimal: bool = False,
    ) -> Call[PlayResult]:
        """``POST /games/{id}/moves``: a move id from legal-moves (or the ``Move``), or its
        steps. ``minimal`` asks for the reply without its ``state`` (``Prefer:
        return=minimal``): the events and the next legal moves are still there."""
        body = play_body(move, steps=steps, seat=seat, expected_version=expected_version)
        return self._write(game_id, "moves", body, idempotency_key, minimal)

    def undo(
        self,
        game_id: str,
        reason: str = "",
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Call[PlayResult]:
        """``POST /games/{id}/undo``: revert the latest decision and what followed it (the
        referee, or a seat where the game allows undo)."""
        body = _with_version({"reason": reason}, expected_version)
        return self._write(game_id, "undo", body, idempotency_key)

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
        body = _with_version(chance_body(card=card, dice=dice, hands=hands), expected_version)
        return self._write(game_id, "chance", body, idempotency_key)

    def adjudicate(
        self,
        game_id: str,
        kind: AdjudicationKind,
        reason: str,
        *,
        seat: int | None = None,
        winners: Sequence[int] | None = None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Call[PlayResult]:
        """``POST /games/{id}/adjudicate``: the referee's decision (a seat's forfeit or
        penalty, or the winners agreed at the table), on record with its reason."""
        body: dict[str, Any] = {"kind": kind, "reason": reason}
        if seat is not None:
            body["seat"] = seat
        if winners is not None:
            body["winners"] = list(winners)
        body = _with_version(body, expected_version)
        return self._write(game_id, "adjudicate", body, idempotency_key)

    def hand_to_bot(
        self,
        game_id: str,
        seat: int,
        bot: str,
        reason: str = "",
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Call[PlayResult]:
        """``POST /games/{id}/seats/{seat}/bot``: the referee hands a seat to a server bot,
        which plays it from then on."""
        body = _with_version({"bot": bot, "reason": reason}, expected_version)
        return self._write(game_id, f"seats/{seat}/bot", body, idempotency_key)

    def hand_back(
        self, game_id: str, seat: int, *, idempotency_key: str | None = None
    ) -> Call[PlayResult]:
        """``DELETE /games/{id}/seats/{seat}/bot``: the referee hands a bot's seat back to its
        player, whose token moves again."""
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        path = _game_path(game_id, "seats", str(seat), "bot")
        return self._call("DELETE", path, _decoder(PlayResult), headers=headers)

    def join_table(
        self,
        game_id: str,
        *,
        seat: int | None = None,
        name: str = "",
        idempotency_key: str | None = None,
    ) -> Call[Joined]:
        """``POST /games/{id}/join``: a seat of a gathering table (``seat``, else the one
        kept for the caller's invitation, else the first open one). With a player's key she
        sits as herself (``token`` is None); with no token a guest sits under ``name`` and
        ``token`` is her seat's, shown only here."""
        body: dict[str, Any] = {"name": name} if name else {}
        if seat is not None:
            body["seat"] = seat
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        path = _game_path(game_id, "join")
        return self._call("POST", path, _decoder(Joined), json=body, headers=headers)

    def leave_table(
        self,
        game_id: str,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Call[PlayResult]:
        """``POST /games/{id}/leave``: the seat taken by joining opens again (before the table
        starts); the state in the reply is a spectator's."""
        return self._write(game_id, "leave", _with_version({}, expected_version), idempotency_key)

    def decline_invitation(
        self,
        game_id: str,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Call[PlayResult]:
        """``POST /games/{id}/decline``: the invited player declines her seat, which opens."""
        body = _with_version({}, expected_version)
        return self._write(game_id, "decline", body, idempotency_key)

    def start_table(
        self,
        game_id: str,
        bots: str | None = None,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Call[PlayResult]:
        """``POST /games/{id}/start``: the referee starts a gathering table now, bots of the
        level ``bots`` in its open seats."""
        body = _with_version({"bots": bots} if bots else {}, expected_version)
        return self._write(game_id, "start", body, idempotency_key)

    def cancel_table(
        self,
        game_id: str,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Call[PlayResult]:
        """``POST /games/{id}/cancel``: the referee closes a gathering table, with no result."""
        body = _with_version({}, expected_version)
        return self._write(game_id, "cancel", body, idempotency_key)

    def rematch(self, game_id: str, *, idempotency_key: str | None = None) -> Call[Rematched]:
        """``POST /games/{id}/rematch`` (a seat of the finished game: its token, or its
        player's key): the next table, with the same rule set and options, the seats turned by
        one. The asker sits there (a guest's ``token`` is her new seat's, shown only to her);
        the other players are invited, the other guests' seats open. Asked again, by anyone
        of the game: the same table."""
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        path = _game_path(game_id, "rematch")
        return self._call("POST", path, _decoder(Rematched), json={}, headers=headers)

    def lobby(
        self,
        *,
        ruleset: str | None = None,
        players: int | None = None,
        rated: bool | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[Lobby]:
        """``GET /lobby``: a page of the listed tables with an open seat, the longest waiting
        first, filtered; ``next`` is the path of the next page (None on the last)."""
        params: dict[str, str | int | None] = {
            "ruleset": ruleset,
            "players": players,
            "rated": None if rated is None else str(rated).lower(),
            "limit": limit,
            "cursor": cursor,
        }
        return self._call("GET", "/lobby", _decoder(Lobby), params=params)

    def post_seek(
        self,
        ruleset: str,
        players: int,
        *,
        rated: bool = False,
        options: Mapping[str, Any] | None = None,
        bots_after: float | None = None,
        bots: str = "greedy",
        name: str = "",
    ) -> Call[NewSeek]:
        """``POST /seeks``: ask for a table of ``players`` seats of ``ruleset`` (quick play),
        with the client's player's key, or with no token as a guest seated under ``name``
        (the reply's ``secret``, shown only here, reads the seek and is her seat's token once
        matched). ``bots_after``: seconds after which bots of level ``bots`` fill the seats
        nobody took."""
        body: dict[str, Any] = {"ruleset": ruleset, "players": players, "rated": rated}
        body["options"] = dict(options or {})
        if bots_after is not None:
            body["bots_after"] = {"seconds": bots_after, "level": bots}
        if name:
            body["name"] = name
        return self._call("POST", "/seeks", _decoder(NewSeek), json=body)

    def seek(self, seek_id: str) -> Call[SeekView]:
        """``GET /seeks/{id}``: the seek, for its owner (the player's key or the guest's
        secret): waiting, matched (its ``game_id`` and ``seat``), expired or cancelled."""
        return self._call("GET", f"/seeks/{quote(seek_id, safe='')}", _decoder(SeekView))

    def cancel_seek(self, seek_id: str) -> Call[SeekView]:
        """``DELETE /seeks/{id}``: the owner cancels a waiting seek."""
        path = f"/seeks/{quote(seek_id, safe='')}"
        return self._call("DELETE", path, _decoder(SeekView))

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> Call[EventPage]:
        """``GET /games/{id}/events?after=N&limit=M``: the log after version ``after``."""
        params = {"after": after, "limit": limit}
        return self._call("GET", _game_path(game_id, "events"), _decoder(EventPage), params=params)

    def follow(self, game_id: str, *, after: int = 0) -> StreamCall:
        """``GET /games/{id}/events/stream``: the events after version ``after``, live, as
        Server-Sent Events (sent as ``Last-Event-ID``, which is also how a stream resumes)."""
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
        if after:
            headers["Last-Event-ID"] = str(after)
        request = self._request("GET", _game_path(game_id, "events", "stream"), headers=headers)
        timeout = httpx.Timeout(self.timeout, read=max(self.timeout, STREAM_READ_TIMEOUT))
        request.extensions["timeout"] = timeout.as_dict()
        return StreamCall(request, check_stream, parse_message, self.auth)

    def stream_notes(self, *, after: str | None = None) -> StreamCall:
        """``GET /me/stream`` (a player's key): her feed's notes after the note id ``after``
        (with none, the notes that stand now), live, as Server-Sent Events whose ids are the
        notes' (``after`` goes as ``Last-Event-ID``, which is also how a stream resumes); each
        ``note`` message as it came (``flows.notes`` decodes them)."""
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
        if after:
            headers["Last-Event-ID"] = after
        request = self._request("GET", "/me/stream", headers=headers)
        timeout = httpx.Timeout(self.timeout, read=max(self.timeout, STREAM_READ_TIMEOUT))
        request.extensions["timeout"] = timeout.as_dict()
        return StreamCall(request, check_stream, note_message, self.auth)

    def analysis(self, game_id: str) -> Call[GameAnalysis | Progress]:
        """``GET /games/{id}/analysis``: each seat's chances at every position, the luck of
        each chance outcome and the cost of each decision (``GameAnalysis``); while it is
        computed, how far it has got (``Progress``, a 202: ask again)."""
        return self._call("GET", _game_path(game_id, "analysis"), parse_analysis)

    def hints(self, game_id: str) -> Call[Hints]:
        """``GET /games/{id}/hints``: the client's seat's legal moves ranked by the chance of
        winning each keeps (a seat's token, in a game created with ``allow_hints=True``)."""
        return self._call("GET", _game_path(game_id, "hints"), _decoder(Hints))

    def audit(self, game_id: str) -> Call[Audit]:
        """``GET /games/{id}/audit``: the full log, the seed once revealed, its verification."""
        return self._call("GET", _game_path(game_id, "audit"), _decoder(Audit))

    def export(self, game_id: str) -> Call[GameRecord]:
        """``GET /games/{id}/export``: the game record, kept whole in ``GameRecord.raw``."""
        return self._call("GET", _game_path(game_id, "export"), parse_record)

    def board_svg(self, game_id: str, at: int | None = None, lang: str | None = None) -> Call[str]:
        """``GET /games/{id}/board.svg?at=N&lang=``: the board as an SVG picture."""
        path = _game_path(game_id, "board.svg")
        params = {"at": at, "lang": lang}
        return self._call("GET", path, _text, params=params, accept="image/svg+xml")

    def game_page(self, game_id: str) -> Call[str]:
        """``GET /games/{id}/view``: the HTML page that shows the game live."""
        return self._call("GET", _game_path(game_id, "view"), _text, accept="text/html")

    def standings(self, tag: str | None = None) -> Call[Standings]:
        """``GET /standings?tag=key:value``: wins and pieces home per player name."""
        return self._call("GET", "/standings", _decoder(Standings), params={"tag": tag})

    def archive(self, tag: str | None = None) -> Call[Archive]:
        """``GET /archive?tag=key:value``: the records of the finished games."""
        return self._call("GET", "/archive", _decoder(Archive), params={"tag": tag})

    def ratings(
        self, ruleset: str, *, limit: int | None = None, cursor: str | None = None
    ) -> Call[Leaderboard]:
        """``GET /ratings?ruleset=``: a page of the rule set's ratings, best first; the next
        page is ``ratings(ruleset, cursor=next_cursor(page))``."""
        params = {"ruleset": ruleset, "limit": limit, "cursor": cursor}
        return self._call("GET", "/ratings", _decoder(Leaderboard), params=params)

    def player(self, name: str) -> Call[Player]:
        """``GET /players/{name}``: the player's rating and rated games in each rule set."""
        return self._call("GET", "/players/" + quote(name, safe=""), _decoder(Player))

    def create_tournament(
        self,
        name: str,
        ruleset: str,
        players: Sequence[str],
        **settings: Unpack[TournamentSettings],
    ) -> Call[TournamentCreatedReply]:
        """``POST /tournaments``: a new tournament (``settings``: ``format``, ``rounds``,
        ``seats_per_table``, ``options``, ``chance``, ``clock``, ``points``, ``bye_points``,
        ...); the reply holds the director's and every player's token, once."""
        body = {"name": name, "ruleset": ruleset, "players": [{"name": p} for p in players]}
        body.update(msgspec.to_builtins(settings))
        return self._call("POST", "/tournaments", _decoder(TournamentCreatedReply), json=body)

    def pair_round(
        self, tournament_id: str, expected_version: int | None = None
    ) -> Call[RoundPairedReply]:
        """``POST /tournaments/{id}/rounds`` (the director's token): pair the next round and
        create its games."""
        body = _with_version({}, expected_version)
        path = _tournament_path(tournament_id, "rounds")
        return self._call("POST", path, _decoder(RoundPairedReply), json=body)

    def tournaments(
        self, *, status: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> Call[TournamentList]:
        """``GET /tournaments``: a page of tournaments, oldest first (``status``:
        ``registering``, ``active`` or ``finished``); the next page is
        ``tournaments(cursor=next_cursor(page))`` with the same filter."""
        params = {"status": status, "limit": limit, "cursor": cursor}
        return self._call("GET", "/tournaments", _decoder(TournamentList), params=params)

    def tournament(self, tournament_id: str) -> Call[TournamentView]:
        """``GET /tournaments/{id}``: settings, players, rounds, tables and results."""
        return self._call("GET", _tournament_path(tournament_id), _decoder(TournamentView))

    def my_table(self, tournament_id: str) -> Call[MyTable]:
        """``GET /tournaments/{id}/me`` (a player's token): the player's table, seat and seat
        token in the latest round."""
        return self._call("GET", _tournament_path(tournament_id, "me"), _decoder(MyTable))

    def tournament_standings(self, tournament_id: str) -> Call[TournamentStandings]:
        """``GET /tournaments/{id}/standings``: points per place, best first."""
        path = _tournament_path(tournament_id, "standings")
        return self._call("GET", path, _decoder(TournamentStandings))

    def withdraw(self, tournament_id: str, player: str, reason: str = "") -> Call[TournamentView]:
        """``POST /tournaments/{id}/withdrawals`` (the director's or the player's token): the
        player is paired no more."""
        body = {"player": player, "reason": reason}
        path = _tournament_path(tournament_id, "withdrawals")
        return self._call("POST", path, _decoder(TournamentView), json=body)

    def export_tournament(self, tournament_id: str) -> Call[dict[str, Any]]:
        """``GET /tournaments/{id}/record``: the tournament's log and its finished games'
        records, as the server sent them (decoded JSON: written back out as it is, it
        verifies with ``python -m service verify``)."""
        path = _tournament_path(tournament_id, "record")
        return self._call("GET", path, _decoder(dict[str, Any]))

    def register_player(self, handle: str) -> Call[Registered]:
        """``POST /players``: register a handle; the reply holds the player's key, its only
        copy (``with_token(key)`` acts as the player). With an app's key the handle is the
        app's player, ``<app>:<handle>``."""
        return self._call("POST", "/players", _decoder(Registered), json={"handle": handle})

    def me(self) -> Call[Me]:
        """``GET /me`` (a player's key): the handle, ratings, latest games, tournaments and
        invitations."""
        return self._call("GET", "/me", _decoder(Me))

    def rotate_key(self) -> Call[NewKey]:
        """``POST /me/keys`` (a player's key): a new key; the one sent stops working at
        once."""
        return self._call("POST", "/me/keys", _decoder(NewKey), json={})

    def retire_handle(self) -> Call[None]:
        """``DELETE /me`` (a player's key): retire the handle; its key stops working and it is
        never registered again."""
        return self._call("DELETE", "/me", _nothing)

    def mint_player_key(self, handle: str) -> Call[NewKey]:
        """``POST /players/{handle}/keys`` (an app's key): a new key for one of the app's
        players (``<app>:<handle>``); the player's key before it stops working."""
        path = "/players/" + quote(handle, safe="") + "/keys"
        return self._call("POST", path, _decoder(NewKey), json={})

    def player_record(self, handle: str) -> Call[dict[str, Any]]:
        """``GET /players/{handle}/record`` (the player's key or its app's): the player's
        log as the server sent it (decoded JSON: written back out as it is, it verifies with
        ``python -m service verify``)."""
        path = "/players/" + quote(handle, safe="") + "/record"
        return self._call("GET", path, _decoder(dict[str, Any]))

    def _write(
        self,
        game_id: str,
        action: str,
        body: dict[str, Any],
        idempotency_key: str | None,
        minimal: bool = False,
    ) -> Call[PlayResult]:
        """A ``POST`` that appends events and answers with them and the state after them
        (unless ``minimal``)."""
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        if minimal:
            headers["Prefer"] = "return=minimal"
        path = _game_path(game_id, action)
        return self._call("POST", path, _decoder(PlayResult), json=body, headers=headers)

    def _call(
        self,
        method: str,
        path: str,
        parse: Callable[[httpx.Response], T],
        *,
        params: Mapping[str, str | int | None] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        accept: str = "application/json",
    ) -> Call[T]:
        request = self._request(
            method, path, params=params, json=json, headers=headers, accept=accept
        )
        return Call(request, parse, self.auth)

    def _request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str | int | None] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        accept: str = "application/json",
    ) -> httpx.Request:
        """A request to ``path`` accepting ``accept`` or a problem, with the timeout and a JSON
        body if any (the token is added by ``auth`` when it is sent)."""
        all_headers = {"Accept": f"{accept}, application/problem+json"}
        all_headers.update(headers or {})
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


class TournamentSettings(TypedDict, total=False):
    """What ``create_tournament`` takes beyond the name, rule set and players (all optional;
    see ``POST /tournaments``)."""

    format: Literal["swiss", "round-robin"]
    rounds: int
    seats_per_table: int
    options: Mapping[str, Any]
    chance: Chance
    clock: Mapping[str, Any]
    points: Sequence[int]
    bye_points: int
    rated: bool
    spectator_delay: Mapping[str, int]


class GameSettings(TypedDict, total=False):
    """How a game is set up, beyond its rule set and seats (all optional)."""

    options: Mapping[str, Any] | None
    chance: Chance
    seed: str | None
    auto_chance: bool
    allow_undo: bool
    tags: Mapping[str, str]
    clock: Mapping[str, Any] | None
    rated: bool
    spectator_delay: Mapping[str, int] | None
    """``{"moves": N}`` or ``{"seconds": N}``: how far behind live spectators see the game."""
    allow_hints: bool
    """Whether each seat may ask for hints (only with ``rated=False``)."""
    absent: Mapping[str, Any] | None
    """``{"after": 60, "then": "bot:<level>" | "forfeit" | "pass"}``: what happens to a seat
    that must act and has been away ``after`` seconds."""
    unlisted: bool
    """A table with open seats kept out of ``GET /lobby``: joined by its link only."""


SeatLike = str | Mapping[str, Any]
"""A seat of a new game: a guest's name, ``{"name": ..., "bot": <level>}`` (``bot_seat``),
``{"player": <handle>}`` (``player_seat``), ``{"open": true}`` (``open_seat``) or
``{"invite": <handle>}`` (``invite_seat``)."""


def bot_seat(name: str, level: str) -> dict[str, str]:
    """A seat a server bot of ``level`` (``GET /bots``) plays."""
    return {"name": name, "bot": level}


def player_seat(handle: str) -> dict[str, str]:
    """A seat that belongs to the registered player ``handle``: named for her handle, played
    with her key (the creator's reply holds no token for it: ``None`` in ``tokens.seats``)."""
    return {"player": handle}


def open_seat() -> dict[str, bool]:
    """A seat left open: whoever joins the table first takes it (``join_table``)."""
    return {"open": True}


def invite_seat(handle: str) -> dict[str, str]:
    """A seat kept for the registered player ``handle``: hers to join or decline, until her
    invitation runs out."""
    return {"invite": handle}


OPTIONAL_SETTINGS: Final = (
    "seed",
    "clock",
    "rated",
    "spectator_delay",
    "allow_hints",
    "absent",
    "unlisted",
)
"""The settings ``game_body`` sends only when given."""


def game_body(
    ruleset: str, seats: Sequence[SeatLike], **settings: Unpack[GameSettings]
) -> dict[str, Any]:
    """The body of ``POST /games`` (and one game of ``POST /games/batch``); a setting it does
    not know is a TypeError, as a misspelt keyword argument is."""
    unknown = settings.keys() - GameSettings.__optional_keys__
    if unknown:
        raise TypeError(f"unknown game settings: {', '.join(sorted(unknown))}")
    body: dict[str, Any] = {
        "ruleset": ruleset,
        "seats": [{"name": seat} if isinstance(seat, str) else dict(seat) for seat in seats],
        "options": dict(settings.get("options") or {}),
        "chance": settings.get("chance", "server"),
        "auto_chance": settings.get("auto_chance", False),
        "allow_undo": settings.get("allow_undo", False),
        "tags": dict(settings.get("tags") or {}),
    }
    for optional in OPTIONAL_SETTINGS:
        if settings.get(optional) is not None:
            body[optional] = settings[optional]
    return body


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
    return _with_version(body, expected_version)


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


def _with_version(body: dict[str, Any], expected_version: int | None) -> dict[str, Any]:
    if expected_version is not None:
        body["expected_version"] = expected_version
    return body


def _game_path(game_id: str, *rest: str) -> str:
    return "/".join(("/games", quote(game_id, safe=""), *rest))


def _tournament_path(tournament_id: str, *rest: str) -> str:
    return "/".join(("/tournaments", quote(tournament_id, safe=""), *rest))


def _ok(response: httpx.Response) -> httpx.Response:
    """The response if successful; the error its problem calls for otherwise."""
    if response.is_error:
        raise error_for(response)
    return response


def _text(response: httpx.Response) -> str:
    return _ok(response).text


def _nothing(response: httpx.Response) -> None:
    """No body (204): only the check that the request was taken."""
    _ok(response)


def _decoder(model: type[T]) -> Callable[[httpx.Response], T]:
    def parse(response: httpx.Response) -> T:
        return msgspec.json.decode(_ok(response).content, type=model)

    return parse


def next_cursor(page: GameList | Leaderboard | TournamentList | Lobby) -> str | None:
    """The ``cursor`` of the page after ``page`` (None on the last)."""
    if page.next is None:
        return None
    cursor = httpx.URL(page.next).params.get("cursor")
    return None if cursor is None else str(cursor)


def _member(name: str, model: Any) -> Callable[[httpx.Response], Any]:
    """A parser of one member of the body (``{"games": [...]}``)."""

    def parse(response: httpx.Response) -> Any:
        return msgspec.convert(msgspec.json.decode(_ok(response).content)[name], model)

    return parse


def parse_view(response: httpx.Response) -> GameView:
    """A state view, the variant of its rule set."""
    view: GameView = msgspec.json.decode(_ok(response).content, type=GameView)
    return view


def parse_analysis(response: httpx.Response) -> GameAnalysis | Progress:
    """A game's analysis, or its progress while it is computed (202)."""
    model: type[GameAnalysis] | type[Progress] = (
        Progress if response.status_code == 202 else GameAnalysis
    )
    return msgspec.json.decode(_ok(response).content, type=model)


def parse_record(response: httpx.Response) -> GameRecord:
    """A game record, whole in ``raw``."""
    data = msgspec.json.decode(_ok(response).content)
    return msgspec.structs.replace(msgspec.convert(data, GameRecord), raw=data)


def check_stream(response: httpx.Response) -> None:
    """Raise the error a streaming response's problem calls for (read an error's body first)."""
    _ok(response)


def note_message(message: Message) -> Message | None:
    """A feed's ``note`` message, as it came (``None`` for other messages)."""
    return message if message.event == "note" and message.id else None


def parse_message(message: Message) -> StoredEvent | None:
    """The stored event a server-sent message carries (``None`` for other messages)."""
    if message.id is None or not message.id.isdigit():
        return None
    return msgspec.json.decode(message.data, type=StoredEvent)

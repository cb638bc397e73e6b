"""HTTP controller of registered players: registration (by the player, or by an app in its
namespace), the player's own view (``/me``), key rotation, retirement, an app's keys for its
players and a player's record. Who the caller is comes from ``service.api.identity``."""

from __future__ import annotations

import msgspec
from litestar import Controller, delete, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from service.api.apidoc import problems
from service.api.deps import AnyRequest, IdempotencyKey
from service.api.identity import app_of, caller, player_of
from service.api.limits import create_limit, write_limit
from service.api.ratings import RatingsDep
from service.api.tournaments import TournamentsDep
from service.api.writes import creation_key
from service.core.actor import App, Player
from service.core.refusal import Refusal, refuse
from service.usecases.games.players import PlayerGames
from service.usecases.live.named import NamedGames
from service.usecases.players.book import PlayerBook
from service.usecases.players.wire import (
    KeyRequest,
    Me,
    MyRating,
    NewKey,
    PlayerRecord,
    Register,
    Registered,
)
from service.usecases.ratings.ratings import Ratings

PlayersDep = NamedDependency[PlayerBook]
PlayerGamesDep = NamedDependency[PlayerGames]
NamedDep = NamedDependency[NamedGames]
Handle = FromPath[str]
GAMES_SHOWN = 100  # a player's latest games in ``GET /me``
TOURNAMENTS_SHOWN = 100  # and tournaments
MINE = problems(400, 401, 403)
KEYS = problems(400, 401, 403, 409, 429)


class PlayersController(Controller):
    """Registered players and their keys."""

    @post(
        "/players",
        operation_id="registerPlayer",
        sync_to_thread=True,
        before_request=create_limit,
        responses=problems(400, 401, 409, 413, 415, 422, 429),
    )
    def register(
        self,
        data: JSONBody[Register],
        request: AnyRequest,
        players: PlayersDep,
        idempotency_key: IdempotencyKey = None,
    ) -> Registered:
        """Register a handle: the reply holds the player's key, its only copy (keep it: it is
        stored only as a hash). With an app's key the handle is the app's player,
        ``<app>:<handle>``. 422 ``bad-handle`` says which rule a handle breaks, 409
        ``handle-taken`` that it is registered (regardless of case and width) or was and is
        retired. Each registration counts against the client's creation budget, as a game's
        creation does (429 with Retry-After)."""
        who = caller(request)
        key = creation_key(request, idempotency_key, "players", data)
        return players.register(data.handle, who if isinstance(who, App) else None, key)

    @get("/me", operation_id="getMe", sync_to_thread=True, responses=MINE)
    def me(
        self,
        request: AnyRequest,
        ratings: RatingsDep,
        player_games: PlayerGamesDep,
        tournaments: TournamentsDep,
        named: NamedDep,
    ) -> Me:
        """The player whose key this is: the handle, its rating in each rule set it played
        rated games of, its latest games (running and finished, newest first), its latest
        tournaments (those it was entered in by handle, newest first, each as ``GET
        /tournaments`` lists it) and the invitations waiting for her (seats kept for her at
        tables that gather, oldest first)."""
        player = player_of(caller(request))
        games = player_games.latest(player.handle, GAMES_SHOWN)
        entered = tournaments.played_by(player.handle, TOURNAMENTS_SHOWN)
        listed = [msgspec.to_builtins(each) for each in entered]
        waiting = named.invitations(player.handle)
        return Me(player.handle, ratings_of(ratings, player), games, listed, waiting)

    @post(
        "/me/keys",
        operation_id="rotateKey",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        responses=KEYS,
    )
    def rotate(
        self,
        request: AnyRequest,
        players: PlayersDep,
        data: JSONBody[KeyRequest],
        idempotency_key: IdempotencyKey = None,
    ) -> NewKey:
        """A new key for the player, its only copy: the key used for this request stops
        working at once, on every route and socket (so a retry with it is 401, whatever its
        Idempotency-Key: a key that has stopped never reads the new one)."""
        key = creation_key(request, idempotency_key, "me/keys", data)
        return NewKey(players.rotate(player_of(caller(request)), key=key))

    @delete(
        "/me",
        operation_id="retireHandle",
        sync_to_thread=True,
        before_request=write_limit,
        responses=KEYS,
    )
    def retire(self, request: AnyRequest, players: PlayersDep) -> None:
        """Retire the handle: its key stops working, its public profile goes, and it is never
        registered again; the games' logs keep it as it played."""
        players.retire(player_of(caller(request)))

    @post(
        "/players/{handle:str}/keys",
        operation_id="mintPlayerKey",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        responses=problems(400, 401, 403, 404, 409, 429),
    )
    def mint(
        self,
        handle: Handle,
        request: AnyRequest,
        players: PlayersDep,
        data: JSONBody[KeyRequest],
        idempotency_key: IdempotencyKey = None,
    ) -> NewKey:
        """An app's: a new key for one of its players (``<app>:<handle>``), its only copy;
        the player's key before it stops working. 403 for a player of another app or of
        none. A retry with the same Idempotency-Key gets the same key."""
        key = creation_key(request, idempotency_key, "players/keys", data)
        return NewKey(players.mint(app_of(caller(request)), handle, key))

    @get(
        "/players/{handle:str}/record",
        operation_id="getPlayerRecord",
        sync_to_thread=True,
        responses=problems(400, 401, 403, 404),
    )
    def record(self, handle: Handle, request: AnyRequest, players: PlayersDep) -> PlayerRecord:
        """The player's log (registration, each key's digest, the retirement), hash-chained
        like a game's: for the player or its app. ``python -m service verify`` checks it
        offline."""
        who = caller(request)
        if not isinstance(who, Player | App):
            raise refuse("unauthorized", "a player's record needs the player's key or its app's")
        return players.record(handle, who)


def ratings_of(ratings: Ratings, player: Player) -> list[MyRating]:
    """The player's rating in each rule set it has one in."""
    try:
        found = ratings.player(player.handle, None, 1, None)
    except Refusal as refusal:
        if refusal.slug.endswith("not-found"):
            return []
        raise
    return [
        MyRating(
            each.ruleset,
            each.rating.rank,
            each.rating.mu,
            each.rating.sigma,
            each.rating.ordinal,
            each.rating.games,
            each.rating.wins,
        )
        for each in found.rulesets
    ]

"""Who a request's caller is: the one place that turns ``Authorization: Bearer ...`` into a
caller (``service.core.actor.Bearer``), for every route and the game socket's hello.

A bearer is told apart by its prefix: ``tabula_pk_`` a player's key, checked against the
player's latest key (``PlayerBook.authenticate``) and made the ``Player``; ``tabula_ak_``
an app's key, made the ``App``; anything else a game's or a tournament's token, which the
game (``Game.role``) or the tournament judges as before. A key that does not check is 401
``key-refused``, the same answer whatever was wrong with it. Checking a key reads the
store: the sync functions run on a worker thread, ``caller_async`` (for dependencies on the
event loop) goes to one only for a key.

What each caller may do where (the scopes, ``docs/guides/identity.md``):

- a game route: a token, or a player (``Game.role`` makes them the seat that belongs to
  them, 403 when none does); an app never acts in a game (403);
- a tournament's routes: its tokens; a tournament's player routes (``/me``, withdrawals)
  also a registered player's key (her entry, 403 when she has none);
- the player's own routes (``/me``): a player's key only;
- an app's routes (registering and minting keys for its namespace): an app's key only.
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from litestar.connection import ASGIConnection

from service.api.limits import bearer_token
from service.core.actor import App, Bearer, GameCaller, Player
from service.core.refusal import refuse
from service.usecases.players import keys
from service.usecases.players.apps import Apps
from service.usecases.players.book import PlayerBook

AnyConnection = ASGIConnection[Any, Any, Any, Any]


def bearer(connection: AnyConnection) -> str | None:
    """The text of a request's bearer, as it came (a token or a key), if any; a malformed
    ``Authorization`` header is 401."""
    header = connection.headers.get("authorization")
    if header is None:
        return None
    token = bearer_token(header)
    if token is None:
        raise refuse("unauthorized", "the Authorization header must be 'Bearer <token>'")
    return token


def resolve(players: PlayerBook, apps: Apps, token: str | None) -> Bearer:
    """Who ``token`` makes its holder: a player or an app whose key checked (401
    ``key-refused`` otherwise), else the token itself (None: none). It reads the store for
    a key: call it off the event loop."""
    if token is None or not keys.is_key(token):
        return token
    if token.startswith(keys.PLAYER_KEY):
        return players.authenticate(token)
    return apps.authenticate(token)


def books(connection: AnyConnection) -> tuple[PlayerBook, Apps]:
    """The app's players and apps."""
    state = connection.app.state
    return state.players, state.apps


def caller(connection: AnyConnection) -> Bearer:
    """The request's caller (on a worker thread: a key is checked against the store)."""
    return resolve(*books(connection), bearer(connection))


async def caller_async(connection: AnyConnection) -> Bearer:
    """The request's caller, from the event loop: a token at once, a key on a worker
    thread."""
    token = bearer(connection)
    if token is None or not keys.is_key(token):
        return token
    return await anyio.to_thread.run_sync(resolve, *books(connection), token)


def in_game(who: Bearer) -> GameCaller:
    """A caller as a game route takes it: an app is 403 (it acts only through its players'
    keys)."""
    if isinstance(who, App):
        raise refuse(
            "forbidden",
            f"the app `{who.name}` never acts in a game: act with its player's key "
            "(POST /players/{handle}/keys mints one)",
        )
    return who


def game_caller(connection: AnyConnection) -> GameCaller:
    """The caller of a game route (on a worker thread)."""
    return in_game(caller(connection))


async def game_caller_async(connection: AnyConnection) -> GameCaller:
    """The caller of a game route, from the event loop."""
    return in_game(await caller_async(connection))


def token_only(who: Bearer) -> str | None:
    """A caller of a route that takes only a tournament's tokens: a key is 403."""
    if isinstance(who, Player | App):
        raise refuse("forbidden", "this route takes the tournament's tokens, not a key")
    return who


def tournament_caller(connection: AnyConnection) -> str | None:
    """The caller of a tournament's route, a token of it (on a worker thread)."""
    return token_only(caller(connection))


def tournament_player(connection: AnyConnection) -> GameCaller:
    """The caller of a tournament's player routes (``/me``, withdrawals), on a worker
    thread: a token of it, or a registered player (her key: her entry); an app is 403."""
    who = caller(connection)
    if isinstance(who, App):
        why = f"the app `{who.name}` acts in a tournament only with its player's key"
        raise refuse("forbidden", why)
    return who


def player_of(who: Bearer) -> Player:
    """The caller of a player's own route: 401 without a key, 403 for another kind."""
    if isinstance(who, Player):
        return who
    if who is None:
        raise refuse("unauthorized", "this route needs a player's key (Authorization: Bearer)")
    raise refuse("forbidden", "this route takes a player's key only")


def app_of(who: Bearer) -> App:
    """The caller of an app's route: 401 without a key, 403 for another kind."""
    if isinstance(who, App):
        return who
    if who is None:
        raise refuse("unauthorized", "this route needs an app's key (Authorization: Bearer)")
    raise refuse("forbidden", "this route takes an app's key only")

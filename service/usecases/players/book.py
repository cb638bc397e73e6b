"""``PlayerBook``: the registered players, one stream each (``player-<id>``, the id from the
canonical handle, so that registering a taken handle meets the store's "stream exists"):
registration (by the player, or by an app in its namespace), key rotation, retirement, and
the authentication of a player's key. Every append goes through the service's writer.

Who caused each event is its ``by``: ``player`` (the player, or anyone registering a handle
for themselves), ``app:<name>`` (the app of a namespaced player).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from msgspec.structs import astuple

from domain.players.events import PLAYER_EVENTS, HandleRetired, KeyIssued, PlayerRegistered
from domain.players.handles import (
    ID_LENGTH,
    PLAYER_PREFIX,
    BadHandle,
    check_handle,
    namespace_of,
    player_id,
    player_stream,
)
from domain.players.state import PlayerState, apply_player, issued
from eventstore import Announcing, Appending
from service.core.actor import App, Player
from service.core.refusal import Refusal, refuse
from service.usecases import tokens
from service.usecases.players import keys
from service.usecases.players.folds import Folds, appending
from service.usecases.players.wire import PlayerEventOut, PlayerRecord, Registered
from service.usecases.writer import Conflict, Writer

PLAYER_ID = re.compile(f"[0-9a-f]{{{ID_LENGTH}}}")
PLAYER = "player"  # the ``kind`` in a player stream's meta, and the ``by`` of its own acts
KEY_REFUSED = (
    "the key is refused: no such key, a key replaced by a newer one or of a retired handle"
)

Changed = Callable[[], None]


LOST = (
    "this Idempotency-Key issued the player's key already, but it cannot be given again "
    "(the service's key changed since: set cursor_key alike on every process)"
)


class PlayerBook:
    """The registered players over one store, appending through ``writer``."""

    def __init__(self, writer: Writer, minter: tokens.Minter | None = None) -> None:
        self.writer = writer
        self.minter = minter or tokens.Minter()
        self.store = writer.store
        self.folds: Folds[PlayerState] = Folds(self.store, PLAYER_EVENTS, apply_player)
        self._watchers: dict[str, list[Changed]] = {}

    def find(self, handle: str) -> PlayerState | None:
        """The player a handle names (in any case or width: its canonical form), None when
        no one registered it. A retired player is found too (``retired``)."""
        held = self.folds.state(player_stream(handle))
        return held[1] if held is not None else None

    def seated(self, handle: str) -> str | None:
        """The handle as registered when ``handle`` names (in any case or width) a player
        who has not retired it; else None (a game's seat may belong only to such a player)."""
        found = self.find(handle)
        return found.handle if found is not None and not found.retired else None

    def register(
        self, text: str, app: App | None = None, key: tokens.Keyed | None = None
    ) -> Registered:
        """Register a handle (in ``app``'s namespace when an app asks) with its first key:
        422 ``bad-handle`` saying why a handle breaks the rules, 409 ``handle-taken`` when its
        canonical form is registered (or was, and retired). With ``key`` (an Idempotency-Key
        as stored) the secret is derived from it and the append carries it, so a retry with
        the same body replays the registration and shows the same key."""
        namespace = app.name if app is not None else ""
        try:
            handle = check_handle(text, namespace)
        except BadHandle as bad:
            raise refuse("bad-handle", f"`{text}` {bad}", pointer="/handle") from None
        secret = keys.new_secret() if key is None else self.minter.token(key.scoped, "player")
        events = [PlayerRegistered(handle, namespace), KeyIssued(1, keys.digest(secret))]
        by = f"app:{namespace}" if namespace else PLAYER
        append = appending(player_stream(handle), events, by, 0, meta={"kind": PLAYER})
        try:
            self.keyed_commit(append, key, secret)
        except Conflict:
            raise self.taken(handle) from None
        return Registered(handle, keys.player_key(player_id(handle), secret))

    def keyed_commit(self, append: Appending, key: tokens.Keyed | None, secret: str) -> None:
        """Append a key's issue, with ``key`` (an Idempotency-Key as stored) when given: a
        replay's stored digest must be the one of ``secret`` derived again (409
        ``idempotency-secrets-lost`` otherwise); another change meanwhile is a 409."""
        [result] = self.writer.commit([tokens.carrying(append, key)], PLAYER)
        if result.replayed and result.events[-1].data.get("digest") != keys.digest(secret):
            raise refuse("idempotency-secrets-lost", LOST)

    def taken(self, handle: str) -> Refusal:
        """The 409 of registering a handle whose canonical form is registered."""
        found = self.find(handle)
        ever = " was retired: a handle is never registered again" if found and found.retired else ""
        same = f" (as `{found.handle}`)" if found and found.handle != handle else ""
        return refuse(
            "handle-taken",
            f"the handle `{handle}` is taken{same}{ever}; handles are told apart regardless "
            "of case and width",
        )

    def rotate(self, player: Player, by: str = PLAYER, key: tokens.Keyed | None = None) -> str:
        """A new key for the player; the one before stops working at once. With ``key``
        the secret is derived from it, so a retry replays the first issue."""
        version, state = self.held(player)
        secret = keys.new_secret() if key is None else self.minter.token(key.scoped, "key")
        append = appending(
            player_stream(state.handle), [issued(state, keys.digest(secret))], by, version
        )
        self.keyed_commit(append, key, secret)
        return keys.player_key(player_id(state.handle), secret)

    def retire(self, player: Player) -> None:
        """Retire the player's handle: no key of it works any more, and it is never
        registered again (its stream stays, with the games' logs that name it)."""
        version, state = self.held(player)
        self.commit(appending(player_stream(state.handle), [HandleRetired()], PLAYER, version))

    def mint(self, app: App, handle: str, key: tokens.Keyed | None = None) -> str:
        """A new key for a player of ``app``'s namespace (the previous key stops working):
        403 for a player of another namespace or of none, 404 for no such player."""
        if namespace_of(handle) != app.name:
            raise refuse(
                "forbidden",
                f"the app `{app.name}` mints keys only for its own players (`{app.name}:...`)",
            )
        found = self.find(handle)
        if found is None or found.retired:
            raise refuse("player-not-found", f"no registered player `{handle}`")
        return self.rotate(Player(found.handle), f"app:{app.name}", key)

    def authenticate(self, key: str) -> Player:
        """The player whose latest key ``key`` is; 401 ``key-refused`` otherwise, the same
        answer for an unknown player, a wrong secret, a replaced key and a retired handle.
        The digests are compared in constant time."""
        taken = keys.parsed(key, keys.PLAYER_KEY)
        state: PlayerState | None = None
        if taken is not None and PLAYER_ID.fullmatch(taken.holder):
            held = self.folds.state(PLAYER_PREFIX + taken.holder)
            state = held[1] if held is not None else None
        stored = state.digest if state is not None and state.keyed else ""
        if not keys.matches(taken.secret if taken else key, stored) or state is None:
            raise refuse("key-refused", KEY_REFUSED)
        return Player(state.handle)

    def record(self, handle: str, reader: Player | App) -> PlayerRecord:
        """The player's log, for the player (its key) or its app: 404 for no such handle,
        403 for anyone else."""
        found = self.find(handle)
        if found is None:
            raise refuse("player-not-found", f"no registered player `{handle}`")
        mine = isinstance(reader, Player) and player_stream(reader.handle) == player_stream(handle)
        if not mine and not (isinstance(reader, App) and namespace_of(found.handle) == reader.name):
            raise refuse("forbidden", "a player's record is the player's to read, or its app's")
        events = self.store.read(player_stream(found.handle))
        return PlayerRecord(found.handle, [PlayerEventOut(*astuple(e)) for e in events])

    def known(self, key: str) -> Player | None:
        """The player whose key ``key`` was when this process last read the player, without
        asking the store (None: unknown here, or no match). Not an authentication: a key
        replaced meanwhile by another process may still match; the write limit keys on it."""
        taken = keys.parsed(key, keys.PLAYER_KEY)
        if taken is None or not PLAYER_ID.fullmatch(taken.holder):
            return None
        state = self.folds.cached(PLAYER_PREFIX + taken.holder)
        if state is None or not state.keyed or not keys.matches(taken.secret, state.digest):
            return None
        return Player(state.handle)

    def held(self, player: Player) -> tuple[int, PlayerState]:
        """The player's version and state, for a change: 401 once the handle is retired."""
        held = self.folds.state(player_stream(player.handle))
        if held is None or held[1].retired:
            raise refuse("key-refused", KEY_REFUSED)
        return held

    def commit(self, append: Appending) -> None:
        """Append a change of keys; another change meanwhile is a 409."""
        self.writer.commit([append], PLAYER)

    def watch(self, player: Player, changed: Changed) -> Callable[[], None]:
        """Call ``changed`` (from another thread, quickly: it must not block) after the
        player's key is replaced or its handle retired, by this process or (on a store that
        announces appends) by any; return the function that ends the watch."""
        stream = player_stream(player.handle)
        if isinstance(self.store, Announcing):
            return self.store.subscribe(stream, lambda _version: changed())
        self._watchers.setdefault(stream, []).append(changed)
        return lambda: self._watchers.get(stream, []).remove(changed)

    def follow(self, append: Appending) -> Callable[[], object] | None:
        """The writer's follower (on a store that does not announce appends): the watchers
        of a player whose keys changed."""
        watchers = self._watchers.get(append.stream_id)
        if not watchers or append.expected_version == 0:
            return None
        return lambda: [changed() for changed in list(watchers)]

"""``Apps``: the frontends registered by the operator (``python -m service apps add``), one
stream each (``app-<name>``): registration with the app's key, the list, revocation, and the
authentication of an app's key. Every append goes through the service's writer; the
operator's acts are ``by`` ``operator``."""

from __future__ import annotations

import msgspec

from domain.players.events import APP_EVENTS, AppRegistered, AppRevoked, KeyIssued
from domain.players.handles import APP_PREFIX, BadHandle, app_stream, check_app_name
from domain.players.state import AppState, apply_app
from service.core.actor import App
from service.core.refusal import refuse
from service.usecases.players import keys
from service.usecases.players.folds import Folds, appending
from service.usecases.writer import Conflict, Writer

APP = "app"  # the ``kind`` in an app stream's meta
OPERATOR = "operator"
KEY_REFUSED = "the key is refused: no such app key, or the app's key was revoked"


class AppInfo(msgspec.Struct, frozen=True):
    """An app as ``apps list`` shows it (never its key)."""

    name: str
    registered_at: str
    revoked: bool


class Apps:
    """The registered apps over one store, appending through ``writer``."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self.store = writer.store
        self.folds: Folds[AppState] = Folds(self.store, APP_EVENTS, apply_app)

    def add(self, name: str) -> str:
        """Register an app; its key (shown this once). A name taken, or breaking the rules,
        is refused (``bad-handle``, ``handle-taken``)."""
        try:
            check_app_name(name)
        except BadHandle as bad:
            raise refuse("bad-handle", str(bad)) from None
        secret = keys.new_secret()
        events = [AppRegistered(name), KeyIssued(1, keys.digest(secret))]
        try:
            self.writer.commit(
                [appending(app_stream(name), events, OPERATOR, 0, meta={"kind": APP})], APP
            )
        except Conflict:
            raise refuse("handle-taken", f"an app named `{name}` is registered already") from None
        return keys.app_key(name, secret)

    def listed(self) -> list[AppInfo]:
        """Every app, in the order they were registered (it reads every stream's head: an
        operator's command, not a route)."""
        found = []
        for info in self.store.streams():
            if info.stream_id.startswith(APP_PREFIX) and info.meta.get("kind") == APP:
                held = self.folds.state(info.stream_id)
                if held is not None:
                    found.append(AppInfo(held[1].name, info.created_at, held[1].revoked))
        return found

    def revoke(self, name: str) -> None:
        """Revoke an app: its key stops working at once (its players' keys still work)."""
        held = self.folds.state(app_stream(name))
        if held is None:
            raise refuse("not-found", f"no app named `{name}`")
        version, state = held
        if state.revoked:
            return
        self.writer.commit([appending(app_stream(name), [AppRevoked()], OPERATOR, version)], APP)

    def authenticate(self, key: str) -> App:
        """The app whose key ``key`` is; 401 ``key-refused`` otherwise (an unknown app, a
        wrong secret, a revoked app), the digests compared in constant time."""
        taken = keys.parsed(key, keys.APP_KEY)
        state: AppState | None = None
        if taken is not None:
            try:
                held = self.folds.state(app_stream(check_app_name(taken.holder)))
            except BadHandle:
                held = None
            state = held[1] if held is not None else None
        stored = state.digest if state is not None and state.keyed else ""
        if not keys.matches(taken.secret if taken else key, stored) or state is None:
            raise refuse("key-refused", KEY_REFUSED)
        return App(state.name)

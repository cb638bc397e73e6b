"""HTTP controller of quick play: a seek posted by a registered player (her key) or a guest
(no credential), read and cancelled by its owner (the key, or the guest's secret). Thin
handlers: the caller from ``service.api.identity``, one use case each."""

from __future__ import annotations

from litestar import Controller, delete, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from service.api.apidoc import problems
from service.api.deps import AnyRequest, IdempotencyKey
from service.api.identity import caller
from service.api.limits import write_limit
from service.api.writes import creation_key
from service.core.actor import App, Bearer, Player
from service.core.refusal import refuse
from service.usecases.seeks.seeks import Seeks
from service.usecases.seeks.wire import NewSeek, PostSeek, SeekView

SeeksDep = NamedDependency[Seeks]
SeekId = FromPath[str]


def seeker(who: Bearer) -> Player | None:
    """Who posts a seek: a registered player (her key), or a guest (no credential); an
    app's key or a game's token is 403."""
    if who is None or isinstance(who, Player):
        return who
    what = f"the app `{who.name}`" if isinstance(who, App) else "a game's token"
    why = f"{what} posts no seek: post with a player's key, or with none as a guest"
    raise refuse("forbidden", why)


class SeeksController(Controller):
    """Seeks: posted, read and cancelled."""

    path = "/seeks"

    @post(
        operation_id="postSeek",
        sync_to_thread=True,
        before_request=write_limit,
        responses=problems(400, 401, 403, 409, 413, 415, 422, 429),
    )
    def post_seek(
        self,
        data: JSONBody[PostSeek],
        request: AnyRequest,
        seeks: SeeksDep,
        idempotency_key: IdempotencyKey = None,
    ) -> NewSeek:
        """Ask for a table: ``players`` seats of ``ruleset`` with ``options``, ``rated`` or not
        (a rated seek is a registered player's). Seeks of the same shape sit together in
        arrival order (rated ones with the nearest ratings, the allowed distance widening
        with the wait) as soon as a table is complete: a game is created with every seat
        taken, and ``GET /seeks/{id}`` tells each seeker her table and seat. With a player's
        key the seat is hers (her key plays it); without one (a guest, seated under
        ``name``) the reply holds a ``secret``, shown only here, which reads the seek and
        becomes her seat's token. A seek waits ``seek_seconds`` (a setting, 120 s) unless
        matched; ``bots_after`` seats it with bots of a level after so many seconds. 409
        ``already-seeking``: the player has a seek of this shape waiting."""
        who = seeker(caller(request))
        return seeks.post(who, data, creation_key(request, idempotency_key, "seeks", data))

    @get(
        "/{seek_id:str}",
        operation_id="getSeek",
        sync_to_thread=True,
        responses=problems(400, 401, 403, 404),
    )
    def get_seek(self, seek_id: SeekId, request: AnyRequest, seeks: SeeksDep) -> SeekView:
        """The seek, for its owner (the player's key, or the guest's secret): ``waiting``
        (until ``expires_at``), ``matched`` (``game_id`` and ``seat``), ``expired`` or
        ``cancelled``."""
        return seeks.view(seek_id, caller(request))

    @delete(
        "/{seek_id:str}",
        operation_id="cancelSeek",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        responses=problems(400, 401, 403, 404, 409, 429),
    )
    def cancel_seek(self, seek_id: SeekId, request: AnyRequest, seeks: SeeksDep) -> SeekView:
        """Cancel a waiting seek (its owner; cancelling it again answers the same); 409
        ``seek-not-waiting`` once it was matched (its table is in the detail) or expired."""
        return seeks.cancel(seek_id, caller(request))

"""What each caller sees: state views and events, redacted for the viewer.

While a game runs, a seat sees its own hand and the referee sees everything; once it has
finished, everything is public on every route (its record, audit and archive are complete so
anyone can verify it; the revealed seed makes server-chance hands computable anyway). A
spectator of a game with a delay (``service.core.delay``) sees it only up to the version its
``Sight`` names, and as finished only once that is the game's end.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple, Protocol, cast

import msgspec

from domain.events import event_data, no_secrets, parse_event
from domain.model import COLOURS, Move, SeatView, TableView, View, Viewer
from domain.registry import GameView
from domain.replay import Replay
from eventstore import StoredEvent
from service.usecases.games.repository import Game
from service.usecases.replies import EventOut


class Sight(NamedTuple):
    """What a caller sees of a game now: who they are, the last version they may see and
    whether they see it finished (then everything is public to them)."""

    viewer: Viewer
    version: int
    finished: bool


class Attendance(Protocol):
    """Who is at a game's table now, as this process sees it (its presence and absence:
    ``service.usecases.live``)."""

    def at_table(self, game: Game, now: datetime) -> Sequence[tuple[bool, str | None]]:
        """Each seat's ``present`` and ``absent_until`` on ``game`` (held, locked) at ``now``."""
        ...


def sight(game: Game, viewer: Viewer, now: datetime) -> Sight:
    """How far ``viewer`` sees ``game`` (held under its lock) at ``now``: live, except a
    spectator of a game with a delay."""
    version = game.version
    if viewer is None and game.timeline is not None:
        version = min(version, game.timeline.shown(now, game.finished))
    return Sight(viewer, version, game.finished and version == game.version)


def state_view(
    game: Game,
    replay: Replay,
    viewer: Viewer,
    now: datetime,
    public: bool | None = None,
    attendance: Attendance | None = None,
) -> GameView:
    """The public model of a game at ``replay``'s version, as ``viewer`` may see it at
    ``now`` (its clocks' time left): the rule set's view with the table's fields filled in
    (the game it is the rematch of among them), each seat's presence from ``attendance``
    (its ``absent_until`` only in the view of the game as it is now). ``public``: whether
    the viewer sees the game finished (by default, whether it has finished)."""
    public = game.finished if public is None else public
    created = replay.created
    shown = replay.rules.view(replay.state, "referee" if public else viewer)
    colours = {p.seat: p.id.rsplit("-", 1)[0] for p in shown.pieces}
    seated = attendance.at_table(game, now) if attendance is not None else None
    current = replay is game.replay
    view = msgspec.structs.replace(
        shown,
        game_id=game.id,
        version=replay.version,
        seats=[
            SeatView(
                seat,
                name,
                colours.get(seat, COLOURS[seat]),
                replay.bot_of(seat),
                seated is not None and seated[seat][0],
                seated[seat][1] if seated is not None and current else None,
            )
            for seat, name in enumerate(replay.names)
        ],
        options=created.options,
        chance_mode=created.chance,
        seed_commitment=created.seed_commitment,
        seed=game.secrets.seed if public else None,
        clock=game.clock.view(now) if game.clock and replay is game.replay else None,
        rematch_of=created.rematch_of or None,
    )
    return cast(GameView, tabled(view, replay))


def tabled(view: View, replay: Replay) -> View:
    """``view`` of a game that gathered, with its table's part: the seats open and kept for
    invited players, ``status`` ``gathering`` (nobody to act) or ``closed``, and ``table``."""
    table = replay.table
    if table is None:
        return view
    gathering = bool(replay.gathering)
    seats = [
        msgspec.structs.replace(
            seat,
            open=gathering and seat.seat in table.open,
            invite=table.invited(seat.seat) if gathering else None,
        )
        for seat in view.seats
    ]
    status = "closed" if table.closed else "gathering" if gathering else view.status
    to_act = [] if gathering else view.to_act
    shown = TableView(table.listed, table.closed or None)
    return msgspec.structs.replace(view, seats=seats, status=status, to_act=to_act, table=shown)


def moves_for(game: Game, viewer: Viewer, replay: Replay | None = None) -> list[Move]:
    """The caller's legal moves now (or in ``replay``): a seat's own, every pending seat's for
    the referee, and for a spectator too unless the moves would name hidden cards; none while
    the table gathers."""
    replay = game.replay if replay is None else replay
    rules, state = replay.rules, replay.state
    if replay.gathering:
        return []
    if isinstance(viewer, int):
        seats = [viewer]
    elif viewer is None and rules.redact is not no_secrets:
        seats = []
    else:
        seats = sorted({p.seat for p in rules.to_act(state)})
    return [m for seat in seats for m in rules.legal_moves(state, seat)]


def event_out(
    game: Game, stored: StoredEvent, viewer: Viewer, public: bool | None = None
) -> EventOut:
    """A stored event as ``viewer`` may see it. While a game with hidden cards runs, others'
    cards are replaced for everyone but the referee, and so are the hashes: a hash is over the
    true event, so trying each card against it would tell the card. They are public again
    once the game has finished (``public``, by default), when the whole chain can be checked."""
    public = game.finished if public is None else public
    if public or viewer == "referee" or game.rules.redact is no_secrets:
        data, prev_hash, hash_ = stored.data, stored.prev_hash, stored.hash
    else:
        data = event_data(game.rules.redact(parse_event(stored.type, stored.data), viewer))
        prev_hash = hash_ = ""
    return EventOut(
        game.id, stored.version, stored.type, data, stored.by, stored.at, prev_hash, hash_
    )

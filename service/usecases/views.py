"""What each caller sees: state views and events, redacted for the viewer.

While a game runs, a seat sees its own hand and the referee sees everything; once it has
finished, everything is public on every route (its record, audit and archive are complete so
anyone can verify it; the revealed seed makes server-chance hands computable anyway).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

import msgspec

from domain.events import event_data, no_secrets, parse_event
from domain.model import COLOURS, Move, SeatView, Viewer
from domain.registry import GameView
from domain.replay import Replay
from eventstore import StoredEvent
from service.usecases.replies import EventOut
from service.usecases.repository import Game


def state_view(game: Game, replay: Replay, viewer: Viewer) -> GameView:
    """The public model of a game at ``replay``'s version, as ``viewer`` may see it: the rule
    set's view with the table's fields filled in."""
    created = replay.created
    shown = replay.rules.view(replay.state, seen_by(game, viewer))
    colours = {p.seat: p.id.rsplit("-", 1)[0] for p in shown.pieces}
    view = msgspec.structs.replace(
        shown,
        game_id=game.id,
        version=replay.version,
        seats=[
            SeatView(seat, name, colours.get(seat, COLOURS[seat]))
            for seat, name in enumerate(created.seats)
        ],
        options=created.options,
        chance_mode=created.chance,
        seed_commitment=created.seed_commitment,
        seed=game.secrets.seed if game.finished else None,
        clock=game.clock.view(datetime.now(UTC)) if game.clock and replay is game.replay else None,
    )
    return cast(GameView, view)


def moves_for(game: Game, viewer: Viewer) -> list[Move]:
    """The caller's legal moves now: a seat's own, every pending seat's for the referee, and
    for a spectator too unless the moves would name hidden cards."""
    rules, state = game.rules, game.replay.state
    if isinstance(viewer, int):
        seats = [viewer]
    elif viewer is None and rules.redact is not no_secrets:
        seats = []
    else:
        seats = sorted({p.seat for p in rules.to_act(state)})
    return [m for seat in seats for m in rules.legal_moves(state, seat)]


def event_out(game: Game, stored: StoredEvent, viewer: Viewer) -> EventOut:
    """A stored event as ``viewer`` may see it. While a game with hidden cards runs, others'
    cards are replaced for everyone but the referee, and so are the hashes: a hash is over the
    true event, so trying each card against it would tell the card. They are public again
    once the game has finished, when the whole chain can be checked."""
    if seen_by(game, viewer) == "referee" or game.rules.redact is no_secrets:
        data, prev_hash, hash_ = stored.data, stored.prev_hash, stored.hash
    else:
        data = event_data(game.rules.redact(parse_event(stored.type, stored.data), viewer))
        prev_hash = hash_ = ""
    return EventOut(
        game.id, stored.version, stored.type, data, stored.by, stored.at, prev_hash, hash_
    )


def seen_by(game: Game, viewer: Viewer) -> Viewer:
    """Whose eyes ``viewer`` reads with: once a game has finished, everyone sees everything."""
    return "referee" if game.finished else viewer

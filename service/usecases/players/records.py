"""A player's record (``GET /players/{handle}/record``) checked offline: its format, the hash
chain of its events, every event folded by the domain's reducer, and that the stream is the
handle's (its id is the canonical handle's) with the handle the record names."""

from __future__ import annotations

import msgspec

from domain.players.events import PLAYER_EVENTS, PlayerRegistered, parse_event
from domain.players.handles import namespace_of, player_stream
from domain.players.state import IdentityError, PlayerState, apply_player
from eventstore import StoredEvent, verify_chain
from service.usecases.players.wire import PLAYER_FORMAT, PlayerRecord


class PlayerVerdict(msgspec.Struct, frozen=True):
    """Whether a player's record holds: its first problem (None when valid), how many events
    were checked, how many keys were issued and whether the handle is retired."""

    problem: str | None
    events: int
    keys: int = 0
    retired: bool = False

    @property
    def valid(self) -> bool:
        return self.problem is None


def verify_player(record: PlayerRecord) -> PlayerVerdict:
    """Check a player's record."""
    count = len(record.events)
    if record.format != PLAYER_FORMAT or record.format_version != 1:
        problem = f"unknown record format {record.format!r} {record.format_version}"
        return PlayerVerdict(problem, count)
    stream = player_stream(record.handle)
    chain = [StoredEvent(*msgspec.structs.astuple(e)) for e in record.events]
    if any(e.stream_id != stream for e in chain):
        return PlayerVerdict(f"its events are not of {record.handle}'s stream {stream}", count)
    bad = verify_chain(chain)
    if bad is not None:
        return PlayerVerdict(f"event {bad}: the hash chain is broken", count)
    state: PlayerState | None = None
    for event in chain:
        try:
            parsed = parse_event(PLAYER_EVENTS, event.type, event.data)
            state = apply_player(state, parsed)
        except (IdentityError, ValueError, msgspec.ValidationError) as error:
            return PlayerVerdict(f"event {event.version}: {error}", count)
        if isinstance(parsed, PlayerRegistered) and not registers(parsed, record.handle):
            return PlayerVerdict(f"event {event.version}: it registers another handle", count)
    if state is None:
        return PlayerVerdict("a player's record has events", 0)
    return PlayerVerdict(None, count, state.key_id, state.retired)


def registers(event: PlayerRegistered, handle: str) -> bool:
    """Whether a registration is of ``handle``, in the namespace it names."""
    return event.handle == handle and namespace_of(handle) == event.app

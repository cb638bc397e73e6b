"""A tournament's events: the facts its stream is made of. Tags are stored forever; evolve
only by adding fields with defaults."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

Format = Literal["swiss", "round-robin"]


class TournamentEvent(msgspec.Struct, frozen=True, tag_field="type", tag=True):
    """Base of every tournament event; the tag is the class name."""


class TournamentCreated(TournamentEvent, frozen=True, omit_defaults=True):
    """Every setting of the tournament and of the games it creates. ``points[k]`` is what
    place k + 1 at a table scores (0 beyond the list); a bye scores ``bye_points``. ``rated``
    and ``spectator_delay`` are handed to the games as they are."""

    name: str
    ruleset: str
    options: dict[str, Any]
    format: Format
    rounds: int
    seats_per_table: int
    least_per_table: int
    points: tuple[int, ...]
    bye_points: int
    chance: str = "server"
    clock: dict[str, Any] | None = None
    rated: bool = True
    spectator_delay: dict[str, int] | None = None
    teams: bool = False
    """Players play in teams of two, formed in registration order (the first two, the next
    two, ...), partners at a table's seats 0 and 2 or 1 and 3 (the partners rule set)."""
    bots: dict[str, str] = {}
    """The players bots play, by name: the level of each (left out when none)."""


class PlayerRegistered(TournamentEvent, frozen=True, omit_defaults=True):
    """A player of the tournament. ``player``: the name is a registered player's handle (as
    registered), whose key plays her tables; no token of the tournament acts for her (left
    out for a guest, so logs of guests hash as before)."""

    name: str
    player: bool = False


class PlayerWithdrawn(TournamentEvent, frozen=True):
    """The player is paired no more; a game in progress is the director's to adjudicate."""

    name: str
    reason: str = ""


class Table(msgspec.Struct, frozen=True):
    """A table of a round: its game and its players in seat order."""

    table: int
    game_id: str
    seats: tuple[str, ...]


class RoundPaired(TournamentEvent, frozen=True):
    """A round's tables, each a game created for it, and who sits out."""

    round: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...] = ()


class TableFinished(TournamentEvent, frozen=True):
    """A table's game ended: its winners and each player's pieces home, as the game's log
    says."""

    round: int
    table: int
    game_id: str
    winners: tuple[str, ...]
    pieces_home: dict[str, int]


class RoundClosed(TournamentEvent, frozen=True):
    """Every table of the round has finished."""

    round: int


EVENT_TYPES: dict[str, type[TournamentEvent]] = {
    cls.__name__: cls
    for cls in (
        TournamentCreated,
        PlayerRegistered,
        PlayerWithdrawn,
        RoundPaired,
        TableFinished,
        RoundClosed,
    )
}


def parse_event(type_: str, data: dict[str, Any]) -> TournamentEvent:
    """A stored tournament event (its type and data) as an event."""
    try:
        cls = EVENT_TYPES[type_]
    except KeyError:
        raise ValueError(f"unknown tournament event type {type_!r}") from None
    return msgspec.convert(data, cls)


def event_data(event: TournamentEvent) -> dict[str, Any]:
    """The stored ``data`` of an event: its fields as JSON-ready builtins."""
    data: dict[str, Any] = msgspec.to_builtins(event)
    data.pop("type", None)
    return data

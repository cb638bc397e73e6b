"""Who sits at a table that gathers, as its log says (pure).

A game created with open seats (``GameCreated.open_seats``) or seats kept for invited players
(``GameCreated.invites``) gathers: its rule state is set up for every seat at once, but nobody
acts until each of those seats is taken (``SeatTaken``) or the referee fills the open ones
with bots; then it starts (``TableStarted``). Before that, a joiner may leave (``SeatLeft``),
an invited player may decline (``InvitationDeclined``: the seat turns open) and the table
may close (``TableClosed``). ``Table`` is that seating, folded event by event (``seated``).
"""

from __future__ import annotations

import msgspec

from domain.events import (
    Event,
    GameCreated,
    InvitationDeclined,
    SeatLeft,
    SeatPlayer,
    SeatTaken,
    TableClosed,
    TableStarted,
)


class Table(msgspec.Struct, frozen=True):
    """The seating of a table that gathered: each seat's name now ("" for an open seat), the
    seats that belong to registered players now, the seats open and kept for invited players,
    per seat the sha256 of the token of the guest who took it by joining ("" for none), the
    seats taken by joining (so they may be left), whether it is listed in the lobby, whether
    it started and why it closed ("" while it has not)."""

    names: tuple[str, ...]
    players: tuple[SeatPlayer, ...]
    open: tuple[int, ...]
    invites: tuple[SeatPlayer, ...]
    guests: tuple[str, ...]
    joined: tuple[int, ...] = ()
    listed: bool = True
    started: bool = False
    closed: str = ""

    @property
    def gathering(self) -> tuple[int, ...]:
        """The seats still to fill (open or invited) while the table gathers; () once it has
        started or closed."""
        if self.started or self.closed:
            return ()
        return tuple(sorted({*self.open, *(invite.seat for invite in self.invites)}))

    def invited(self, seat: int) -> str | None:
        """The handle of the player invited to ``seat``, if it is kept for one now."""
        return next((i.handle for i in self.invites if i.seat == seat), None)

    def player_at(self, seat: int) -> str | None:
        """The handle of the registered player ``seat`` belongs to now, or None."""
        return next((p.handle for p in self.players if p.seat == seat), None)


def table_of(created: GameCreated) -> Table | None:
    """The seating a new game starts with: None for a game created with every seat filled
    (it never gathers)."""
    if not created.open_seats and not created.invites:
        return None
    return Table(
        names=created.seats,
        players=created.players,
        open=created.open_seats,
        invites=created.invites,
        guests=("",) * len(created.seats),
        listed=created.listed,
    )


def seated(table: Table, event: Event) -> Table:
    """The seating after ``event`` (anything but a table's event changes nothing)."""
    match event:
        case SeatTaken(seat=seat, name=name, player=player, digest=digest):
            players = (*table.players, SeatPlayer(seat, player)) if player else table.players
            return msgspec.structs.replace(
                table,
                names=put(table.names, seat, name),
                players=players,
                open=without(table.open, seat),
                invites=tuple(i for i in table.invites if i.seat != seat),
                guests=put(table.guests, seat, "" if player else digest),
                joined=tuple(sorted({*table.joined, seat})),
            )
        case SeatLeft(seat=seat):
            return msgspec.structs.replace(
                table,
                names=put(table.names, seat, ""),
                players=tuple(p for p in table.players if p.seat != seat),
                open=tuple(sorted({*table.open, seat})),
                guests=put(table.guests, seat, ""),
                joined=without(table.joined, seat),
            )
        case InvitationDeclined(seat=seat):
            return msgspec.structs.replace(
                table,
                names=put(table.names, seat, ""),
                open=tuple(sorted({*table.open, seat})),
                invites=tuple(i for i in table.invites if i.seat != seat),
            )
        case TableStarted(bots=bots):
            names = table.names
            for bot in bots:
                names = put(names, bot.seat, bot_name(bot.seat))
            filled = {bot.seat for bot in bots}
            kept = tuple(seat for seat in table.open if seat not in filled)
            return msgspec.structs.replace(table, names=names, open=kept, started=True)
        case TableClosed(reason=reason):
            return msgspec.structs.replace(table, closed=reason or "closed")
    return table


def bot_name(seat: int) -> str:
    """The name of an open seat a bot fills when its table starts: an unnamed seat's."""
    return f"Player {seat + 1}"


def put(values: tuple[str, ...], index: int, value: str) -> tuple[str, ...]:
    """``values`` with ``value`` at ``index``."""
    return (*values[:index], value, *values[index + 1 :])


def without(seats: tuple[int, ...], seat: int) -> tuple[int, ...]:
    """``seats`` without ``seat``."""
    return tuple(s for s in seats if s != seat)

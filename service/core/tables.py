"""The referee of a gathering table: who may join, leave, decline, start or close it, and when
its invitations and the table itself run out of time (pure; ``referee.judge`` calls it, so
live play, the import of a record and its verification judge a table alike).

A table gathers while a seat is open or kept for an invited player (``domain.tables``):

- anyone joins an open seat: a registered player as herself (the seat is hers), a guest
  under a name (her token's digest goes in the event); a seat kept for an invited player is
  hers alone; one seat a player. The last seat taken starts the table (``referee.settle``);
- a joiner leaves the seat she took (it opens again), an invited player declines hers (it
  opens);
- the referee starts it early with bots in the open seats (never while an invitation waits:
  it is declined, runs out or the table is cancelled first), or cancels it;
- the server, on its clock, declines the invitations (``expired``) ``TableTimes.invite``
  seconds after the creation and closes the table ``TableTimes.table`` seconds after it.

Nothing here changes once the table has started or closed: 409 ``table-not-gathering``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, NamedTuple

from domain.events import (
    Event,
    InvitationDeclined,
    SeatBot,
    SeatLeft,
    SeatTaken,
    TableClosed,
    TableStarted,
)
from domain.replay import Replay
from domain.tables import Table
from service.core.actor import Actor, Role
from service.core.commands import (
    CancelTable,
    DeclineInvitation,
    ExpireInvitations,
    ExpireTable,
    LeaveTable,
    StartWithBots,
    TableCommand,
    TakeSeat,
)
from service.core.fields import bad_field, field_range
from service.core.names import canonical
from service.core.refusal import refuse

if TYPE_CHECKING:
    from service.core.referee import Batch

INVITE_SECONDS = 600.0
"""How long an invitation waits for its player, from the table's creation."""
OPEN_TABLE_SECONDS = 1800.0
"""How long a table gathers before it closes, from its creation."""
CANCELLED, EXPIRED = "cancelled", "expired"  # why a table closed (``TableClosed.reason``)


class TableTimes(NamedTuple):
    """How long a gathering table's invitations and the table itself last, in seconds from
    its creation (the settings ``invite_seconds`` and ``open_table_seconds``)."""

    invite: float = INVITE_SECONDS
    table: float = OPEN_TABLE_SECONDS


TABLE_TIMES = TableTimes()
"""The times by default."""


def seating(replay: Replay, actor: Role | Actor, command: TableCommand) -> Batch:
    """The events ``command`` by ``actor`` causes at the gathering table ``replay``, or a
    refusal."""
    table = gathering_table(replay)
    expected = getattr(command, "expected_version", None)
    if expected is not None and expected != replay.version:
        raise refuse(
            "version-conflict",
            f"expected_version {expected} but the game is at version {replay.version}",
            current_version=replay.version,
        )
    match command:
        case TakeSeat():
            return taken(replay, table, command)
        case LeaveTable():
            return left(table, actor)
        case DeclineInvitation():
            return declined(table, actor)
        case StartWithBots():
            return started(table, actor, command)
        case CancelTable():
            if actor != "referee":
                raise refuse("forbidden", "only the referee cancels a table")
            return [("referee", TableClosed(CANCELLED))]
        case ExpireInvitations():
            server_only(actor)
            if not table.invites:
                raise refuse("not-your-turn", "no invitation of this table waits")
            return [("server", InvitationDeclined(i.seat, EXPIRED)) for i in table.invites]
        case ExpireTable():
            server_only(actor)
            return [("server", TableClosed(EXPIRED))]


def gathering_table(replay: Replay) -> Table:
    """The table of ``replay`` while it gathers; 409 ``table-not-gathering`` otherwise."""
    table = replay.table
    if table is None:
        why = "this game was created with every seat filled: nobody joins or leaves it"
        raise refuse("table-not-gathering", why)
    if table.closed:
        raise refuse("table-not-gathering", f"the table closed ({table.closed}) before it started")
    if table.started:
        why = "the table has started: its seats are taken (seats change hands by hand-over)"
        raise refuse("table-not-gathering", why)
    return table


def taken(replay: Replay, table: Table, command: TakeSeat) -> Batch:
    """A seat taken by a registered player (``player``) or a guest; 403 for a seat kept for
    someone else, 409 for a seat not open, a full table or a player seated already."""
    joiner = command.player
    if joiner and (seat := replay.seat_of(joiner)) is not None and table.invited(seat) is None:
        raise refuse("already-seated", f"`{joiner}` holds seat {seat + 1} at this table already")
    seat = chosen(table, joiner, command.seat)
    name = joiner or command.name or f"Player {seat + 1}"
    if not joiner:
        handles = [p.handle for p in table.players] + [i.handle for i in table.invites]
        for handle in handles:
            if canonical(handle) == canonical(name):
                why = f"`{name}` is a registered player's name at this table: give another"
                raise bad_field(("name",), why, "bad-setup")
    return [(seat, SeatTaken(seat, name, joiner, "" if joiner else command.digest))]


def chosen(table: Table, joiner: str, asked: int | None) -> int:
    """The seat a joiner takes: the one asked (open, or kept for her), else the one kept for
    her, else the first open one."""
    mine = next((i.seat for i in table.invites if joiner and i.handle == joiner), None)
    if asked is None:
        if mine is not None:
            return mine
        if not table.open:
            kept = ", ".join(f"seat {i.seat + 1} for `{i.handle}`" for i in table.invites)
            raise refuse("table-full", f"no seat of this table is open (kept: {kept})")
        return table.open[0]
    count = len(table.names)
    if not 0 <= asked < count:
        raise bad_field(("seat",), field_range(count, asked))
    if (invited := table.invited(asked)) is not None and invited != joiner:
        why = f"seat {asked + 1} is kept for the invited player `{invited}`: only her key takes it"
        raise refuse("forbidden", why)
    if mine is not None and asked != mine:
        why = f"`{joiner}` is invited to seat {mine + 1}: join it, or decline it first"
        raise refuse("forbidden", why)
    if invited is None and asked not in table.open:
        why = f"seat {asked + 1} is not open: `{table.names[asked]}` holds it"
        raise refuse("seat-taken", why, open=list(table.open))
    return asked


def left(table: Table, actor: Role | Actor) -> Batch:
    """The seat its joiner leaves (it opens again)."""
    if actor is None:
        raise refuse("unauthorized", "leaving needs the seat's token or its player's key")
    if not isinstance(actor, int):
        raise refuse("forbidden", "only whoever took a seat by joining leaves it")
    if table.invited(actor) is not None:
        why = f"seat {actor + 1} waits for your answer: decline it (POST /games/{{id}}/decline)"
        raise refuse("forbidden", why)
    if actor not in table.joined:
        why = f"seat {actor + 1} was seated when the game was created: it stays"
        raise refuse("forbidden", why)
    return [(actor, SeatLeft(actor))]


def declined(table: Table, actor: Role | Actor) -> Batch:
    """The invitation its player declines (the seat opens)."""
    if actor is None:
        raise refuse("unauthorized", "declining needs the invited player's key")
    if not isinstance(actor, int) or table.invited(actor) is None:
        raise refuse("forbidden", "only the invited player declines her invitation")
    return [(actor, InvitationDeclined(actor))]


def started(table: Table, actor: Role | Actor, command: StartWithBots) -> Batch:
    """The table started early by its referee, bots in the open seats."""
    if actor != "referee":
        raise refuse("forbidden", "only the referee starts a table early")
    if table.invites:
        waiting = ", ".join(f"`{i.handle}` (seat {i.seat + 1})" for i in table.invites)
        why = f"invitations wait for {waiting}: they decline, run out, or cancel the table"
        raise refuse("invitations-pending", why)
    if not command.level:
        open_seats = ", ".join(str(s + 1) for s in table.open)
        why = f"seats {open_seats} are open: give `bots`, a level for them"
        raise bad_field(("bots",), why, "bad-setup")
    bots = tuple(SeatBot(seat, command.level, command.version) for seat in table.open)
    return [("referee", TableStarted(bots))]


def server_only(actor: Role | Actor) -> None:
    """Refuse anyone but the server's clock."""
    if actor != "server":
        raise refuse("forbidden", "only the server's clock runs a table's time out")


def ready(replay: Replay) -> bool:
    """Whether ``replay`` is a table whose last seat to fill has just been taken: it starts."""
    table = replay.table
    return table is not None and not table.started and not table.closed and not table.gathering


def deadline(replay: Replay, born: datetime, times: TableTimes) -> datetime | None:
    """When the gathering table ``replay`` (created at ``born``) next runs out of time: its
    invitations, else the table; None when it does not gather."""
    table = replay.table
    if table is None or not table.gathering:
        return None
    moments = [born + timedelta(seconds=times.table)]
    if table.invites:
        moments.append(born + timedelta(seconds=times.invite))
    return min(moments)


def expiry(
    replay: Replay, born: datetime, now: datetime, times: TableTimes
) -> ExpireTable | ExpireInvitations | None:
    """What the server does to the gathering table ``replay`` (created at ``born``) at
    ``now``: close it once its time is up, else decline its invitations once theirs is."""
    table = replay.table
    if table is None or not table.gathering:
        return None
    if now >= born + timedelta(seconds=times.table):
        return ExpireTable()
    if table.invites and now >= born + timedelta(seconds=times.invite):
        return ExpireInvitations()
    return None


def recorded(event: Event, by: int | str) -> TableCommand | None:
    """The table command that made a recorded event (for verification), or None for an
    event no table command makes; a ``TableStarted`` by the server is no command's: it
    follows the last seat taken."""
    match event:
        case SeatTaken(seat=seat, name=name, player=player, digest=digest):
            return TakeSeat(seat, name, player, digest)
        case SeatLeft():
            return LeaveTable()
        case InvitationDeclined():
            return ExpireInvitations() if by == "server" else DeclineInvitation()
        case TableStarted(bots=bots) if by != "server":
            first = bots[0] if bots else SeatBot(-1, "", 0)
            return StartWithBots(first.level, first.version)
        case TableClosed():
            return ExpireTable() if by == "server" else CancelTable()
    return None

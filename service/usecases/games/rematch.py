"""Rematches: the next table of a finished game, asked for by one of its seats
(``POST /games/{id}/rematch``).

The next table is a game that gathers (``service.core.tables``), unlisted, with the finished
game's rule set, options, rated flag, chance, clock, spectator delay, hints and absence rule
(its tags stay with it: a tournament's table is not its rematch's). Its seats are the
finished game's turned by one, so that another seat plays first: seat ``n`` of the new
table is seat ``n + 1`` of the finished one (the last one's is seat 0). The seat that asks
sits down at once: a registered player as herself, a guest under her name with a new token,
shown in the reply. Every other registered player is invited (unless she has retired her
handle: then her seat is open), every other guest's seat is open (joined by the link: the
table's id, which the finished game shows), and a bot that played a seat from the creation
plays it again. No one holds the new table's referee token.

One finished game has one rematch: the table's id is made from the finished game's
(``summaries.rematch_id``), and the store creates a stream once, so of several requests at
once (in one process or several) one creates it and the others find it. A later request
from another seat takes that seat's place at the table, as joining would: an invited
player accepts her invitation, a guest takes her open seat and is given its token. A
guest's token at the new table is made from her token at the finished one and the new
table's secret seed, so whenever she asks again she is given the same token.

The link is in both logs' readers and neither is an event of the finished game: the new
table's ``GameCreated.rematch_of`` names the finished game, and the finished game's
``rematch`` (its state and its summary) is derived: the rematch writes it into the
finished game's summary when it creates the table.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import NamedTuple

import msgspec
import structlog

from domain.replay import Replay
from eventstore import StoreUnavailable
from service.core import chance
from service.core.actor import GameCaller, Player
from service.core.clocks import Absence, Clock
from service.core.commands import CreateGame, SeatSpec, TakeSeat
from service.core.delay import SpectatorDelay
from service.core.luck import Seeded
from service.core.referee import open_game
from service.core.refusal import Refusal, refuse
from service.usecases import tokens
from service.usecases.games import summaries
from service.usecases.games.commands import Commands, with_bots
from service.usecases.games.creation import Holders
from service.usecases.games.repository import Game
from service.usecases.writer import Conflict

LOST_SEAT = frozenset({"seat-taken", "table-full", "table-not-gathering", "already-seated"})
"""Why a later asker may fail to take her seat: someone else took it first, or the table
started or closed meanwhile (she is told the table's id, and no seat)."""


class AskRematch(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /games/{id}/rematch``: nothing to say (the body is ``{}`` or none); who asks
    is the caller's token or key."""


class Rematched(msgspec.Struct, frozen=True, omit_defaults=True):
    """``POST /games/{id}/rematch``: the next table's id, the asker's seat there (left out
    when it is no longer hers: taken by another, or the table closed), and for a guest
    that seat's token (shown only to her; she is given the same one whenever she asks)."""

    id: str
    seat: int | None = None
    token: str | None = None


class Asker(NamedTuple):
    """The seat of the finished game that asks: its number, its name, the registered
    player it belongs to (None for a guest) and, for a guest, her token there."""

    seat: int
    name: str
    handle: str | None
    token: str | None


class Rematches:
    """The rematches of finished games."""

    def __init__(self, commands: Commands) -> None:
        self.commands = commands
        self.games = commands.games
        self.creation = commands.creation

    def ask(self, game_id: str, caller: GameCaller, owner: str | None) -> tuple[Rematched, bool]:
        """The rematch table of the finished game ``game_id`` as ``caller`` (one of its seats)
        asks for it, and whether this request created it; a table with bots is ``owner``'s,
        within its cap. 401 without a credential, 403 for the referee or a bot's seat, 409
        ``game-not-finished`` while the game runs (or for a table that never started)."""
        with self.games.game(game_id) as game:
            asker = asking(game, caller)
            replay = game.replay
        table_id = summaries.rematch_id(game_id)
        if self.games.store.stream(table_id) is None:
            made = self.create(game_id, table_id, replay, asker, owner)
            if made is not None:
                self.link(game_id, table_id)
                return made, True
        return self.sit(table_id, asker), False

    def create(
        self, game_id: str, table_id: str, replay: Replay, asker: Asker, owner: str | None
    ) -> Rematched | None:
        """Create the rematch table, the asker seated; None when another request created it
        first."""
        seed = tokens.new_seed()
        token = guest_token(seed, table_id, asker.token) if asker.token is not None else None
        command, hashes = self.next_table(replay, asker, token)
        created = self.creation.setup(command, chance.commitment(seed))
        created = msgspec.structs.replace(created, rematch_of=game_id)
        verdict = open_game(created, Seeded(seed))
        holders = Holders("", hashes)
        game, _ = self.creation.new_game(verdict.after, verdict.batch, seed, {}, holders)
        try:
            with self.commands.bots.seating(owner, with_bots([command])):
                self.games.commit_new([game._replace(game_id=table_id)], self.commands.now())
        except Conflict:
            return None
        return Rematched(table_id, new_seat(asker.seat, len(created.seats)), token)

    def next_table(
        self, replay: Replay, asker: Asker, token: str | None
    ) -> tuple[CreateGame, tuple[str, ...]]:
        """The rematch table's creation, the seats turned by one, and its seats' token
        hashes (the asking guest's, else none)."""
        created = replay.created
        count = len(created.seats)
        bots = {bot.seat: bot.level for bot in created.bots}
        players = {owned.seat: owned.handle for owned in replay.players}
        seats: list[SeatSpec] = []
        hashes: list[str] = []
        for seat in range(count):
            old = (seat + 1) % count
            handle = players.get(old)
            if old == asker.seat:
                spec = SeatSpec(player=handle) if handle else SeatSpec(name=asker.name)
            elif old in bots:
                spec = SeatSpec(name=replay.names[old], bot=bots[old])
            elif handle is not None and self.creation.roster.seated(handle) == handle:
                spec = SeatSpec(invite=handle)
            else:
                spec = SeatSpec(open=True)
            seats.append(spec)
            hashes.append(tokens.token_hash(token) if old == asker.seat and token else "")
        return same_settings(replay, seats), tuple(hashes)

    def sit(self, table_id: str, asker: Asker) -> Rematched:
        """The rematch table as a later request finds it: the asker's seat there, taken now
        if it is still hers to take (kept for her invitation, or open for a guest)."""
        with self.games.game(table_id) as table:
            seat = new_seat(asker.seat, len(table.created.seats))
            token = None
            if asker.token is not None:
                token = guest_token(table.secrets.seed, table_id, asker.token)
            if holds(table, seat, asker, token):
                return Rematched(table_id, seat, token)
            free = may_take(table, seat, asker)
        if not free:
            return Rematched(table_id)
        if asker.handle is not None:
            caller: GameCaller = Player(asker.handle)
            command = TakeSeat(seat, player=asker.handle)
        else:
            caller = None
            digest = tokens.token_hash(token or "")
            command = TakeSeat(seat, asker.name, digest=digest)
        try:
            self.commands.write(table_id, caller, "join", command, None)
        except Refusal as refusal:
            if refusal.slug not in LOST_SEAT:
                raise
            return Rematched(table_id)
        return Rematched(table_id, seat, token)

    def link(self, game_id: str, table_id: str) -> None:
        """Name the rematch table in the finished game's summary (derived data: a summary
        made again from the log finds it too, so a fault here is only logged)."""
        try:
            row = self.games.store.summary(game_id)
            if row is not None:
                summary = summaries.linked(row.summary, table_id)
                self.games.store.save_summary(game_id, row.version, summary, row.updated_at)
        except StoreUnavailable as fault:
            structlog.get_logger().warning("rematch not linked", game_id=game_id, fault=fault.kind)


def asking(game: Game, caller: GameCaller) -> Asker:
    """The seat of ``game`` (held, locked) that ``caller`` is, checked: a seat's token or
    the key of the player it belongs to, of a game that finished after it was played."""
    if caller is None:
        raise refuse("unauthorized", "asking for a rematch needs a seat's token or a player's key")
    role = game.role(caller)
    if not isinstance(role, int):
        raise refuse("forbidden", "only a seat of the game asks for its rematch")
    table = game.replay.table
    if not game.finished or (table is not None and table.closed):
        why = "the game is still being played" if not game.finished else "it never started"
        raise refuse("game-not-finished", f"only a finished game has a rematch: {why}")
    if any(bot.seat == role for bot in game.created.bots):
        raise refuse("forbidden", f"seat {role + 1} is a bot's: a bot asks for no rematch")
    if game.created.chance == "external":
        why = (
            "a game whose referee posts the chance outcomes has no rematch by its seats:"
            " its referee creates the next game (POST /games)"
        )
        raise refuse("bad-setup", why)
    handle = caller.handle if isinstance(caller, Player) else None
    token = caller if isinstance(caller, str) else None
    return Asker(role, game.replay.names[role], handle, token)


def same_settings(replay: Replay, seats: list[SeatSpec]) -> CreateGame:
    """A new, unlisted game of ``seats`` with every setting of the game ``replay`` folds but
    its seats, tags and seed."""
    created = replay.created
    return CreateGame(
        ruleset=created.ruleset,
        seats=seats,
        options=dict(created.options),
        chance="server",
        auto_chance=created.auto_chance,
        allow_undo=created.allow_undo,
        clock=None if created.clock is None else msgspec.convert(created.clock, Clock),
        rated=created.rated,
        spectator_delay=(
            None
            if created.spectator_delay is None
            else msgspec.convert(created.spectator_delay, SpectatorDelay)
        ),
        allow_hints=created.allow_hints,
        absent=None if created.absent is None else msgspec.convert(created.absent, Absence),
        unlisted=True,
    )


def new_seat(old: int, count: int) -> int:
    """Where the finished game's seat ``old`` sits at the rematch table of ``count`` seats
    (turned by one: seat 1 plays first)."""
    return (old - 1) % count


def holds(table: Game, seat: int, asker: Asker, token: str | None) -> bool:
    """Whether the asker sits at ``seat`` of the rematch table (held, locked) already: the
    seat is her player's, or her token's (given at the creation, or taken by joining)."""
    if asker.handle is not None:
        return any(p.seat == seat and p.handle == asker.handle for p in table.replay.players)
    digest = tokens.token_hash(token or "")
    seating = table.replay.table
    joined = seating is not None and hmac.compare_digest(seating.guests[seat], digest)
    return joined or hmac.compare_digest(table.secrets.seats[seat], digest)


def may_take(table: Game, seat: int, asker: Asker) -> bool:
    """Whether the asker may take ``seat`` of the rematch table (held, locked) now: it is
    kept for her invitation, or it is open."""
    seating = table.replay.table
    if seating is None or seat not in table.replay.gathering:
        return False
    return seat in seating.open or (
        asker.handle is not None and seating.invited(seat) == asker.handle
    )


def guest_token(seed: str, table_id: str, token: str) -> str:
    """A guest's token at a rematch table: 256 bits made from her token at the finished
    game and the table's secret seed (her request, made again, gets the same one)."""
    made = hmac.new(seed.encode(), f"rematch-seat\n{table_id}\n{token}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(made.digest()).rstrip(b"=").decode()

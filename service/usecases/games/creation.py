"""Creating games: a new game, a batch of tables in one transaction, an imported record.

A creation checks every setting of the game first (a bad table of a batch creates none),
plays the game as far as it goes by itself, gives out fresh tokens (shown only in the reply)
or takes the token hashes of ``Holders``, and commits the first events through the repository.

A seat may belong to a registered player (``{"player": "ann"}``): the ``Roster`` says the
handle names a player who has not retired it, the seat is named for the handle as registered,
and no token is given out for it (its place in the reply's tokens is null): only the player's
key acts for it.

A seat may be left open (``{"open": true}``) or kept for an invited registered player
(``{"invite": "bob"}``): the game is a table that gathers until they are taken
(``service.core.tables``), and no token is given out for them either: whoever joins gets
hers then.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol

import msgspec

from domain.events import GameCreated, SeatPlayer
from domain.model import BadOption, GameError
from domain.registry import RULESETS
from domain.replay import Replay
from domain.ruleset import RuleSet
from service.core import chance
from service.core.clocks import absence_of, clock_fault
from service.core.commands import CreateBatch, CreateGame, SeatSpec
from service.core.delay import delay_fault, parse_delay
from service.core.fields import bad_field
from service.core.luck import Seeded
from service.core.names import canonical
from service.core.names import normal as normal_name
from service.core.referee import Batch, open_game
from service.core.refusal import Refusal, refuse
from service.core.seating import absence_rule, seat_bots
from service.usecases import tokens
from service.usecases.games.keyed import stored
from service.usecases.games.records import GameRecord, judged_record
from service.usecases.games.repository import NewGame, Repository, Secrets
from service.usecases.replies import BatchCreated, Created, Tokens
from service.usecases.tokens import Keyed

Now = Callable[[], datetime]


class Roster(Protocol):
    """The registered players, as a game's seats name them."""

    def seated(self, handle: str) -> str | None:
        """The handle as registered, when ``handle`` names (in any case or Unicode form) a
        registered player who has not retired it; else None."""
        ...


class Holders(msgspec.Struct, frozen=True):
    """Who holds a new game's tokens, as the hashes of tokens given out elsewhere (a
    tournament's director referees its tables, its players sit with their own tokens)."""

    referee: str
    seats: tuple[str, ...]


class Creation:
    """The writes that create games."""

    def __init__(
        self, games: Repository, now: Now, roster: Roster, minter: tokens.Minter | None = None
    ) -> None:
        self.games = games
        self.now = now
        self.roster = roster
        self.minter = minter or tokens.Minter()

    def create(
        self, command: CreateGame, holders: Holders | None = None, key: Keyed | None = None
    ) -> Created:
        """Validate and store a new game; the tokens are shown only in this reply. With
        ``holders`` (a tournament's table) the game takes those token hashes instead of new
        tokens, and the reply's tokens are empty. With ``key`` (an Idempotency-Key as
        stored) a retry replays the first creation (``service.usecases.games.keyed``)."""
        game, reply = self.opened(command, holders, key)
        return stored(self.games, self.now(), [game], [reply])[0]

    def opened(
        self,
        command: CreateGame,
        holders: Holders | None = None,
        key: Keyed | None = None,
        label: str = "",
    ) -> tuple[NewGame, Created]:
        """The new game ``command`` sets up, played as far as it goes by itself, to store."""
        seed = command.seed or tokens.new_seed()
        created = self.setup(command, chance.commitment(seed))
        verdict = open_game(created, Seeded(seed))
        return self.new_game(verdict.after, verdict.batch, seed, {}, holders, key, label)

    def import_record(self, record: GameRecord, key: Keyed | None = None) -> Created:
        """Judge a record again event by event, then store it as a new game with new tokens;
        an invalid record names its first bad event."""
        replay, batch = judged_record(record)
        if record.seed is None and record.chance == "server" and not replay.state.finished:
            raise refuse(
                "invalid-record",
                "a running game with server chance cannot be imported without its seed",
            )
        if any("\x00" in key + value for key, value in replay.created.tags.items()):
            raise refuse(
                "invalid-record", "event 1: a tag holds a NUL character", first_bad_event=1
            )
        try:
            parse_delay(replay.created.spectator_delay)
            absence_of(replay.created)
        except ValueError as error:  # msgspec's ValidationError is one
            raise refuse("invalid-record", f"event 1: {error}", first_bad_event=1) from None
        self.check_players(replay)
        seed = record.seed or tokens.new_seed()
        meta = {"imported_from": record.game_id}
        game, reply = self.new_game(replay, batch, seed, meta, None, key)
        return stored(self.games, self.now(), [game], [reply])[0]

    def check_players(self, replay: Replay) -> None:
        """A record's players' seats stay theirs: each handle (of a seat that belongs to a
        player, or is kept for one invited) must be one a new game could seat (a registered
        player's, as registered, not retired), in a game it could create."""
        created = replay.created
        for owned in {*replay.players, *created.players, *created.invites}:
            if self.roster.seated(owned.handle) != owned.handle:
                why = f"event 1: seat {owned.seat + 1} belongs to `{owned.handle}`, "
                why += NOT_REGISTERED
                raise refuse("unknown-player", why, first_bad_event=1)
        if created.players and created.rated and created.chance == "external":
            raise refuse("invalid-record", f"event 1: {EXTERNAL_RATED}", first_bad_event=1)

    def create_batch(
        self,
        batch: CreateBatch,
        holders: Sequence[Holders] | None = None,
        key: Keyed | None = None,
    ) -> BatchCreated:
        """Create every table in one transaction, after checking them all: a bad table
        creates none (``holders``: each table's token hashes, as ``create`` takes them);
        with ``key``, a retry replays every table."""
        games, reply = self.batch_games(batch, holders, key)
        return BatchCreated(stored(self.games, self.now(), games, reply.games))

    def batch_games(
        self,
        batch: CreateBatch,
        holders: Sequence[Holders] | None = None,
        key: Keyed | None = None,
    ) -> tuple[list[NewGame], BatchCreated]:
        """Every table of a batch to store, each checked first, and the reply."""
        if not batch.games:
            raise bad_field(("games",), "a batch needs at least one game")
        for index, command in enumerate(batch.games):
            try:
                self.setup(command, "")
            except Refusal as error:
                extra = dict(error.extra)
                if "pointer" in extra:
                    extra["pointer"] = f"/games/{index}{extra['pointer']}"
                raise refuse(error.slug, f"table {index}: {error.detail}", **extra) from None
            except GameError as error:
                raise refuse("bad-setup", f"table {index}: {error}") from None
        held: Sequence[Holders | None] = holders or [None] * len(batch.games)
        tables = zip(batch.games, held, strict=True)
        made = [self.opened(c, h, key, str(i)) for i, (c, h) in enumerate(tables)]
        return [game for game, _ in made], BatchCreated([reply for _, reply in made])

    def setup(self, command: CreateGame, commitment: str) -> GameCreated:
        """The first event of a game ``command`` creates, checked (every setting in it)."""
        rules = find(command.ruleset)
        options = dict(command.options)
        auto_chance = bool(options.pop("auto_chance", command.auto_chance))
        allow_undo = bool(options.pop("allow_undo", command.allow_undo))
        merged = {**rules.OPTIONS, **options}
        try:
            rules.setup(merged, len(command.seats))  # raises BadSetup
        except BadOption as error:
            raise refuse("validation-failed", str(error)) from None
        if command.clock is not None and (fault := clock_fault(command.clock)):
            raise refuse("bad-setup", fault)
        if command.spectator_delay is not None and (fault := delay_fault(command.spectator_delay)):
            raise bad_field(("spectator_delay",), fault)
        check_hints(command)
        for key, value in command.tags.items():
            if "\x00" in key + value:  # listings index tags as text, which PostgreSQL's cannot be
                raise bad_field(("tags", key), "a tag may not hold a NUL character")
        on_timeout = command.clock.on_timeout if command.clock is not None else None
        players = self.seat_players(command.seats)
        open_seats, invites = self.seat_invites(command.seats, players)
        if players and command.rated and command.chance == "external":
            raise bad_field(("chance",), EXTERNAL_RATED, "bad-setup")
        bots = seat_bots([s.bot for s in command.seats], on_timeout, rules.NAME)
        absent = absence_rule(command.absent, rules.NAME)
        names = seat_names(command.seats, (*players, *invites))
        clock = msgspec.to_builtins(command.clock) if command.clock else None
        delay = command.spectator_delay
        return GameCreated(
            rules.NAME,
            merged,
            names,
            command.chance,
            commitment,
            clock,
            auto_chance,
            allow_undo,
            dict(command.tags),
            command.rated,
            msgspec.to_builtins(delay) if delay else None,
            rules.VERSION,
            bots,
            command.allow_hints,
            players,
            absent=absent,
            open_seats=open_seats,
            invites=invites,
            listed=not (command.unlisted and (open_seats or invites)),
        )

    def seat_players(self, seats: Sequence[SeatSpec]) -> tuple[SeatPlayer, ...]:
        """The seats that belong to registered players, each handle as registered, checked:
        a registered, not retired player (422 ``unknown-player``), one seat each, neither a
        bot's nor named otherwise."""
        players: list[SeatPlayer] = []
        for seat, spec in enumerate(seats):
            if spec.player is None:
                continue
            path = ("seats", seat, "player")
            handle = self.roster.seated(normal_name(spec.player, path))
            if handle is None:
                raise bad_field(path, f"`{spec.player}` {NOT_REGISTERED}", "unknown-player")
            if spec.bot is not None:
                why = "a player's seat is the player's to play (she may hand it to a bot later)"
                raise bad_field(("seats", seat, "bot"), why, "bad-setup")
            name = normal_name(spec.name, ("seats", seat, "name"))
            if name and canonical(name) != canonical(handle):
                why = f"a player's seat is named for the player: `{handle}`, or no name"
                raise bad_field(("seats", seat, "name"), why, "bad-setup")
            for earlier in players:
                if earlier.handle == handle:
                    why = f"`{handle}` holds seat {earlier.seat + 1} already: one seat a player"
                    raise bad_field(path, why, "bad-setup")
            players.append(SeatPlayer(seat, handle))
        return tuple(players)

    def seat_invites(
        self, seats: Sequence[SeatSpec], players: Sequence[SeatPlayer]
    ) -> tuple[tuple[int, ...], tuple[SeatPlayer, ...]]:
        """The seats left open and those kept for invited players (each handle as
        registered), checked: such a seat names nobody else (no name, bot or player, and
        not both), an invited handle is a registered player's (422 ``unknown-player``), and
        one seat a player."""
        open_seats: list[int] = []
        invites: list[SeatPlayer] = []
        taken = {player.handle for player in players}
        for seat, spec in enumerate(seats):
            if not spec.open and spec.invite is None:
                continue
            given = [k for k in ("name", "bot", "player") if getattr(spec, k)]
            if given or (spec.open and spec.invite is not None):
                field = given[0] if given else "invite"
                why = "an open or invited seat is whoever joins it: give it no other field"
                raise bad_field(("seats", seat, field), why, "bad-setup")
            if spec.open:
                open_seats.append(seat)
                continue
            path = ("seats", seat, "invite")
            handle = self.roster.seated(normal_name(spec.invite or "", path))
            if handle is None:
                raise bad_field(path, f"`{spec.invite}` {NOT_REGISTERED}", "unknown-player")
            if handle in taken:
                why = f"`{handle}` has a seat at this table already: one seat a player"
                raise bad_field(path, why, "bad-setup")
            taken.add(handle)
            invites.append(SeatPlayer(seat, handle))
        return tuple(open_seats), tuple(invites)

    def new_game(
        self,
        after: Replay,
        batch: Batch,
        seed: str,
        meta: dict[str, Any],
        holders: Holders | None = None,
        key: Keyed | None = None,
        label: str = "",
    ) -> tuple[NewGame, Created]:
        """A new game to store, with fresh tokens (or the hashes of ``holders``), and the
        reply that shows them; with ``key``, its id and tokens derived from the key (the
        table ``label`` of a batch apart), so a replay shows them again."""
        created = after.created
        seats: list[str | None]
        mint = minting(self.minter, key, label)
        if holders is None:
            owned = {player.seat for player in (*created.players, *created.invites)}
            owned.update(created.open_seats)
            referee = mint("referee")
            seats = [None if s in owned else mint(f"seat {s}") for s in range(len(created.seats))]
            hashes = ["" if token is None else tokens.token_hash(token) for token in seats]
            secrets = Secrets(tokens.token_hash(referee), hashes, seed)
        else:
            referee, seats = "", [""] * len(created.seats)
            secrets = Secrets(holders.referee, list(holders.seats), seed)
        game_id = uuid.uuid4().hex if key is None else tokens.keyed_id(key.scoped, label)
        game = NewGame(game_id, batch, after, secrets, meta, key)
        reply = Created(game.game_id, len(batch), created.seed_commitment, Tokens(referee, seats))
        return game, reply


NOT_REGISTERED = (
    "names no registered player (POST /players registers a handle; a retired one is gone)"
)
EXTERNAL_RATED = (
    "a rated game with players' seats takes its chance from the server (its referee posts no"
    " outcome for a player): give rated: false to post outcomes from the table"
)


def minting(minter: tokens.Minter, key: Keyed | None, label: str) -> Callable[[str], str]:
    """How a new game's tokens are made, by role: fresh, or with ``key`` derived from it
    (and the table's ``label``)."""
    if key is None:
        return lambda _role: tokens.new_token()
    scoped = key.scoped
    return lambda role: minter.token(scoped, f"{label}:{role}")


def seat_names(seats: Sequence[SeatSpec], players: Sequence[SeatPlayer]) -> tuple[str, ...]:
    """Each seat's name: its player's handle, else the name given (``Player <n>`` when none);
    a free name may not pass for a player of the game (422)."""
    handles = {player.seat: player.handle for player in players}
    taken = {canonical(handle): seat for seat, handle in handles.items()}
    names = []
    for seat, spec in enumerate(seats):
        if seat in handles or spec.open:
            names.append(handles.get(seat, ""))  # an open seat is named by whoever joins it
            continue
        name = normal_name(spec.name, ("seats", seat, "name"))
        if name and canonical(name) in taken:
            why = f"`{name}` is the player at seat {taken[canonical(name)] + 1}: give another name"
            raise bad_field(("seats", seat, "name"), why, "bad-setup")
        names.append(name or f"Player {seat + 1}")
    return tuple(names)


def find(name: str) -> RuleSet[Any]:
    """The rule set, or an unknown-ruleset problem listing the known ones."""
    if name not in RULESETS:
        known = ", ".join(f"`{known}`" for known in sorted(RULESETS))
        why = f"no rule set `{name}`; the rule sets are {known}"
        raise bad_field(("ruleset",), why, "unknown-ruleset", sorted(RULESETS))
    return RULESETS[name]


def check_hints(command: CreateGame) -> None:
    """Hints are for unrated games outside tournaments: refuse ``allow_hints`` elsewhere."""
    if not command.allow_hints:
        return
    if command.rated:
        why = "hints are only for unrated games: give rated: false with it"
        raise bad_field(("allow_hints",), why, slug="bad-setup")
    if "tournament" in command.tags:
        why = "a tournament's games never allow hints"
        raise bad_field(("allow_hints",), why, slug="bad-setup")

"""Tournaments: each its own event stream in the games' store, with the same hash chain,
folded by the domain's pure reducer (``domain.tournament``).

The director pairs a round (``pair``): the domain plans it, the round's games are created as
one batch (``Creation.create_batch``) and ``RoundPaired`` names them. The director's token is
the referee token of every table and each guest's token is their seat's token at every table
they sit at, so nobody needs a new token per game. A registered player (entered by handle)
has no token: her tables seat her as her player's seat (``SeatSpec(player=...)``), which
only her key acts for, and her key is her link to the tournament's ``/me`` and
withdrawals. A round's games and its ``RoundPaired``
are one transaction: all stored, or none. Results come from the games through the results
follower (``results``), never through a read; a reader of a finished table never
waits for a director.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence

import msgspec

from domain import partners
from domain.model import GameError
from domain.tournament.events import (
    PlayerRegistered,
    PlayerWithdrawn,
    RoundPaired,
    Table,
    TournamentCreated,
)
from domain.tournament.pairing import round_robin_rounds, table_sizes
from domain.tournament.rounds import Plan, plan_round
from domain.tournament.standings import standings, table_points
from domain.tournament.state import Round, Tournament, fold
from eventstore import Appending, StoredEvent, Summarised, SummaryQuery
from service.core.actor import GameCaller
from service.core.clocks import Clock
from service.core.commands import CreateBatch, CreateGame, SeatSpec
from service.core.delay import SpectatorDelay, delay_fault
from service.core.fields import bad_field
from service.core.names import distinct, normal
from service.core.refusal import Refusal, refuse
from service.core.seating import seated
from service.usecases import tokens
from service.usecases.cursors import Cursors
from service.usecases.games.commands import Commands, with_bots
from service.usecases.games.creation import EXTERNAL_RATED, Holders, find, minting
from service.usecases.games.keyed import EXPIRED
from service.usecases.games.records import streamed_record
from service.usecases.games.repository import new_game
from service.usecases.games.summaries import TOURNAMENT, tournament_summary
from service.usecases.games.views import sight
from service.usecases.replies import TournamentEventOut, wire
from service.usecases.tokens import Keyed
from service.usecases.tournaments.entries import check_seated, entered
from service.usecases.tournaments.log import DIRECTOR, Loaded, TournamentLog, appending
from service.usecases.tournaments.players import PlayerTournaments
from service.usecases.tournaments.results import Results
from service.usecases.tournaments.wire import (
    CreateTournament,
    MyTable,
    PlayerOut,
    PlayerToken,
    RoundOut,
    RoundPairedReply,
    TableOut,
    TournamentCreatedReply,
    TournamentListed,
    TournamentRecordHead,
    TournamentRecordTail,
    TournamentStandings,
    TournamentTokens,
    TournamentView,
    Withdraw,
)
from service.usecases.writer import Conflict, Writer


def table_game(
    created: TournamentCreated,
    tournament_id: str,
    round_: int,
    table: int,
    seats: Sequence[str],
    handles: Sequence[str] = (),
) -> CreateGame:
    """The game-creation command of one table: the one place where the tournament's settings
    become its games' (``rated`` and ``spectator_delay`` included, as given); a registered
    player (``handles``) sits as her player's seat."""
    return CreateGame(
        ruleset=created.ruleset,
        seats=[table_seat(created, name, handles) for name in seats],
        options=dict(created.options),
        chance="external" if created.chance == "external" else "server",
        clock=msgspec.convert(created.clock, Clock) if created.clock else None,
        tags={"tournament": tournament_id, "round": str(round_), "table": str(table)},
        rated=created.rated,
        spectator_delay=(
            msgspec.convert(created.spectator_delay, SpectatorDelay)
            if created.spectator_delay is not None
            else None
        ),
    )


def table_seat(created: TournamentCreated, name: str, handles: Sequence[str]) -> SeatSpec:
    """A player's seat at a table: a registered player's by her handle, a guest's by name
    (played by the bot the tournament gives it, if any)."""
    if name in handles:
        return SeatSpec(player=name)
    return SeatSpec(name, created.bots.get(name))


class Tournaments:
    """The tournament use cases over the games' commands (and their store)."""

    def __init__(
        self, commands: Commands, log: TournamentLog, results: Results, cursors: Cursors
    ) -> None:
        self.commands = commands
        self.games = commands.games
        self.log = log
        self.store = self.log.store
        self.results = results
        self.cursors = cursors  # the seal of the listing's page cursors
        self.load = self.log.load
        self.roster = commands.creation.roster  # the registered players, as tables seat them
        self.entries = PlayerTournaments(self.store)

    def create(self, body: CreateTournament, key: Keyed | None = None) -> TournamentCreatedReply:
        """Check and store a new tournament; its tokens are shown only in this reply (none
        for a registered player, whose key is her link). With ``key`` its id and tokens are
        derived from it, so a retry replays the first creation (``keyed_tournament``)."""
        body = msgspec.structs.replace(body, players=entered(body.players, self.roster))
        created = self.settings(body)
        mint = minting(self.commands.creation.minter, key, "tournament")
        director = mint("director")
        players = [None if p.player else mint(f"player {i}") for i, p in enumerate(body.players)]
        private = {
            "director": tokens.token_hash(director),
            "players": ["" if t is None else tokens.token_hash(t) for t in players],
        }
        registered = (PlayerRegistered(p.name, p.player is not None) for p in body.players)
        events = [created, *registered]
        tournament_id = uuid.uuid4().hex if key is None else tokens.keyed_id(key.scoped)
        meta = {"kind": TOURNAMENT, "name": created.name, "ruleset": created.ruleset}
        summary = tournament_summary(fold(events))
        first = appending(tournament_id, events, DIRECTOR, 0, summary, meta, private)
        keyed_tournament(self.log.writer, first, key, director)
        held = [PlayerToken(p.name, t) for p, t in zip(body.players, players, strict=True)]
        return TournamentCreatedReply(tournament_id, len(events), TournamentTokens(director, held))

    def settings(self, body: CreateTournament) -> TournamentCreated:
        """The tournament's first event, every setting checked (a table of every size it may
        seat is set up as a game would be)."""
        names = [p.name for p in body.players]
        distinct(((("players", i, "name"), name) for i, name in enumerate(names)), "registered")
        if body.spectator_delay is not None and (fault := delay_fault(body.spectator_delay)):
            raise bad_field(("spectator_delay",), fault)
        if body.rated and body.chance == "external" and any(p.player for p in body.players):
            raise bad_field(("chance",), EXTERNAL_RATED, "bad-setup")
        rules, seats = find(body.ruleset), body.seats_per_table
        bots = {p.name: p.bot for p in body.players if p.bot is not None}
        for index, player in enumerate(body.players):
            if player.bot is not None:
                seated(("players", index, "bot"), player.bot, rules.NAME)
        teams = rules.NAME == partners.NAME
        if teams and len(names) % 2:
            raise refuse("bad-setup", "partners pairs teams of two: register an even number")
        points = tuple(body.points) or tuple(range(seats - 1, -1, -1))
        middle = (seats - 1) // 2
        default_bye = points[middle] if middle < len(points) else 0
        # Teams sit two a table: a round meets one other team.
        units, rivals = (len(names) // 2, 2) if teams else (len(names), seats)
        every_meeting = round_robin_rounds(units, rivals)
        created = TournamentCreated(
            body.name,
            rules.NAME,
            dict(body.options),
            body.format,
            body.rounds or every_meeting,
            seats,
            seats,
            points,
            default_bye if body.bye_points is None else body.bye_points,
            body.chance,
            msgspec.to_builtins(body.clock) if body.clock else None,
            body.rated,
            (
                msgspec.to_builtins(body.spectator_delay)
                if body.spectator_delay is not None
                else None
            ),
            teams,
        )
        created = msgspec.structs.replace(created, bots=bots)
        least = self.least_table(created, rules.MIN_PLAYERS)
        if not table_sizes(len(names), seats, least)[0]:
            raise refuse("bad-setup", f"{len(names)} players cannot fill a table of {least}")
        return msgspec.structs.replace(created, least_per_table=least)

    def least_table(self, created: TournamentCreated, fewest: int) -> int:
        """The smallest table the rule set and options take, counting down from
        ``seats_per_table`` (which must be taken: else its refusal, naming what is wrong)."""

        def takes(size: int) -> None:
            seats = [f"P{i}" for i in range(size)]
            self.commands.creation.setup(table_game(created, "", 1, 1, seats), "")

        try:
            takes(created.seats_per_table)
        except GameError as error:
            raise refuse("bad-setup", f"a table of {created.seats_per_table}: {error}") from None
        least = created.seats_per_table
        while least > fewest:
            try:
                takes(least - 1)
            except (Refusal, GameError):
                break
            least -= 1
        return least

    def pair(
        self,
        tournament_id: str,
        token: str | None,
        expected_version: int | None = None,
        spend: Callable[[int], None] | None = None,
        owner: str | None = None,
        key: Keyed | None = None,
    ) -> RoundPairedReply:
        """Pair the next round and create its games, all in one transaction (the director's).
        ``spend`` is told how many games the round creates before any is (it refuses a round
        over the caller's creation budget); the tables with bots are ``owner``'s, within its
        cap of games with bots (``BotShare.seating``). With ``key``, a retry answers the
        round that key paired."""
        spent: list[int] = []
        if key is not None:
            loaded = self.load(tournament_id)
            self.check_director(loaded, token)  # 401 or 403 before any stored reply
            earlier = self.log.writer.replayed(tournament_id, key.scoped, key.fingerprint)
            if earlier is not None:
                return paired_again(loaded, earlier[-1])

        def write(loaded: Loaded) -> RoundPairedReply:
            self.check_director(loaded, token)
            if expected_version is not None and expected_version != loaded.version:
                raise refuse(
                    "version-conflict",
                    f"the tournament is at version {loaded.version}, not {expected_version}",
                    current_version=loaded.version,
                )
            state = loaded.state
            count = check_can_pair(state)
            check_seated(state, self.roster)
            if spend is not None and not spent:  # before pairing, which costs more than a 429
                spend(count)
                spent.append(count)  # once, though a conflict makes the write try again
            plan = plan_round(state)
            batch = round_batch(loaded, plan)
            games, made = self.commands.creation.batch_games(batch, holders(loaded, plan))
            pairs = zip(made.games, plan.tables, strict=True)
            tables = tuple(Table(n, g.id, seats) for n, (g, seats) in enumerate(pairs, start=1))
            event = RoundPaired(plan.round, tables, plan.byes)
            now = self.commands.now()
            with self.commands.bots.seating(owner, with_bots(batch.games)):
                made_games = [new_game(g, now) for g in games]
                after = self.log.commit(loaded, [event], DIRECTOR, made_games, key)
            return RoundPairedReply(loaded.version + 1, round_out(after, after.rounds[-1]))

        return self.log.retried(tournament_id, write)

    def withdraw(self, tournament_id: str, token: GameCaller, body: Withdraw) -> TournamentView:
        """Pair a player no more (the director, or the player themselves: a guest with their
        token, a registered player with her key)."""

        def write(loaded: Loaded) -> TournamentView:
            state, role = loaded.state, loaded.role(token)
            if role is None:
                raise refuse("unauthorized", "withdrawing needs the director's or player's token")
            named = normal(body.player, ("player",)).casefold()
            found = next((p for p in state.players if p.casefold() == named), None)
            if found is None:
                raise bad_field(("player",), f"no player `{body.player}` in this tournament")
            if role != DIRECTOR and state.players[int(role)] != found:
                raise refuse("forbidden", "a player may withdraw only themselves")
            if state.finished:
                raise refuse("tournament-finished", "the tournament has finished")
            if found in state.withdrawn:
                return view(loaded)  # already withdrawn: nothing to add
            events = [PlayerWithdrawn(found, body.reason)]
            if state.created.teams:  # a team plays while both partners do
                partner = teammate(state.players, found)
                if partner not in state.withdrawn:
                    events.append(PlayerWithdrawn(partner, f"{found}, the partner, withdrew"))
            by = DIRECTOR if role == DIRECTOR else int(role)
            after = self.log.commit(loaded, events, by)
            version = loaded.version + len(events)
            return view(msgspec.structs.replace(loaded, state=after, version=version))

        return self.log.retried(tournament_id, write)

    def listing(
        self, status: str | None, limit: int, cursor: str | None
    ) -> tuple[list[TournamentListed], str | None]:
        """A page of tournaments, oldest first, and the cursor of the next (None on the last),
        read from their summaries as ``GET /games`` reads games'."""
        after = self.cursors.read(cursor, tuple[str, str])
        rows = self.store.summaries(SummaryQuery(TOURNAMENT, status, after=after, limit=limit + 1))
        more = len(rows) > limit
        rows = rows[:limit]
        following = self.cursors.make(rows[-1].created_at, rows[-1].stream_id) if more else None
        return [listed(row) for row in rows], following

    def played_by(self, handle: str, limit: int) -> list[TournamentListed]:
        """The ``limit`` latest tournaments the registered player ``handle`` entered, newest
        first, each as ``GET /tournaments`` lists it."""
        return [listed(row) for row in self.entries.latest(handle, limit)]

    def view(self, tournament_id: str) -> TournamentView:
        return view(self.load(tournament_id))

    def standings(self, tournament_id: str) -> TournamentStandings:
        loaded = self.load(tournament_id)
        state = loaded.state
        closed = sum(r.closed for r in state.rounds)
        return TournamentStandings(tournament_id, state.status, closed, standings(state))

    def me(self, tournament_id: str, token: GameCaller) -> MyTable:
        """The caller's (a player's) table, seat and seat token in the latest round: a
        registered player (her key) has no seat token, her key plays the table."""
        loaded = self.load(tournament_id)
        role = loaded.role(token)
        if role is None:
            raise refuse("unauthorized", "this route needs a player's token")
        if role == DIRECTOR:
            raise refuse("forbidden", "this route is a player's: the director sits at no table")
        state = loaded.state
        name = state.players[int(role)]
        base = MyTable(
            tournament_id,
            name,
            state.status,
            name in state.withdrawn,
            len(state.rounds),
            state.current is not None and name in state.current.byes,
        )
        current = state.current
        for table in current.tables if current else ():
            if current is not None and name in table.seats:
                finished = current.result(table.table) is not None
                return msgspec.structs.replace(
                    base,
                    table=table.table,
                    game_id=table.game_id,
                    seat=table.seats.index(name),
                    seat_token=token if isinstance(token, str) else None,
                    game_status="finished" if finished else "active",
                )
        return base

    def record(self, tournament_id: str, token: str | None) -> Iterator[bytes]:
        """The tournament's log and the records of its finished games, as one document in
        pieces: the director's at any time, anyone's once the tournament has finished."""
        loaded = self.load(tournament_id)
        if not loaded.state.finished and loaded.role(token) != DIRECTOR:
            raise refuse("forbidden", "a running tournament's record is the director's")
        events = self.store.read(tournament_id, until=loaded.version)
        head = TournamentRecordHead(tournament_id, [wire(TournamentEventOut, e) for e in events])
        game_ids = [t.game_id for r in loaded.state.rounds for t in r.tables]
        return self.pieces(head, game_ids, loaded.role(token) == DIRECTOR)

    def pieces(
        self, head: TournamentRecordHead, game_ids: list[str], director: bool
    ) -> Iterator[bytes]:
        """The record in pieces: each finished game's record, as far as the caller sees it
        (the director live, anyone else once the game's spectators see its end)."""
        yield msgspec.json.encode(head)[:-1] + b',"games":['
        separator = b""
        for game_id in game_ids:
            with self.games.game(game_id, keep=False) as game:
                seen = (
                    game.finished if director else sight(game, None, self.commands.now()).finished
                )
                if not seen:
                    continue
                pieces = streamed_record(game, self.store)
            for piece in pieces:
                yield separator + piece
                separator = b""
            separator = b","
        yield b"]," + msgspec.json.encode(TournamentRecordTail())[1:]

    def check_director(self, loaded: Loaded, token: str | None) -> None:
        role = loaded.role(token)
        if role is None:
            raise refuse("unauthorized", "this route needs the director's token")
        if role != DIRECTOR:
            raise refuse("forbidden", "this route is the director's")


def paired_again(loaded: Loaded, paired: StoredEvent) -> RoundPairedReply:
    """The reply to a round paired with an Idempotency-Key, asked again: that round now."""
    number = int(paired.data["round"])
    found = next(r for r in loaded.state.rounds if r.number == number)
    return RoundPairedReply(paired.version, round_out(loaded.state, found))


def keyed_tournament(writer: Writer, first: Appending, key: Keyed | None, director: str) -> None:
    """Store a new tournament, with ``key`` (an Idempotency-Key as stored) when given: a
    retry with the same body replays the first creation, whose tokens, derived again, must
    open it (409 ``idempotency-secrets-lost`` otherwise); a key older than keys are kept
    names a tournament that exists (422 ``idempotency-key-reused``)."""
    try:
        [result] = writer.commit([tokens.carrying(first, key)], "tournament")
    except Conflict:
        if key is None:
            raise
        raise refuse("idempotency-key-reused", EXPIRED.replace("a game", "a tournament")) from None
    stored = (writer.store.private(first.stream_id) or {}).get("director")
    if result.replayed and stored != tokens.token_hash(director):
        why = "this Idempotency-Key made the tournament already, but its tokens cannot be given"
        why += f" again (the service's key changed since): GET /tournaments/{first.stream_id}"
        raise refuse("idempotency-secrets-lost", why)


def round_batch(loaded: Loaded, plan: Plan) -> CreateBatch:
    """The games of a planned round, one per table."""
    created = loaded.state.created
    return CreateBatch(
        [
            table_game(created, loaded.id, plan.round, n, seats, loaded.state.handles)
            for n, seats in enumerate(plan.tables, start=1)
        ]
    )


def holders(loaded: Loaded, plan: Plan) -> list[Holders]:
    """Who holds each table's tokens: the director referees, the guests sit as themselves
    (a registered player's seat has no token: its hash is empty, which no token matches)."""
    hashes = dict(zip(loaded.state.players, loaded.players, strict=True))
    return [
        Holders(loaded.director, tuple(hashes[name] for name in seats)) for seats in plan.tables
    ]


def teammate(players: Sequence[str], name: str) -> str:
    """A player's partner: teams are formed in registration order, two by two."""
    index = players.index(name)
    return players[index + 1 if index % 2 == 0 else index - 1]


def check_can_pair(state: Tournament) -> int:
    """How many tables the next round has; 409 when the tournament is over or a round is
    still being played."""
    if len(state.rounds) >= state.created.rounds:
        raise refuse("tournament-finished", f"all {state.created.rounds} rounds were paired")
    current = state.current
    if current is not None and not current.closed:
        playing = [t.table for t in current.tables if current.result(t.table) is None]
        raise refuse(
            "round-in-progress",
            f"round {current.number} is still being played at tables {playing}",
            playing=playing,
        )
    created = state.created
    count = len(state.active) // 2 if created.teams else len(state.active)
    seats = 2 if created.teams else created.seats_per_table
    sizes, _ = table_sizes(count, seats, 2 if created.teams else created.least_per_table)
    if not sizes:
        raise refuse("bad-setup", f"{len(state.active)} active players cannot fill a table")
    return len(sizes)


def listed(row: Summarised) -> TournamentListed:
    document = row.summary.document
    return TournamentListed(
        row.stream_id,
        document["name"],
        document["ruleset"],
        document["format"],
        row.summary.status,  # type: ignore[arg-type]
        document["players"],
        document["seats_per_table"],
        document["rounds"],
        document["rounds_paired"],
        row.created_at,
    )


def view(loaded: Loaded) -> TournamentView:
    state, created = loaded.state, loaded.state.created
    return TournamentView(
        loaded.id,
        loaded.version,
        created.name,
        created.ruleset,
        created.options,
        created.format,
        state.status,  # type: ignore[arg-type]
        created.rounds,
        created.seats_per_table,
        list(created.points),
        created.bye_points,
        created.rated,
        created.spectator_delay,
        created.teams,
        [PlayerOut(name, name in state.withdrawn, name in state.handles) for name in state.players],
        [round_out(state, r) for r in state.rounds],
    )


def round_out(state: Tournament, round_: Round) -> RoundOut:
    tables = []
    for table in round_.tables:
        result = round_.result(table.table)
        tables.append(
            TableOut(
                table.table,
                table.game_id,
                list(table.seats),
                "finished" if result else "active",
                list(result.winners) if result else [],
                dict(result.pieces_home) if result else {},
                table_points(table, result, state.created.points, state.created.teams)
                if result
                else {},
            )
        )
    return RoundOut(round_.number, round_.closed, tables, list(round_.byes))

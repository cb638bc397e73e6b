"""A tournament's record checked offline: its own log (format, versions and hash chain, every
event folded by the domain's reducer), every game record it holds (verified as any game
record is), and that the two agree: each game is a table of the tournament with its players
in its seat order (a registered player's seat hers, ``GameCreated.players``), of its rule set
and tagged with its id, and each recorded result is the game's own.

A finished tournament's record must hold every table's game; a running one's (the
director's) holds the games finished so far."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import msgspec

from domain.tournament.events import TableFinished, parse_event
from domain.tournament.state import Tournament, TournamentError, step
from eventstore import StoredEvent, verify_chain
from service.core.rejudge import Invalid
from service.usecases.games.records import BROKEN_CHAIN, GameRecord, judge_record
from service.usecases.games.summaries import summary_of
from service.usecases.tournaments.wire import TOURNAMENT_FORMAT, TournamentRecord


class TournamentVerdict(msgspec.Struct, frozen=True):
    """Whether a tournament record holds: its problems (none when valid), how many events
    and games were checked."""

    problems: list[str]
    events: int
    games: int
    finished: bool

    @property
    def valid(self) -> bool:
        return not self.problems


def verify_tournament(record: TournamentRecord) -> TournamentVerdict:
    """Check a tournament record and every game record in it."""
    try:
        state = judge_log(record)
    except Invalid as bad:
        problem = f"event {bad.version}: {bad.reason}"
        return TournamentVerdict([problem], len(record.events), 0, False)
    problems = list(check_games(record, state))
    return TournamentVerdict(problems, len(record.events), len(record.games), state.finished)


def judge_log(record: TournamentRecord) -> Tournament:
    """The tournament its log folds to; ``Invalid`` names the first bad event."""
    if record.format != TOURNAMENT_FORMAT or record.format_version != 1:
        raise Invalid(0, f"unknown record format {record.format!r} {record.format_version}")
    chain = [
        StoredEvent(
            record.tournament_id, e.version, e.type, e.data, e.by, e.at, e.prev_hash, e.hash
        )
        for e in record.events
    ]
    bad = verify_chain(chain)
    if bad is not None:
        raise Invalid(bad, BROKEN_CHAIN)
    state: Tournament | None = None
    for event in record.events:
        try:
            state = step(state, parse_event(event.type, event.data))
        except (TournamentError, ValueError, msgspec.ValidationError) as error:
            raise Invalid(event.version, str(error)) from None
    if state is None:
        raise Invalid(1, "a tournament record has events")
    return state


def check_games(record: TournamentRecord, state: Tournament) -> Iterator[str]:
    """What is wrong between the tournament's tables and the game records (each game the
    game of one table, its record given once)."""
    games = {game.game_id: game for game in record.games}
    for game_id, count in Counter(game.game_id for game in record.games).items():
        if count > 1:
            yield f"game {game_id}: its record is given {count} times"
    tables = {t.game_id: (r, t) for r in state.rounds for t in r.tables}
    for game_id, count in Counter(t.game_id for r in state.rounds for t in r.tables).items():
        if count > 1:
            yield f"game {game_id}: the game of {count} tables"
    for game_id in games.keys() - tables.keys():
        yield f"game {game_id}: not a table of this tournament"
    for game_id, (round_, table) in tables.items():
        where = f"round {round_.number}, table {table.table} (game {game_id})"
        result = round_.result(table.table)
        game = games.get(game_id)
        if game is None:
            if result is not None or state.finished:
                yield f"{where}: its game record is missing"
            continue
        yield from (f"{where}: {p}" for p in check_game(record, state, table.seats, game, result))


def check_game(
    record: TournamentRecord,
    state: Tournament,
    seats: tuple[str, ...],
    game: GameRecord,
    result: TableFinished | None,
) -> Iterator[str]:
    """What is wrong with one table's game record."""
    try:
        replay, _ = judge_record(game, game.seed)
    except Invalid as bad:
        yield f"invalid at event {bad.version}: {bad.reason}"
        return
    created = replay.created
    if created.ruleset != state.created.ruleset:
        yield f"played {created.ruleset}, not the tournament's {state.created.ruleset}"
    if tuple(created.seats) != seats:
        yield f"seats {list(created.seats)} are not the table's {list(seats)}"
    if created.tags.get("tournament") != record.tournament_id:
        yield "its game is not tagged with this tournament"
    owners = {player.seat: player.handle for player in created.players}
    if owners != {seat: name for seat, name in enumerate(seats) if name in state.handles}:
        yield "its players' seats are not the tournament's registered players"
    if result is None:
        return
    document = summary_of(replay).document
    game_result = tuple(document["winners"]), document["pieces_home"]
    if (result.winners, result.pieces_home) != game_result:
        yield "the tournament's result is not the game's"

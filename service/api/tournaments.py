"""HTTP controller of tournaments as event streams: create, pair rounds, read the state, a
player's table, standings, withdrawals and the record (see
``service.usecases.tournaments.tournaments``)."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Literal

from litestar import Controller, Response, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter
from litestar.response import Stream

from service.api.apidoc import problems
from service.api.deps import AnyRequest, IdempotencyKey, limits_of
from service.api.documents import document, json_stream
from service.api.games import next_page
from service.api.identity import tournament_caller, tournament_player
from service.api.limits import client_of, create_limit, write_limit
from service.api.writes import creation_key
from service.usecases.tournaments.tournaments import Tournaments
from service.usecases.tournaments.wire import (
    CreateTournament,
    MyTable,
    PairRound,
    RoundPairedReply,
    TournamentCreatedReply,
    TournamentList,
    TournamentRecord,
    TournamentStandings,
    TournamentView,
    Withdraw,
)

TournamentsDep = NamedDependency[Tournaments]
TournamentId = FromPath[str]
READ = problems(400, 401, 403, 404)
WRITE = problems(400, 401, 403, 404, 409, 413, 415, 422, 429)


class TournamentsController(Controller):
    """Tournaments: their own event streams, with tables created a round at a time."""

    path = "/tournaments"

    @post(
        "/",
        operation_id="createTournament",
        sync_to_thread=True,
        before_request=create_limit,
        responses=problems(400, 413, 415, 422, 429),
    )
    def create(
        self,
        data: JSONBody[CreateTournament],
        request: AnyRequest,
        tournaments: TournamentsDep,
        idempotency_key: IdempotencyKey = None,
    ) -> TournamentCreatedReply:
        """Create a tournament: the reply holds the only copy of the director's token (the
        referee of every table) and of each player's (their seat at every table)."""
        return tournaments.create(data, creation_key(request, idempotency_key, "tournaments", data))

    @post(
        "/{tournament_id:str}/rounds",
        operation_id="pairRound",
        sync_to_thread=True,
        before_request=write_limit,
        responses=WRITE,
    )
    def pair(
        self,
        tournament_id: TournamentId,
        data: JSONBody[PairRound],
        request: AnyRequest,
        tournaments: TournamentsDep,
        idempotency_key: IdempotencyKey = None,
    ) -> RoundPairedReply:
        """The director's: pair the next round and create its tables' games in one batch
        (409 while a round is being played or once every round was paired). Each of the
        round's games counts against the client's creation budget, like any game (429 with
        Retry-After, before any is created), and each with bots against its cap on games with
        bots running at once. A retry with the same Idempotency-Key answers the round it
        paired."""
        owner = client_of(request)
        spend = partial(limits_of(request).check_create, owner)
        key = creation_key(request, idempotency_key, f"tournaments/{tournament_id}/rounds", data)
        caller = tournament_caller(request)
        return tournaments.pair(tournament_id, caller, data.expected_version, spend, owner, key)

    @get("/", operation_id="listTournaments", sync_to_thread=True, responses=problems(400))
    def list_tournaments(
        self,
        request: AnyRequest,
        tournaments: TournamentsDep,
        status: FromQuery[Literal["registering", "active", "finished"] | None] = None,
        limit: Annotated[int | None, QueryParameter(ge=1)] = None,
        cursor: FromQuery[str | None] = None,
    ) -> Response[TournamentList]:
        """A page of tournaments, oldest first, filtered by status: at most ``limit`` (the
        largest page by default); the next page is at ``next`` (and in the ``Link`` header,
        ``rel="next"``), whose ``cursor`` is opaque."""
        page = limits_of(request).check_page(limit)
        rows, after = tournaments.listing(status, page, cursor)
        link = None if after is None else next_page(request, after)
        headers = {} if link is None else {"Link": f'<{link}>; rel="next"'}
        return Response(TournamentList(rows, link), headers=headers)

    @get("/{tournament_id:str}", operation_id="getTournament", sync_to_thread=True, responses=READ)
    def tournament(
        self, tournament_id: TournamentId, tournaments: TournamentsDep
    ) -> TournamentView:
        """The tournament: settings, players, every round's tables and results."""
        return tournaments.view(tournament_id)

    @get("/{tournament_id:str}/me", operation_id="myTable", sync_to_thread=True, responses=READ)
    def me(
        self, tournament_id: TournamentId, request: AnyRequest, tournaments: TournamentsDep
    ) -> MyTable:
        """A player's table, seat and seat token in the latest round: a guest's (their
        token's), or a registered player's (her key's: she plays the table with it, and no
        seat token is shown)."""
        return tournaments.me(tournament_id, tournament_player(request))

    @get(
        "/{tournament_id:str}/standings",
        operation_id="tournamentStandings",
        sync_to_thread=True,
        responses=READ,
    )
    def standings(
        self, tournament_id: TournamentId, tournaments: TournamentsDep
    ) -> TournamentStandings:
        """Points per place, best first; ties by opponents' points, pieces home, name."""
        return tournaments.standings(tournament_id)

    @post(
        "/{tournament_id:str}/withdrawals",
        operation_id="withdrawPlayer",
        status_code=200,
        sync_to_thread=True,
        before_request=write_limit,
        responses=WRITE,
    )
    def withdraw(
        self,
        tournament_id: TournamentId,
        data: JSONBody[Withdraw],
        request: AnyRequest,
        tournaments: TournamentsDep,
    ) -> TournamentView:
        """Pair a player no more (the director's, or the player's own: a guest's token, a
        registered player's key); a game in play goes on (the director may adjudicate it,
        but for a registered player's seat)."""
        return tournaments.withdraw(tournament_id, tournament_player(request), data)

    @get(
        "/{tournament_id:str}/record",
        operation_id="exportTournament",
        sync_to_thread=True,
        responses=document(TournamentRecord) | READ,
    )
    def record(
        self, tournament_id: TournamentId, request: AnyRequest, tournaments: TournamentsDep
    ) -> Stream:
        """The tournament's log and its finished games' records, verifiable offline with
        ``python -m service verify`` (the director's at any time, anyone's once finished)."""
        return json_stream(tournaments.record(tournament_id, tournament_caller(request)))

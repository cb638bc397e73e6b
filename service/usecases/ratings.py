"""Ratings: openskill's Plackett-Luce rating of each player name in each rule set, from the
rated games' results in the order they finished.

A game's places (``placing``): its teams (each seat alone; partners' two pairs) ordered by
whether they won, then by pieces home (summed over a team), best first; teams equal on both
share a place (1, 2, 2, 4). A game is left out when it is not rated, when one name holds
two seats (a name cannot be ranked against itself, nor be its own partner), or while a
spectator delay in seconds hides its end (it joins, in its finishing place, once it passes).

Derived data, kept by each process as a cache over the games' summaries (``summaries``): a
read of a rule set's ratings lists its finished games' summaries (in finishing order: time,
then id); when the games already folded are the first of them it folds only the new ones onto
them, and on any other change (a game reopened by an undo, summaries rebuilt, a finish
committed out of time order) it folds the rule set again from its first game. Every process
reads the same summaries, so all serve the same ratings; ``rebuild`` makes them from the logs.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterator
from datetime import datetime

import msgspec
from openskill.models import PlackettLuce

from domain.registry import RULESETS
from eventstore import EventStore, Summarised, utcnow
from service.clock import Clock
from service.core.refusal import refuse
from service.usecases import cursors, summaries
from service.usecases.tournament import selection

MODEL = PlackettLuce()
"""openskill's defaults: a new name starts at mu 25, sigma 25/3; ordinal is mu - 3 sigma."""


class RatedGame(msgspec.Struct, frozen=True):
    """One rated game of a player: its place (1 is best) of how many, and the rating after it."""

    game_id: str
    finished_at: str
    place: int
    places: int
    mu: float
    sigma: float
    ordinal: float


class Rating(msgspec.Struct, frozen=True):
    """A player's rating in one rule set: ``ordinal`` (mu - 3 sigma) orders the leaderboard;
    ``rank`` is the place on it (1 is first)."""

    name: str
    rank: int
    mu: float
    sigma: float
    ordinal: float
    games: int
    wins: int


class Leaderboard(msgspec.Struct, frozen=True):
    """A page of a rule set's ratings, best first; ``next`` is the path and query of the next
    page (null on the last)."""

    ruleset: str
    ratings: list[Rating]
    next: str | None = None


class PlayerRuleset(msgspec.Struct, frozen=True):
    """A player's rating in one rule set and every rated game behind it, oldest first."""

    ruleset: str
    rating: Rating
    history: list[RatedGame]


class Player(msgspec.Struct, frozen=True):
    """``GET /players/{name}``: the player's ratings, one per rule set played rated."""

    name: str
    rulesets: list[PlayerRuleset]


class Placing(msgspec.Struct, frozen=True):
    """A rated game's result as the ratings read it: teams of names and their places."""

    game_id: str
    finished_at: str
    teams: list[list[str]]
    places: list[int]
    winners: list[str]


def placing(row: Summarised) -> Placing | None:
    """The places of a finished game's teams (see the module's docstring); None when the game
    is not rated or a name holds two seats."""
    document = row.summary.document
    if not document.get("rated", True):
        return None
    names: list[str] = document["seats"]
    seats = document.get("teams") or [[seat] for seat in range(len(names))]
    teams = [[names[seat] for seat in team] for team in seats]
    if len(set(names)) < len(names):
        return None
    winners, home = set(document["winners"]), document["pieces_home"]
    scores = [(bool(winners & set(team)), sum(home.get(n, 0) for n in team)) for team in teams]
    places = [1 + sum(other > score for other in scores) for score in scores]
    return Placing(row.stream_id, row.updated_at, teams, places, sorted(winners))


class Record:
    """One name's rating in a rule set as it is folded."""

    def __init__(self) -> None:
        fresh = MODEL.rating()
        self.mu, self.sigma = fresh.mu, fresh.sigma
        self.wins = 0
        self.history: list[RatedGame] = []

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def rating(self, name: str, rank: int) -> Rating:
        games, wins = len(self.history), self.wins
        return Rating(name, rank, self.mu, self.sigma, self.ordinal, games, wins)


class Fold:
    """A rule set's ratings after its first rated games, in finishing order."""

    def __init__(self) -> None:
        self.applied: list[tuple[str, str]] = []
        self.records: dict[str, Record] = {}
        self._board: list[Rating] | None = None

    def add(self, game: Placing) -> None:
        """Rate one more game's result."""
        records = [[self.records.setdefault(n, Record()) for n in team] for team in game.teams]
        teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma) for r in team] for team in records]
        rated = MODEL.rate(teams, ranks=[float(place) for place in game.places])
        for team, after, place in zip(records, rated, game.places, strict=True):
            for record, new in zip(team, after, strict=True):
                record.mu, record.sigma = new.mu, new.sigma
                entry = (game.game_id, game.finished_at, place, len(game.teams))
                record.history.append(RatedGame(*entry, new.mu, new.sigma, record.ordinal))
        for name in game.winners:
            self.records[name].wins += 1
        self.applied.append((game.finished_at, game.game_id))
        self._board = None

    def board(self) -> list[Rating]:
        """Every name's rating, best first (ordinal, then name)."""
        if self._board is None:
            order = sorted(self.records, key=lambda n: (-self.records[n].ordinal, n))
            self._board = [self.records[n].rating(n, i + 1) for i, n in enumerate(order)]
        return self._board


def fold(games: list[Placing], onto: Fold | None = None) -> Fold:
    """The ratings after ``games`` (in finishing order), folded onto ``onto`` when its games
    are the first of them, else from nothing."""
    keys = [(game.finished_at, game.game_id) for game in games]
    kept = onto if onto is not None and keys[: len(onto.applied)] == onto.applied else Fold()
    for game in games[len(kept.applied) :]:
        kept.add(game)
    return kept


def rated_games(store: EventStore, ruleset: str, now: datetime) -> list[Placing]:
    """The rule set's rated finished games whose end their spectators may see (a delay in
    seconds still running hides it), in finishing order (time, then id)."""
    query = selection(summaries.FINISHED, ruleset)
    rows = (row for row in summaries.every(store, query) if not summaries.end_hidden(row, now))
    found = [p for row in rows if (p := placing(row)) is not None]
    return sorted(found, key=lambda game: (game.finished_at, game.game_id))


def check_ruleset(ruleset: str) -> str:
    """The rule set asked for; an unknown one is 400 ``unknown-ruleset`` listing them."""
    if ruleset not in RULESETS:
        known = ", ".join(f"`{name}`" for name in sorted(RULESETS))
        why = f"`ruleset`: no rule set `{ruleset}`; the rule sets are {known}"
        raise refuse("unknown-ruleset", why, parameter="ruleset", allowed=sorted(RULESETS))
    return ruleset


class Ratings:
    """Every rule set's ratings, caught up with the summaries at each read."""

    def __init__(self, store: EventStore, now: Clock) -> None:
        self.store, self.now = store, now
        self.lock = threading.Lock()
        self.kept: dict[str, Fold] = {}

    def of(self, ruleset: str) -> Fold:
        """The rule set's ratings after every rated game finished so far."""
        with self.lock:
            kept = fold(rated_games(self.store, ruleset, self.now()), self.kept.get(ruleset))
            self.kept[ruleset] = kept
            return kept

    def leaderboard(self, ruleset: str, limit: int, cursor: str | None) -> Leaderboard:
        """A page of the rule set's ratings, best first, with the next page's cursor in
        ``next`` (None on the last; the edge makes it a link). The cursor names the last
        rating of the page (keyset: ordinal, name), so ratings that change between pages
        never list a name twice."""
        name = check_ruleset(ruleset)
        position = cursors.read(cursor, tuple[float, str])  # the last one's ordinal, name
        after = None if position is None else (-position[0], position[1])  # as board_key
        board = self.of(name).board()
        start = 0 if after is None else bisect.bisect_right(board, after, key=board_key)
        page = board[start : start + limit]
        more = start + limit < len(board)
        return Leaderboard(
            name, page, cursors.make(page[-1].ordinal, page[-1].name) if more and page else None
        )

    def player(self, name: str) -> Player:
        """The player's rating and rated games in every rule set; 404 when there are none."""
        played = []
        for ruleset in RULESETS:
            kept = self.of(ruleset)
            if name in kept.records:
                record = kept.records[name]
                rank = next(r.rank for r in kept.board() if r.name == name)
                rating = record.rating(name, rank)
                played.append(PlayerRuleset(ruleset, rating, list(record.history)))
        if not played:
            raise refuse("player-not-found", f"no rated game of a player named `{name}`")
        return Player(name, played)


def board_key(rating: Rating) -> tuple[float, str]:
    return (-rating.ordinal, rating.name)


def every_ruleset(store: EventStore) -> Iterator[tuple[str, list[Rating]]]:
    """Each rule set's whole leaderboard, folded afresh from the summaries."""
    for ruleset in RULESETS:
        yield ruleset, fold(rated_games(store, ruleset, utcnow())).board()


def rebuild(store: EventStore) -> Iterator[tuple[str, list[Rating]]]:
    """Make the summaries again from the logs, then every rule set's ratings from them."""
    summaries.rebuild(store)
    return every_ruleset(store)


def encode_board(ruleset: str, board: list[Rating]) -> bytes:
    """One rule set's whole leaderboard as the JSON line ``rebuild-ratings`` prints."""
    return msgspec.json.encode(Leaderboard(ruleset, board))

"""Ratings: openskill's Plackett-Luce rating of each player name in each rule set, from the
rated games' results in the order they finished.

A game's places (``placing``): its teams (each seat alone; partners' two pairs) ordered by
whether they won, then by pieces home (summed over a team), best first; teams equal on both
share a place (1, 2, 2, 4). A game is left out when it is not rated, when one name holds
two seats (a name cannot be ranked against itself, nor be its own partner), or while a
spectator delay in seconds hides its end (it joins, in its finishing place, once it passes).

Derived data, kept in the store beside the summaries, one rule set apart from another
(``fold``): each read first folds the games finished since the last read, so every
process serves the same ratings, and a leaderboard or a player's history is read a page at
a time from the store's rows, in SQL order. ``rebuild`` makes them again from the logs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
from openskill.models import PlackettLuce

from domain.registry import RULESETS
from eventstore import EventStore
from service.clock import Clock
from service.core.refusal import refuse
from service.usecases.cursors import Cursors
from service.usecases.games import summaries
from service.usecases.ratings.derived import get
from service.usecases.ratings.fold import Placing, RulesetFold, history_space, placing

__all__ = ["MODEL", "Leaderboard", "Placing", "Player", "Ratings", "placing"]

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
    """A player's rating in one rule set and the rated games behind it, oldest first, a page
    at a time: ``next`` is the path and query of the next page (null on the last)."""

    ruleset: str
    rating: Rating
    history: list[RatedGame]
    next: str | None = None


class Player(msgspec.Struct, frozen=True):
    """``GET /players/{name}``: the player's ratings, one per rule set played rated."""

    name: str
    rulesets: list[PlayerRuleset]


def check_ruleset(ruleset: str) -> str:
    """The rule set asked for; an unknown one is 400 ``unknown-ruleset`` listing them."""
    if ruleset not in RULESETS:
        known = ", ".join(f"`{name}`" for name in sorted(RULESETS))
        why = f"`ruleset`: no rule set `{ruleset}`; the rule sets are {known}"
        raise refuse("unknown-ruleset", why, parameter="ruleset", allowed=sorted(RULESETS))
    return ruleset


class Ratings:
    """Every rule set's ratings, read from the store once it has folded the games finished
    since the last read; each rule set folds on its own (no lock shared between them)."""

    def __init__(self, store: EventStore, now: Clock, cursors: Cursors) -> None:
        self.store, self.now, self.cursors = store, now, cursors
        self.folds = {ruleset: RulesetFold(store, ruleset, MODEL) for ruleset in RULESETS}

    def caught_up(self, ruleset: str) -> RulesetFold:
        """The rule set's fold, with every rated game finished so far folded in."""
        fold = self.folds[ruleset]
        fold.catch_up(self.now())
        return fold

    def leaderboard(self, ruleset: str, limit: int, cursor: str | None) -> Leaderboard:
        """A page of the rule set's ratings, best first, with the next page's cursor in
        ``next`` (None on the last; the edge makes it a link). The cursor names the last
        rating of the page and its rank (keyset: ordinal, name), so ratings that change
        between pages never list a name twice."""
        name = check_ruleset(ruleset)
        position = self.cursors.read(cursor, tuple[float, str])  # the last one's ordinal, name
        fold = self.caught_up(name)
        after = None if position is None else (-position[0], position[1])  # (score, key)
        rows = self.store.derived_ranked(fold.ratings, after, limit + 1)
        first = 1 + self.store.derived_rank(fold.ratings, rows[0].score, rows[0].key) if rows else 1
        ratings = [rating(row.key, first + i, row.document) for i, row in enumerate(rows[:limit])]
        last = ratings[-1] if len(rows) > limit else None
        return Leaderboard(
            name, ratings, self.cursors.make(last.ordinal, last.name) if last else None
        )

    def player(
        self, name: str, ruleset: str | None = None, limit: int = 1000, cursor: str | None = None
    ) -> Player:
        """The player's rating in every rule set (or in ``ruleset``) with its first ``limit``
        rated games, oldest first (or the page after ``cursor``, with ``ruleset``); each rule
        set's ``next`` is the cursor of its next page. 404 when there are none."""
        if cursor is not None and ruleset is None:
            raise refuse(
                "validation-failed",
                "`cursor`: a page of history is of one `ruleset`",
                parameter="cursor",
            )
        position = self.cursors.read(cursor, tuple[str])  # the last game's key
        after = position[0] if position else None
        played = []
        for each in [check_ruleset(ruleset)] if ruleset is not None else list(RULESETS):
            fold = self.caught_up(each)
            row = get(self.store, fold.ratings, name)
            if row is None or row.document is None:
                continue
            rank = 1 + self.store.derived_rank(fold.ratings, row.score, name)
            space = history_space(each, name)
            rows = self.store.derived_rows(space, after, limit=limit + 1)
            history = [rated_game(r.key, r.document) for r in rows[:limit]]
            more = len(rows) > limit and history
            page = self.cursors.make(rows[limit - 1].key) if more else None
            played.append(PlayerRuleset(each, rating(name, rank, row.document), history, page))
        if not played:
            raise refuse("player-not-found", f"no rated game of a player named `{name}`")
        return Player(name, played)

    def board(self, ruleset: str) -> list[Rating]:
        """The rule set's whole leaderboard (for ``rebuild-ratings``)."""
        fold, found = self.caught_up(ruleset), list[Rating]()
        after: tuple[float, str] | None = None
        while rows := self.store.derived_ranked(fold.ratings, after, 1000):
            found += [rating(r.key, len(found) + i + 1, r.document) for i, r in enumerate(rows)]
            after = (rows[-1].score, rows[-1].key)
        return found


def rating(name: str, rank: int, document: dict[str, Any] | None) -> Rating:
    """A stored rating as the API shows it."""
    assert document is not None
    mu, sigma = float(document["mu"]), float(document["sigma"])
    games, wins = int(document["games"]), int(document["wins"])
    return Rating(name, rank, mu, sigma, mu - 3 * sigma, games, wins)


def rated_game(key: str, document: dict[str, Any] | None) -> RatedGame:
    """A stored history row as the API shows it."""
    assert document is not None
    finished_at, game_id = key.split(" ", 1)
    mu, sigma = float(document["mu"]), float(document["sigma"])
    place, places = int(document["place"]), int(document["places"])
    return RatedGame(game_id, finished_at, place, places, mu, sigma, mu - 3 * sigma)


def every_ruleset(store: EventStore, now: Clock) -> Iterator[tuple[str, list[Rating]]]:
    """Each rule set's whole leaderboard, caught up with the summaries."""
    ratings = Ratings(store, now, Cursors())  # whole boards: no cursor made
    for ruleset in RULESETS:
        yield ruleset, ratings.board(ruleset)


def rebuild(store: EventStore, now: Clock) -> Iterator[tuple[str, list[Rating]]]:
    """Make the summaries again from the logs (which drops the ratings kept from them), then
    every rule set's ratings from them."""
    summaries.rebuild(store)
    return every_ruleset(store, now)


def encode_board(ruleset: str, board: list[Rating]) -> bytes:
    """One rule set's whole leaderboard as the JSON line ``rebuild-ratings`` prints."""
    return msgspec.json.encode(Leaderboard(ruleset, board))

"""Ratings: openskill's Plackett-Luce rating of each registered player (by handle) and each
bot level (``bot:<level>``) in each rule set, from the results of the games that count
(``rule``) in the order they finished.

A game's places (``placing``): its teams (each seat alone; partners' two pairs) ordered by
whether they won, then by pieces home (summed over a team), best first; teams equal on both
share a place (1, 2, 2, 4). A game is left out when it does not count (``rule``: a guest at a
seat, a player who never acted, external chance, a referee's decision, ...), when one key or
name holds two seats (a key cannot be ranked against itself, nor be its own partner), or
while a spectator delay in seconds hides its end (it joins, in its finishing place, once it
passes).

Derived data, kept in the store beside the summaries, one rule set apart from another
(``fold``): each read first folds the games finished since the last read, so every
process serves the same ratings, and a leaderboard or a player's history is read a page at
a time from the store's rows, in SQL order. Only registered players not retired (the players'
registry, ``Handles``) and bots are shown. ``rebuild`` drops them and folds them again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import msgspec
from openskill.models import PlackettLuce

from domain.players.events import HandleRetired
from domain.registry import RULESETS
from eventstore import Appending, DerivedRow, EventStore
from service.clock import Clock
from service.core.refusal import Refusal, refuse
from service.usecases.cursors import Cursors
from service.usecases.ratings.derived import get
from service.usecases.ratings.fold import Placing, RulesetFold, history_space, placing
from service.usecases.ratings.rule import is_bot

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


Handles = Callable[[str], str | None]
"""The players' registry as the ratings ask it, in one call: the handle as registered of the
player ``handle`` names (its canonical form matched), None when no player is registered under
it now (never registered, or retired)."""


def as_given(handle: str) -> str | None:
    """Every handle as given, listed: no players' registry to ask (a seat names a registered
    player only when one was, so the ratings hold no other handle)."""
    return handle


class Ratings:
    """Every rule set's ratings, read from the store once it has folded the games finished
    since the last read; each rule set folds on its own (no lock shared between them).
    ``handles`` is the players' registry: only its listed players (and bots) are shown."""

    def __init__(
        self, store: EventStore, now: Clock, cursors: Cursors, handles: Handles = as_given
    ) -> None:
        self.store, self.now, self.cursors, self.handles = store, now, cursors, handles
        self.folds = {
            ruleset: RulesetFold(store, ruleset, MODEL, self.listed) for ruleset in RULESETS
        }

    def listed(self, key: str) -> bool:
        """Whether a rating key is shown: a bot's, or a registered player's not retired."""
        return is_bot(key) or self.handles(key) == key

    def key_of(self, name: str) -> str | None:
        """The rating key ``name`` asks for (a bot's, or a handle as registered); None when
        it names no one listed."""
        return name if is_bot(name) else self.handles(name)

    def retire(self, handle: str) -> None:
        """Take a retired handle off every leaderboard (its games stay in the logs and in
        its opponents' ratings)."""
        for fold in self.folds.values():
            fold.hide(handle)

    def follow(self, append: Appending) -> Callable[[], object] | None:
        """The writer's follower: a player's stream just given ``HandleRetired`` takes that
        handle off every leaderboard (``retire``; ``rebuild`` hides one a crash left)."""
        if not any(event.type == HandleRetired.__name__ for event in append.events):
            return None
        return lambda: self.retire(registered(self.store, append.stream_id))

    def rebuild(self) -> Iterator[tuple[str, list[Rating]]]:
        """Drop every rule set's ratings and fold them again from the games (their summaries,
        and the logs of those that may count) under the rule; each rule set's whole board."""
        for ruleset, fold in self.folds.items():
            fold.reset()
            yield ruleset, self.board(ruleset)

    def caught_up(self, ruleset: str) -> RulesetFold:
        """The rule set's fold, with every rated game finished so far folded in."""
        fold = self.folds[ruleset]
        fold.catch_up(self.now())
        return fold

    def ordinal(self, ruleset: str, handle: str) -> float:
        """A player's ordinal (mu - 3 sigma) in the rule set now; a player with no rated game
        of it has a new name's (0). What quick play pairs rated seeks by."""
        row = get(self.store, self.caught_up(ruleset).ratings, handle)
        if row is None or row.document is None:
            return MODEL.rating().ordinal()
        return float(row.document["mu"]) - 3 * float(row.document["sigma"])

    def leaderboard(self, ruleset: str, limit: int, cursor: str | None) -> Leaderboard:
        """A page of the rule set's ratings, best first, with the next page's cursor in
        ``next`` (None on the last; the edge makes it a link). The cursor names the last
        rating of the page and its rank (keyset: ordinal, name), so ratings that change
        between pages never list a name twice."""
        name = check_ruleset(ruleset)
        position = self.cursors.read(cursor, tuple[float, str])  # the last one's ordinal, name
        fold = self.caught_up(name)
        after = None if position is None else (-position[0], position[1])  # (score, key)
        rows = shown(self.store.derived_ranked(fold.ratings, after, limit + 1))
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
        rulesets = [check_ruleset(ruleset)] if ruleset is not None else list(RULESETS)
        key = self.key_of(name)
        if key is None:
            raise not_found(name)
        for each in rulesets:
            fold = self.caught_up(each)
            row = get(self.store, fold.ratings, key)
            if row is None or row.document is None or row.document.get("retired"):
                continue
            rank = 1 + self.store.derived_rank(fold.ratings, row.score, key)
            space = history_space(each, key)
            rows = self.store.derived_rows(space, after, limit=limit + 1)
            history = [rated_game(r.key, r.document) for r in rows[:limit]]
            more = len(rows) > limit and history
            page = self.cursors.make(rows[limit - 1].key) if more else None
            played.append(PlayerRuleset(each, rating(key, rank, row.document), history, page))
        if not played:
            raise not_found(name)
        return Player(key, played)

    def board(self, ruleset: str) -> list[Rating]:
        """The rule set's whole leaderboard (for ``ratings rebuild``)."""
        fold, found = self.caught_up(ruleset), list[Rating]()
        after: tuple[float, str] | None = None
        while rows := shown(self.store.derived_ranked(fold.ratings, after, 1000)):
            found += [rating(r.key, len(found) + i + 1, r.document) for i, r in enumerate(rows)]
            after = (rows[-1].score, rows[-1].key)
        return found


def registered(store: EventStore, stream_id: str) -> str:
    """The handle a player's stream registered (its first event's, ``PlayerRegistered``)."""
    first = store.read(stream_id, until=1)
    return str(first[0].data["handle"]) if first else ""


def not_found(name: str) -> Refusal:
    """404 ``player-not-found``: ``name`` is no listed player or bot with a rated game."""
    return refuse("player-not-found", f"no rated game of a registered player or bot named `{name}`")


def shown(rows: list[DerivedRow]) -> list[DerivedRow]:
    """Ranked rows before the first retired handle's (which sort after every listed one)."""
    for index, row in enumerate(rows):
        if row.document is None or row.document.get("retired"):
            return rows[:index]
    return rows


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


def encode_board(ruleset: str, board: list[Rating]) -> bytes:
    """One rule set's whole leaderboard as the JSON line ``ratings rebuild`` prints."""
    return msgspec.json.encode(Leaderboard(ruleset, board))

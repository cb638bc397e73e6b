"""One rule set's ratings kept in the store, folded from its finished games as they come.

Rows of the rule set R (``EventStore`` derived rows, see derived.py), keyed by rating key (a
player's handle, or ``bot:<level>``: ``rule``):

- ``ratings/R``: a key's rating now (mu, sigma, games, wins), scored by minus its ordinal so
  that the (score, key) order is the leaderboard's; a retired handle's is marked ``retired``
  and scored ``HIDDEN``, after every other;
- ``history/R/<key>``: the key's rated games in finishing order (key: finish time, id),
  each with the place and the rating after it (and its games and wins so far);
- ``rated/R``: the rated games folded, in finishing order, with their places (``Placing``);
- ``games/R``: each game folded or waiting, by id: where it is (``rated`` or ``waiting``);
- ``waiting/R``: finished games whose end a delay in seconds still hides, by when it shows;
- ``ratings-rule``, key R: the version of the rule the rows were folded under
  (``rule.RULE_VERSION``). Rows folded under another rule are dropped when a process first
  reads them (``reset``), and every game is folded again from the first.

Which finished games count is ``rule``'s: the summary says whether a game may (rated, every
seat a player's or a bot's), then the game's log whether it does.

A game that finishes after the last one folded is folded onto the ratings as they are: its
players' ratings and one history row each. A game that changes anywhere else (reopened by an
undo, finished again, its summary rebuilt, a finish committed out of time order, a delay that
has passed) refolds from its place in finishing order on: the games folded from there are
dropped, their players' ratings go back to their history's row before that place, and those
games (less the reopened one, plus the new one) are folded again. What this costs grows with
the games after that place, never with the rule set's history before it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import msgspec

from eventstore import Changed, DerivedRow, Drop, EventStore, Summarised
from service.usecases.games.summaries import FINISHED, end_hidden
from service.usecases.ratings import derived, rule
from service.usecases.ratings.derived import Batch


class Placing(msgspec.Struct, frozen=True):
    """A rated game's result as the ratings read it: teams of rating keys (handles, and
    ``bot:<level>``) and their places."""

    game_id: str
    finished_at: str
    teams: list[list[str]]
    places: list[int]
    winners: list[str]


def placing(row: Summarised, keys: list[str]) -> Placing | None:
    """The places of a finished game's teams, each seat rated by its key in ``keys`` (see
    ``service.usecases.ratings.ratings``); None when a key or a name holds two seats."""
    document = row.summary.document
    names: list[str] = document["seats"]
    if len(set(names)) < len(names) or len(set(keys)) < len(keys) or len(keys) != len(names):
        return None
    seats = document.get("teams") or [[seat] for seat in range(len(names))]
    teams = [[keys[seat] for seat in team] for team in seats]
    won, home = set(document["winners"]), document["pieces_home"]
    scores = [
        (any(names[seat] in won for seat in team), sum(home.get(names[seat], 0) for seat in team))
        for team in seats
    ]
    places = [1 + sum(other > score for other in scores) for score in scores]
    winners = sorted(keys[seat] for seat in range(len(names)) if names[seat] in won)
    return Placing(row.stream_id, row.updated_at, teams, places, winners)


def counted(store: EventStore, row: Summarised) -> Placing | None:
    """A finished game's places when it counts for ratings (``rule``: its summary first, then
    its log), else None."""
    if not rule.candidate(row.summary.document):
        return None
    keys = rule.rating_keys(store.read(row.stream_id), store.stream(row.stream_id))
    return placing(row, keys) if keys is not None else None


RULES = "ratings-rule"
"""The derived rows saying which rule each rule set's ratings were folded under (by rule set:
``{"version": rule.RULE_VERSION}``)."""
HIDDEN = 1e300
"""The score of a retired handle's rating: after every listed one's (minus an ordinal)."""


def ratings_space(ruleset: str) -> str:
    return f"ratings/{ruleset}"


def history_space(ruleset: str, name: str) -> str:
    return f"history/{ruleset}/{name}"


class State(msgspec.Struct):
    """A name's rating as it is folded."""

    mu: float
    sigma: float
    games: int = 0
    wins: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def everyone(key: str) -> bool:
    """Every rating key is listed (no players' registry to ask)."""
    return True


class RulesetFold:
    """Keeps one rule set's ratings in the store (``catch_up``), on the clock ``now``;
    ``listed`` says whether a player's handle is still listed (registered, not retired)."""

    def __init__(
        self, store: EventStore, ruleset: str, model: Any, listed: Callable[[str], bool] = everyone
    ) -> None:
        self.store, self.ruleset, self.model, self.listed = store, ruleset, model, listed
        self.lock = threading.Lock()
        self.ratings, self.rated = ratings_space(ruleset), f"rated/{ruleset}"
        self.games, self.waiting = f"games/{ruleset}", f"waiting/{ruleset}"
        self.fresh = model.rating(name="")  # a new name's rating
        self.ruled = False
        """Whether this process has seen the rows folded under ``rule.RULE_VERSION``."""

    def catch_up(self, now: datetime) -> None:
        """Fold every game finished since the last read (and every change before it); rows
        folded under another rule are dropped first (``dropped``). Nothing folded yet is
        nothing to drop: the first page folded records the rule (a start writes nothing)."""
        if not self.ruled:
            with self.lock:
                while (
                    self.rule_of() != rule.RULE_VERSION
                    and self.store.derived_mark(self.ratings) > 0
                    and not self.dropped()
                ):
                    pass
                self.ruled = True

        def read(position: int) -> list[Changed]:
            return self.store.changes(position, derived.PAGE, kind=self.ruleset)

        def step(page: list[Changed], batch: Batch) -> None:
            self.step(page, batch, now)

        derived.catch_up(self.store, self.ratings, self.lock, read, step)

    def step(self, page: list[Changed], batch: Batch, now: datetime) -> None:
        """The rows a page of changed summaries (and the waiting games now due) make, under
        the rule of ``rule.RULE_VERSION`` (which they record)."""
        dropped: set[str] = set()  # keys of rated games to fold no more
        added: dict[str, Placing] = {}
        rows = [change.row for change in page]
        if page:
            batch.put(RULES, self.ruleset, {"version": rule.RULE_VERSION})
        for waiting in derived.due(self.store, self.waiting, now):
            game_id = waiting.key.rsplit(" ", 1)[1]
            row = self.store.summary(game_id)
            if row is None:  # its summary is gone (dropped): nothing left to wait for
                batch.delete(self.waiting, waiting.key)
            elif all(r.stream_id != game_id for r in rows):
                rows.append(row)
        for row in rows:
            known = derived.get(self.store, self.games, row.stream_id)
            if known is not None and known.document is not None:
                if "rated" in known.document:
                    dropped.add(known.document["rated"])
                else:
                    batch.delete(self.waiting, known.document["waiting"])
                batch.delete(self.games, row.stream_id)
            if row.summary.status != FINISHED or (found := counted(self.store, row)) is None:
                continue
            if end_hidden(row, now):
                shows = f"{derived.shows_at(row)} {row.stream_id}"
                batch.put(self.waiting, shows, {})
                batch.put(self.games, row.stream_id, {"waiting": shows})
            else:
                added[derived.finish_key(row)] = found
        if dropped or added:
            self.refold(min(dropped | set(added)), dropped, added, batch)

    def refold(
        self, since: str, dropped: set[str], added: dict[str, Placing], batch: Batch
    ) -> None:
        """Fold again every rated game from key ``since`` on, less ``dropped``, with ``added``."""
        tail = self.rows_since(since)
        games = {row.key: msgspec.convert(row.document, Placing) for row in tail}
        states: dict[str, State | None] = {}
        for game in games.values():
            for name in names(game):
                if name not in states:
                    states[name] = self.before(name, since)
                    batch.drop(history_space(self.ruleset, name), since)
        batch.drop(self.rated, since)
        for key in dropped:
            games.pop(key, None)
        games.update(added)
        for key in sorted(games):
            self.fold(key, games[key], states, batch)
        for name, state in states.items():
            if state is None:
                batch.delete(self.ratings, name)
            elif rule.is_bot(name) or self.listed(name):
                batch.put(self.ratings, name, msgspec.to_builtins(state), -state.ordinal)
            else:
                batch.put(self.ratings, name, retired(msgspec.to_builtins(state)), HIDDEN)

    def fold(self, key: str, game: Placing, states: dict[str, State | None], batch: Batch) -> None:
        """Rate one game onto ``states`` (its names' ratings, loaded when first needed)."""
        for name in names(game):
            if name not in states:
                states[name] = self.current(name)
        teams = [
            [
                self.model.rating(mu=s.mu, sigma=s.sigma, name=name)
                for name, s in zip(team, team_states(team, states, self.fresh), strict=True)
            ]
            for team in game.teams
        ]
        rated = self.model.rate(teams, ranks=[float(place) for place in game.places])
        winners = set(game.winners)
        for team, after, place in zip(game.teams, rated, game.places, strict=True):
            for name, new in zip(team, after, strict=True):
                before = states[name]
                state = State(new.mu, new.sigma, (before.games if before else 0) + 1)
                state.wins = (before.wins if before else 0) + (name in winners)
                states[name] = state
                entry = {"place": place, "places": len(game.teams), **msgspec.to_builtins(state)}
                batch.put(history_space(self.ruleset, name), key, entry)
        batch.put(self.rated, key, msgspec.to_builtins(game))
        batch.put(self.games, game.game_id, {"rated": key})

    def reset(self) -> None:
        """Drop every row of the rule set's ratings: the next ``catch_up`` folds every game
        again, from the first, under the rule of ``rule.RULE_VERSION``."""
        with self.lock:
            while not self.dropped():
                pass
            self.ruled = True

    def rule_of(self) -> int:
        """The version of the rule the rule set's rows were folded under (1: no record)."""
        row = derived.get(self.store, RULES, self.ruleset)
        return int(row.document["version"]) if row is not None and row.document else 1

    def dropped(self) -> bool:
        """Drop the rule set's rows and move its mark back to the start, recording the
        current rule; False if another process moved the mark meanwhile."""
        position = self.store.derived_mark(self.ratings)
        spaces = [self.ratings, self.rated, self.games, self.waiting]
        spaces += [history_space(self.ruleset, key) for key in self.keys()]
        version = DerivedRow(RULES, self.ruleset, 0.0, {"version": rule.RULE_VERSION})
        drops = [Drop(space) for space in spaces]
        return self.store.derived_save(self.ratings, position, 0, [version], drops)

    def keys(self) -> list[str]:
        """Every key the rule set's ratings are kept by."""
        found: list[str] = []
        while page := self.store.derived_rows(self.ratings, found[-1] if found else None):
            found += [row.key for row in page]
        return found

    def hide(self, handle: str) -> None:
        """Take a retired handle's rating off the leaderboard: it sorts after every other
        (``HIDDEN``), marked ``retired``; its rows stay for the games it played."""
        with self.lock:
            while True:
                position = self.store.derived_mark(self.ratings)
                row = derived.get(self.store, self.ratings, handle)
                if row is None or row.document is None or row.document.get("retired"):
                    return
                hidden = DerivedRow(self.ratings, handle, HIDDEN, retired(row.document))
                if self.store.derived_save(self.ratings, position, position, [hidden]):
                    return

    def rows_since(self, since: str) -> list[DerivedRow]:
        """The rated games folded from key ``since`` on, in order."""
        found, after = [], None
        while True:
            page = self.store.derived_rows(self.rated, after, since=since, limit=derived.PAGE)
            found += page
            if len(page) < derived.PAGE:
                return found
            after = page[-1].key

    def before(self, name: str, since: str) -> State | None:
        """A name's rating after its last rated game before key ``since`` (None: none)."""
        space = history_space(self.ruleset, name)
        rows = self.store.derived_rows(space, before=since, limit=1, reverse=True)
        return state_of(rows[0].document) if rows else None

    def current(self, name: str) -> State | None:
        """A name's rating now (None: no rated game)."""
        row = derived.get(self.store, self.ratings, name)
        return state_of(row.document) if row is not None else None


def retired(document: dict[str, Any]) -> dict[str, Any]:
    """A rating's document marked as a retired handle's."""
    return {**document, "retired": True}


def state_of(document: dict[str, Any] | None) -> State | None:
    if document is None:
        return None
    return State(document["mu"], document["sigma"], document["games"], document["wins"])


def names(game: Placing) -> Iterable[str]:
    return (name for team in game.teams for name in team)


def team_states(team: list[str], states: dict[str, State | None], fresh: Any) -> list[State]:
    return [states[name] or State(fresh.mu, fresh.sigma) for name in team]

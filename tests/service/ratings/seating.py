"""Games whose seats belong to registered players, for the ratings' tests.

``seated`` registers the players (or gives a registered one a new key) and creates a game
with ``{"player": handle}`` seats through the API: its reply holds each player's key where a
seat's token would be, so the helpers that play a game by seat tokens play it with the
players' keys (each event ``by`` that seat). ``relabelled`` copies a finished game's log
into a new game whose ``GameCreated`` says other things (its players, its bots from the
start, its chance) or whose stream is marked imported: the variations of a log the rule of
which games count reads, which creation would refuse to make.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from litestar.testing import TestClient

from eventstore import Appending, EventStore, NewEvent, StoredEvent
from service.core.actor import Player
from service.core.refusal import Refusal
from service.usecases.games.summaries import save_from_log
from service.usecases.players.book import PlayerBook
from tests.service.conftest import auth

By = Callable[[StoredEvent], int | str]


def store_of(api: TestClient[Any]) -> EventStore:
    """The app's event store."""
    store: EventStore = api.app.state.workers.cases.store
    return store


KEYS: dict[str, str] = {}
"""The latest key handed out of each handle (of whichever test's database)."""


def key_of(api: TestClient[Any], handle: str) -> str:
    """A key of the registered player ``handle``: the one handed out before if it still
    works, else the key of a registration now, or a new key of the registered player."""
    book: PlayerBook = api.app.state.players
    known = KEYS.get(handle)
    if known is not None:
        try:
            book.authenticate(known)
            return known
        except Refusal:
            pass
    try:
        key = book.register(handle).key
    except Refusal as refusal:
        assert refusal.slug == "handle-taken", refusal.detail
        key = book.rotate(Player(handle))
    KEYS[handle] = key
    return key


def seated(
    api: TestClient[Any],
    ruleset: str,
    handles: list[str],
    guests: tuple[int, ...] = (),
    **body: Any,
) -> dict[str, Any]:
    """A new game whose seats belong to the registered players ``handles`` (registered if
    need be), but for the seats in ``guests`` (free names); its creation reply, each
    player's key in ``tokens.seats`` at the player's seat."""
    keys = {seat: key_of(api, h) for seat, h in enumerate(handles) if seat not in guests}
    seats = [{"player": h} if seat in keys else {"name": h} for seat, h in enumerate(handles)]
    reply = api.post("/games", json={"ruleset": ruleset, "seats": seats, **body})
    assert reply.status_code == 201, reply.text
    created: dict[str, Any] = reply.json()
    for seat, key in keys.items():
        created["tokens"]["seats"][seat] = key
    return created


def relabelled(
    store: EventStore,
    source: str,
    players: dict[int, str],
    *,
    bots: dict[int, str] | None = None,
    chance: str | None = None,
    by: By | None = None,
    meta: dict[str, Any] | None = None,
) -> str:
    """A copy of game ``source`` as it stands (its secrets too) whose ``GameCreated`` names
    ``players`` (seat: handle), and ``bots`` (seat: level) and ``chance`` when given, each
    later event ``by`` whom ``by`` says (as stored by default); its id. Its summary is made
    from its log."""
    events = store.read(source)
    created = dict(events[0].data)
    if players:
        created["players"] = [{"seat": s, "handle": h} for s, h in sorted(players.items())]
    if bots is not None:
        created["bots"] = [
            {"seat": s, "level": level, "version": 1} for s, level in sorted(bots.items())
        ]
    if chance is not None:
        created["chance"] = chance
    copied = [NewEvent(events[0].type, created, events[0].by)]
    copied += [NewEvent(e.type, e.data, by(e) if by else e.by) for e in events[1:]]
    info = store.stream(source)
    assert info is not None
    game_id = uuid.uuid4().hex
    kept = {**info.meta, **(meta or {})}
    store.append(Appending(game_id, copied, 0, meta=kept, private=store.private(source)))
    assert save_from_log(store, game_id)
    return game_id


def play_to_end(api: TestClient[Any], created: dict[str, Any], limit: int = 5000) -> list[int]:
    """Play the first legal move (a roll, a draw) of whoever is to act until the game ends,
    each seat with its own token (the game read as its referee sees it, a spectator delay
    aside); the winning seats."""
    game_id, seats = created["id"], created["tokens"]["seats"]
    referee = auth(created["tokens"]["referee"])
    for _ in range(limit):
        state: dict[str, Any] = api.get(f"/games/{game_id}", headers=referee).json()
        if state["status"] == "finished":
            return list(state["winners"])
        seat = state["to_act"][0]["seat"]
        moves = api.get(f"/games/{game_id}/legal-moves", headers=auth(seats[seat])).json()
        body = {"move": moves["moves"][0]["id"], "expected_version": moves["version"]}
        reply = api.post(f"/games/{game_id}/moves", json=body, headers=auth(seats[seat]))
        assert reply.status_code == 200, reply.text
    raise AssertionError("the game did not end")


def race(api: TestClient[Any], handles: list[str], seed: str, **body: Any) -> list[str]:
    """A race35 game of registered players, each rolling for their own seat to its end; the
    winners' handles."""
    created = seated(api, "race35", handles, seed=seed, **body)
    return [handles[seat] for seat in play_to_end(api, created)]


def board(api: TestClient[Any], ruleset: str) -> dict[str, dict[str, Any]]:
    """The rule set's whole leaderboard, by name."""
    reply = api.get("/ratings", params={"ruleset": ruleset})
    assert reply.status_code == 200, reply.text
    return {row["name"]: row for row in reply.json()["ratings"]}

"""Games whose seats belong to registered players, for the ratings' tests.

``seated`` makes such a game the way a game with ``{"player": ...}`` seats is stored: its
``GameCreated`` names the seats' players (``players``), and each seat acts for itself (an
event's ``by`` is the seat number). It creates the game with free names through the API and
copies its first events at once into a new game whose ``GameCreated`` names the players,
with the same secrets: the creation's seat tokens play the copy, through the app, as the
players' keys will. ``relabelled`` copies a whole game's log the same way (its players, its
bots from the start, its chance), to check which finished games count.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from litestar.testing import TestClient

from eventstore import Appending, EventStore, NewEvent, StoredEvent
from service.usecases.games.summaries import save_from_log
from tests.service.conftest import auth

By = Callable[[StoredEvent], int | str]


def store_of(api: TestClient[Any]) -> EventStore:
    """The app's event store."""
    store: EventStore = api.app.state.workers.cases.store
    return store


def seated(
    api: TestClient[Any],
    ruleset: str,
    handles: list[str],
    guests: tuple[int, ...] = (),
    **body: Any,
) -> dict[str, Any]:
    """A new game whose seats are named ``handles`` and belong to the registered players of
    those handles, but for the seats in ``guests`` (free names); its creation reply (the new
    game's id, the seat and referee tokens)."""
    seats = [{"name": handle} for handle in handles]
    reply = api.post("/games", json={"ruleset": ruleset, "seats": seats, **body})
    assert reply.status_code == 201, reply.text
    created: dict[str, Any] = reply.json()
    players = {seat: handle for seat, handle in enumerate(handles) if seat not in guests}
    return {**created, "id": relabelled(store_of(api), created["id"], players)}


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

"""Large, valid game records for the cost tests and bench/abuse.py: a finished sorry game
made long by undo loops (the referee plays a move, undoes it, and plays it again), built by the
referee core and sealed with the store's hash chain, without a server or a database.

``big_record(events)`` is a record of at least ``events`` events (about 350 bytes each as
JSON): 87,000 events make the 30 MB record of issue 16."""

from __future__ import annotations

import random
from typing import Any

import msgspec

from domain.events import GameCreated
from domain.registry import RULESETS
from eventstore import GENESIS
from eventstore.hashing import seal
from service.core import chance
from service.core.commands import PlayMove, Undo
from service.core.luck import Seeded
from service.core.referee import Batch, judge, open_game
from service.usecases.games.records import GameRecord
from service.usecases.games.repository import new_events
from service.usecases.replies import EventOut, wire

AT = "2026-01-01T00:00:00.000000Z"


def big_game(events: int, seed: str = "big", players: int = 2) -> tuple[GameCreated, Batch]:
    """A finished sorry game of at least ``events`` events, and its events with ``by``."""
    rules = RULESETS["sorry"]
    created = GameCreated(
        "sorry",
        dict(rules.OPTIONS),
        tuple(f"P{i}" for i in range(players)),
        "server",
        chance.commitment(seed),
        auto_chance=True,
        ruleset_version=rules.VERSION,
    )
    luck = Seeded(seed)
    verdict = open_game(created, luck)
    batch, replay = list(verdict.batch), verdict.after
    rng = random.Random(seed)
    loops = 0
    while not replay.state.finished:
        pending = rules.to_act(replay.state)
        seat = pending[0].seat
        moves = rules.legal_moves(replay.state, seat)
        move = PlayMove(move=rng.choice(moves).id, seat=seat)
        played = judge(replay, "referee", move, luck)
        # pad with undo loops until the log is long enough (never undo the winning move)
        while len(batch) + 2 * len(played.batch) < events and not played.after.state.finished:
            undone = judge(played.after, "referee", Undo(reason=f"loop {loops}"), luck)
            batch += played.batch + undone.batch
            played = judge(undone.after, "referee", move, luck)
            loops += 1
        batch += played.batch
        replay = played.after
    return created, batch


def big_record(events: int, seed: str = "big", game_id: str = "big") -> dict[str, Any]:
    """The export of ``big_game(events)`` as the service writes it (its ``GameRecord``, as a
    JSON-ready dict)."""
    created, batch = big_game(events, seed)
    stored = seal(game_id, new_events(batch), 0, GENESIS, AT)
    record = GameRecord(
        game_id,
        created.ruleset,
        RULESETS[created.ruleset].VERSION,
        dict(created.options),
        list(created.seats),
        created.chance,
        created.seed_commitment,
        [wire(EventOut, e) for e in stored],
        seed,
    )
    built: dict[str, Any] = msgspec.to_builtins(record)
    return built


def big_record_bytes(events: int, seed: str = "big") -> bytes:
    """``big_record`` as the JSON body of an import."""
    return msgspec.json.encode(big_record(events, seed))

"""A player's feed sends ``your-turn`` only where she can act: never at the version of a move
that wins the game, which the same append follows with ``GameFinished``. In race35 the
winning throw plays itself (``MovePlayed``, then ``GameFinished``): the winner hears
``game-finished`` after it, and no ``your-turn``. In every rule set a winning move and its
``GameFinished`` are one batch of the referee's, and no note of any seat's turn comes between
them."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from domain.events import Event, GameCreated, SeatPlayer
from domain.registry import RULESETS
from eventstore import StoredEvent
from service.core.commands import PlayMove
from service.core.luck import Seeded
from service.core.referee import Verdict, judge, open_game
from service.usecases.live.notes import GameNotes
from tests.service.feed.conftest import (
    FeedSocket,
    duel,
    feed_of,
    history,
    play_out,
    register,
)

GAMES = 12
"""Short race35 games played: each is won by one of the two, about half of them by Ann."""


def events_of(api: TestClient[Any], game_id: str) -> dict[int, dict[str, Any]]:
    """The game's events by version."""
    reply = api.get(f"/games/{game_id}/events")
    assert reply.status_code == 200, reply.text
    return {event["version"]: event for event in reply.json()["events"]}


def check_turns(notes: list[dict[str, Any]], events: dict[int, dict[str, Any]]) -> None:
    """Each ``your-turn`` note names a version her seat acts next from: the event after it is
    her own throw (race35 with no special squares: every act is a roll)."""
    for note in notes:
        if note["kind"] != "your-turn":
            continue
        after = events.get(note["version"] + 1)
        assert after is not None, f"your-turn at the last version: {note}"
        assert (after["type"], after["by"]) == ("DiceRolled", note["seat"]), (note, after)


def test_a_winning_move_sends_game_finished_and_no_your_turn(api: TestClient[Any]) -> None:
    ann, bob = register(api, "ann"), register(api, "bob")
    won_by_ann = 0
    with feed_of(api) as session:
        feed = FeedSocket(session)
        assert feed.hello(ann)["type"] == "welcome"
        for _ in range(GAMES):
            game = duel(api, "ann", "bob")
            play_out(api, game, [ann, bob])
            notes = feed.until(game, "game-finished")
            events = events_of(api, game)
            finished = next(e for e in events.values() if e["type"] == "GameFinished")
            assert notes[-1]["winners"] == finished["data"]["winners"]
            assert [n["game_id"] for n in notes] == [game] * len(notes)
            check_turns(notes, events)
            won_by_ann += finished["data"]["winners"] == [0]
            bobs = [n for n in history(api, bob, "bob") if n["game_id"] == game]
            assert bobs[-1]["kind"] == "game-finished"
            check_turns(bobs, events)
    assert 0 < won_by_ann < GAMES  # both won some: each winner's last throw was checked


HANDLES = ("ann", "bob", "cid", "dee")
MOVES = 5_000
"""More decisions than any game of these seeds takes to end."""


def stored(version: int, event: Event, by: int | str) -> StoredEvent:
    """``event`` as the store gives it back (its data through JSON)."""
    data = json.loads(msgspec.json.encode(event))
    data.pop("type", None)
    at = "2026-01-01T00:00:00.000000Z"
    return StoredEvent("g", version, type(event).__name__, data, by, at, "", "")


def turns_inside_batches(verdict: Verdict, folds: list[GameNotes], version: int) -> list[str]:
    """The ``your-turn`` notes the players' folds make before the last event of the batch."""
    inside = []
    for index, (by, event) in enumerate(verdict.batch):
        for fold in folds:
            notes = fold.take(stored(version + index + 1, event, by))
            if index < len(verdict.batch) - 1:
                inside += [f"{n.version} seat {n.seat}" for n in notes if n.kind == "your-turn"]
    return inside


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_no_your_turn_between_a_winning_move_and_game_finished(ruleset: str) -> None:
    seats = 2 if ruleset == "race35" else 4
    players = tuple(SeatPlayer(seat, HANDLES[seat]) for seat in range(seats))
    created = GameCreated(ruleset, {}, HANDLES[:seats], players=players)
    luck = Seeded(f"{ruleset}-won")
    verdict = open_game(created, luck)
    folds = [GameNotes("g", handle) for handle in HANDLES[:seats]]
    version, inside = 0, []
    for _ in range(MOVES):
        inside += turns_inside_batches(verdict, folds, version)
        version += len(verdict.batch)
        replay = verdict.after
        if replay.state.finished:
            break
        seat = replay.rules.to_act(replay.state)[0].seat
        move = luck.pick(replay.version, replay.rules.legal_moves(replay.state, seat))
        verdict = judge(replay, seat, PlayMove(move=move.id, seat=seat), luck)
    assert verdict.after.state.finished
    assert [type(e).__name__ for _, e in verdict.batch][-2:] == ["GameFinished", "SeedRevealed"]
    assert inside == []
    assert all(fold.finished and fold.last["game-finished"] for fold in folds)

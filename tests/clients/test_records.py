"""Undo, external chance, audit, export and import through the sync client (real app)."""

from __future__ import annotations

import msgspec
import pytest
from tabula_client import (
    Audit,
    BadRequest,
    Client,
    Conflict,
    CreatedGame,
    GameRecord,
    GameView,
    Unprocessable,
    play_game,
)
from tabula_client.routes import Routes, chance_body
from tabula_client.wire import DiceRolledEvent, MoveUndoneEvent

SAME = ("pieces", "to_act", "chance", "winners", "status")


def seen(view: GameView) -> dict[str, object]:
    shown = msgspec.to_builtins(view)
    return {key: shown.get(key) for key in SAME}


def seat_to_act(client: Client, created: CreatedGame) -> Client:
    """A client with the token of the seat that must act now."""
    seat = client.game(created.id).to_act[0].seat
    return client.with_token(created.tokens.seats[seat])


def test_referee_undoes_the_latest_decision(client: Client) -> None:
    created = client.create_game("sorry", ["Ann", "Bob"], auto_chance=True, seed="undo")
    referee = client.with_token(created.tokens.referee)
    before = referee.game(created.id)
    ann = seat_to_act(client, created)
    legal = ann.legal_moves(created.id)
    played = ann.play(created.id, legal.moves[0], expected_version=legal.version)
    undone = referee.undo(created.id, "misclick", expected_version=played.version)
    assert [e.type for e in undone.events] == ["MoveUndone"]
    assert isinstance(undone.events[0], MoveUndoneEvent)
    assert undone.events[0].data.reverts == played.events[0].version
    assert undone.events[0].data.reason == "misclick"
    assert seen(undone.state) == seen(before)


def test_undo_with_a_stale_version_is_a_conflict(client: Client) -> None:
    created = client.create_game("sorry", ["Ann", "Bob"], auto_chance=True)
    referee = client.with_token(created.tokens.referee)
    ann = seat_to_act(client, created)
    legal = ann.legal_moves(created.id)
    ann.play(created.id, legal.moves[0])
    with pytest.raises(Conflict):
        referee.undo(created.id, expected_version=legal.version)


def test_referee_posts_dice_in_an_external_chance_game(client: Client) -> None:
    created = client.create_game("parchis", ["Ann", "Bob"], chance="external")
    referee = client.with_token(created.tokens.referee)
    with pytest.raises(BadRequest):  # never a die: the body's shape, named `dice[0]`
        referee.post_chance(created.id, dice=[7])
    result = referee.post_chance(created.id, dice=[5], idempotency_key="throw-1")
    assert isinstance(result.events[0], DiceRolledEvent) and result.events[0].type == "DiceRolled"
    assert result.events[0].data.dice == [5]
    again = referee.post_chance(created.id, dice=[5], idempotency_key="throw-1")
    assert again.version == result.version  # the same key appends nothing
    with pytest.raises(Conflict):
        referee.post_chance(created.id, dice=[4])  # seat 0 must move first


def test_chance_body_takes_exactly_one_outcome() -> None:
    assert chance_body(card="7", dice=None, hands=None) == {"card": "7"}
    assert chance_body(card=None, dice=(3, 5), hands=None) == {"dice": [3, 5]}
    assert chance_body(card=None, dice=None, hands=[("1",), ("2",)]) == {"hands": [["1"], ["2"]]}
    with pytest.raises(ValueError, match="exactly one"):
        Routes().post_chance("g", card="7", dice=[3])


@pytest.fixture(scope="module")
def finished(server_url: str) -> GameView:
    """A finished two-player Ludo game, played by random bots."""
    with Client(server_url) as client:
        return play_game(client, "ludo", 2, seed=4)


def test_audit_of_a_finished_game_is_valid_and_shows_the_seed(
    client: Client, finished: GameView
) -> None:
    final = finished
    audit = client.audit(final.game_id)
    assert isinstance(audit, Audit)
    assert audit.status == "finished" and audit.seed == final.seed
    assert audit.verification.valid and audit.verification.finished
    assert audit.verification.chance_checked and audit.verification.first_bad is None
    assert audit.verification.events == len(audit.events) == final.version
    assert all(event.hash and event.prev_hash for event in audit.events)


def test_export_then_import_gives_the_same_game(client: Client, finished: GameView) -> None:
    final = finished
    record = client.export(final.game_id)
    assert isinstance(record, GameRecord)
    assert record.raw["format"] == record.format == "tabula-game-record"
    assert (record.game_id, record.ruleset, record.seed) == (final.game_id, "ludo", final.seed)
    assert [e.version for e in record.events] == list(range(1, final.version + 1))
    imported = client.import_game(record)
    copy = client.game(imported.id)
    assert imported.id != final.game_id and len(imported.tokens.seats) == 2
    assert seen(copy) == seen(final)
    from_dict = client.import_game(msgspec.json.decode(msgspec.json.encode(record.raw)))
    assert seen(client.game(from_dict.id)) == seen(final)


def test_import_of_a_tampered_record_names_the_first_bad_event(
    client: Client, finished: GameView
) -> None:
    raw = client.export(finished.game_id).raw
    event = raw["events"][3]
    event["data"]["seat"] = 1 - event["data"]["seat"]
    with pytest.raises(Unprocessable) as refused:
        client.import_game(raw)
    assert refused.value.problem.slug == "invalid-record"
    assert refused.value.problem.extra["first_bad_event"] == 4

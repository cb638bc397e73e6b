"""The operations beyond play, through both clients against the real app: batches,
adjudication, standings, archives, the board, the game page and a rule set, and ``follow`` in
async."""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET

import httpx
import pytest
from tabula_client import (
    AsyncClient,
    BadRequest,
    BatchCreated,
    Client,
    Conflict,
    Forbidden,
    NotFound,
    StoredEvent,
    play_game_async,
)
from tabula_client.routes import game_body
from tabula_client.wire import AdjudicatedEvent, CreateGame, SeatSpec


def test_batch_adjudication_standings_and_archive(client: Client) -> None:
    tag = {"round": "ops-1"}
    typed = CreateGame(
        ruleset="sorry", seats=[SeatSpec(name="Ann"), SeatSpec(name="Bob")], tags=tag
    )
    batch = client.create_batch([typed, game_body("ludo", ["Cat", "Dan"], tags=tag)])
    assert isinstance(batch, BatchCreated) and len(batch.games) == 2
    first, second = batch.games
    referee = client.with_token(first.tokens.referee)
    with pytest.raises(Forbidden):
        client.with_token(first.tokens.seats[0]).adjudicate(first.id, "penalty", "x", seat=1)
    penalty = referee.adjudicate(first.id, "penalty", "slow play", seat=1)
    assert penalty.state.status == "active"
    assert isinstance(penalty.events[0], AdjudicatedEvent)
    assert (penalty.events[0].data.kind, penalty.events[0].data.seat) == ("penalty", 1)
    forfeit = referee.adjudicate(
        first.id, "forfeit", "left", seat=1, expected_version=penalty.version
    )
    assert forfeit.state.is_finished and forfeit.state.winners == [0]
    with pytest.raises(Conflict):
        referee.adjudicate(first.id, "penalty", "late", seat=0)
    second_referee = client.with_token(second.tokens.referee)
    with pytest.raises(BadRequest):
        second_referee.adjudicate(second.id, "agreement", "draw")  # no winners named
    second_referee.adjudicate(second.id, "agreement", "draw", winners=[])

    standings = client.standings(tag="round:ops-1")
    assert standings.tag == "round:ops-1"
    rows = {row.name: (row.games, row.wins) for row in standings.standings}
    assert rows == {"Ann": (1, 1), "Bob": (1, 0), "Cat": (1, 0), "Dan": (1, 0)}
    archive = client.archive(tag="round:ops-1")
    assert sorted(record.game_id for record in archive.records) == sorted([first.id, second.id])
    assert all(record.seed for record in archive.records)  # finished: seeds revealed


def test_board_and_game_page(client: Client) -> None:
    created = client.create_game("race35", ["Ann", "Bob"])
    svg = ET.fromstring(client.board_svg(created.id))
    assert svg.tag.endswith("svg")
    assert ET.fromstring(client.board_svg(created.id, at=1)).tag == svg.tag
    assert "<html" in client.game_page(created.id).lower()


def test_a_delayed_game_is_behind_for_a_client_without_a_token(client: Client) -> None:
    created = client.create_game("race35", ["Ann", "Bob"], spectator_delay={"moves": 1})
    seats = [client.with_token(token) for token in created.tokens.seats]
    referee = client.with_token(created.tokens.referee)
    for _ in range(3):
        seats[referee.game(created.id).to_act[0].seat].play(created.id, "roll")
    live = seats[0].game(created.id)
    behind = client.game(created.id)
    assert behind.version < live.version
    assert client.events(created.id).version == behind.version
    assert referee.game(created.id).version == live.version
    assert seats[1].board_svg(created.id) != client.board_svg(created.id)
    with pytest.raises(BadRequest):
        client.state(created.id, at=live.version)


async def every_operation_in_async(transport: httpx.ASGITransport) -> None:
    client = AsyncClient("http://tabula.test", transport=transport)
    try:
        final = await play_game_async(client, "race35", 2, seed=8)
        followed: list[StoredEvent] = [e async for e in client.follow(final.game_id, after=2)]
        assert [e.version for e in followed] == list(range(3, final.version + 1))
        created = await client.create_batch([game_body("race35", ["Ann", "Bob"])])
        game = created.games[0]
        referee = client.with_token(game.tokens.referee)
        ended = await referee.adjudicate(game.id, "forfeit", "gone", seat=0)
        assert ended.state.winners == [1]
        assert (await client.standings()).standings
        assert len((await client.archive()).records) == 2
        assert "<svg" in await client.board_svg(game.id)
        assert "<html" in (await client.game_page(game.id)).lower()
    finally:
        await client.aclose()
    with pytest.raises(RuntimeError, match="closed"):
        await client.health()


def test_async_client_covers_the_same_operations(transport: httpx.ASGITransport) -> None:
    asyncio.run(every_operation_in_async(transport))


def test_ruleset_reads_its_rules_text_and_options_schema(client: Client) -> None:
    detail = client.ruleset("sorry")
    assert detail.name == "sorry" and detail.min_players == 2
    assert detail.rules.startswith("#")
    assert set(detail.options) <= set(detail.options_schema["properties"])
    with pytest.raises(NotFound) as refused:
        client.ruleset("chess")
    assert refused.value.problem.slug == "ruleset-not-found"

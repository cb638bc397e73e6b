"""A move on the event loop (``Commands.play_async``) is built on the game as this process holds
it, without reading the log first; the append's version check catches a write this process has
not seen (another process on the same database), and the move is then built on the log."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from eventstore import SqliteEventStore
from service.app import UseCases, bootstrap
from service.core.commands import CreateGame, PlayMove, SeatSpec
from service.core.refusal import Refusal
from service.usecases.replies import Created


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[tuple[UseCases, UseCases]]:
    """Two services on one database file, as two processes would be."""
    with (
        SqliteEventStore(tmp_path / "t.db", synchronous="OFF") as one,
        SqliteEventStore(tmp_path / "t.db", synchronous="OFF") as other,
    ):
        yield bootstrap(one), bootstrap(other)


def roll(version: int | None = None) -> PlayMove:
    return PlayMove(move="roll", expected_version=version)  # for whichever seat is to roll


def shared_game(here: UseCases, there: UseCases) -> tuple[Created, int, int]:
    """A race35 game both services hold in memory; then ``there`` rolls (``here`` has not seen
    it). The game, the version ``here`` holds and the log's."""
    created = here.commands.create(CreateGame("race35", [SeatSpec("A"), SeatSpec("B")], seed="s"))
    with here.games.game(created.id) as held, there.games.game(created.id):
        seen = held.version
    there.commands.play(created.id, created.tokens.referee, roll(), None)
    return created, seen, there.store.version(created.id)


def state_of(games: UseCases, game_id: str) -> tuple[int, object]:
    with games.games.game(game_id) as game:
        return game.version, game.replay.state


def test_a_move_after_another_process_wrote_is_played_on_the_log_not_the_stale_game(
    processes: tuple[UseCases, UseCases],
) -> None:
    here, there = processes
    created, seen, logged = shared_game(here, there)
    assert logged > seen
    events = asyncio.run(here.commands.play_async(created.id, created.tokens.referee, roll(), None))
    assert events[0].version == logged + 1
    fresh = bootstrap(here.store)  # nothing in memory: the whole log folded
    assert state_of(here, created.id) == state_of(fresh, created.id)


def test_a_stale_expected_version_is_a_conflict_even_when_this_process_holds_it(
    processes: tuple[UseCases, UseCases],
) -> None:
    here, there = processes
    created, seen, logged = shared_game(here, there)
    with pytest.raises(Refusal) as refused:
        asyncio.run(here.commands.play_async(created.id, created.tokens.referee, roll(seen), None))
    assert refused.value.slug == "version-conflict"
    assert here.store.version(created.id) == logged


def test_an_expected_version_this_process_has_not_seen_reads_the_log_and_plays(
    processes: tuple[UseCases, UseCases],
) -> None:
    here, there = processes
    created, _, logged = shared_game(here, there)
    move = roll(logged)
    events = asyncio.run(here.commands.play_async(created.id, created.tokens.referee, move, None))
    assert events[0].version == logged + 1


def test_a_move_refused_on_the_game_as_held_is_judged_again_on_the_log(
    processes: tuple[UseCases, UseCases],
) -> None:
    here, there = processes
    created, seen, _ = shared_game(here, there)
    with here.games.game(
        created.id, fresh=False
    ) as held:  # what this process holds: seat 0 still to roll
        assert held.version == seen
        stale_turn = held.rules.to_act(held.replay.state)[0].seat
    with bootstrap(here.store).games.game(created.id) as game:  # the log: the other seat's turn
        turn = game.rules.to_act(game.replay.state)[0].seat
    assert turn != stale_turn
    token = created.tokens.seats[turn]
    events = asyncio.run(here.commands.play_async(created.id, token, PlayMove(move="roll"), None))
    assert events[0].by == turn


def test_a_decision_illegal_on_the_game_as_held_is_judged_again_on_the_log(
    processes: tuple[UseCases, UseCases],
) -> None:
    here, there = processes
    # The seed's first card is a 1: seat 0 then has a decision to make.
    command = CreateGame("sorry", [SeatSpec("A"), SeatSpec("B")], seed="s1")
    created = here.commands.create(command)
    with here.games.game(created.id), there.games.game(created.id):
        pass
    seat0 = created.tokens.seats[0]
    there.commands.play(
        created.id, seat0, PlayMove(move="draw"), None
    )  # here still has seat 0 to draw
    with bootstrap(there.store).games.game(created.id) as game:
        decision = game.rules.legal_moves(game.replay.state, 0)[0].id
    assert decision != "draw"
    events = asyncio.run(here.commands.play_async(created.id, seat0, PlayMove(move=decision), None))
    assert events[0].data["move"] == decision


WAITS = ("read", "lookup", "private", "load_snapshot", "version", "summary", "summaries")
"""The store's reads: each waits for the database (PostgreSQL: for a pooled connection)."""


class Watched(SqliteEventStore):
    """A store that notes each read made on the thread running an event loop."""

    on_loop: list[str]

    def __getattribute__(self, name: str) -> object:
        found = super().__getattribute__(name)
        if name in WAITS:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                return found
            super().__getattribute__("on_loop").append(name)
        return found


def test_a_move_on_the_event_loop_waits_for_the_database_only_off_the_loop(
    tmp_path: Path,
) -> None:
    store = Watched(tmp_path / "w.db", synchronous="OFF")
    store.on_loop = []
    try:
        made = bootstrap(store)
        created = made.commands.create(
            CreateGame("race35", [SeatSpec("A"), SeatSpec("B")], seed="s")
        )
        referee = created.tokens.referee
        cold = bootstrap(store)  # the game is in no memory here: its load must go to a thread

        async def moves() -> None:
            await cold.commands.play_async(created.id, referee, roll(), None)
            await cold.commands.play_async(created.id, referee, roll(), "key-1")  # a key to look up
            await cold.commands.play_async(created.id, referee, roll(), "key-1")  # replayed
            await made.commands.play_async(created.id, referee, roll(), None)  # stale: a conflict

        asyncio.run(moves())
        assert store.on_loop == []
        assert store.version(created.id) >= 4
    finally:
        store.close()

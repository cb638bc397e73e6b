"""Snapshots beside the log: ``replay_at`` and game loading start from them, and still equal a
full fold for every version, undos reaching back past a snapshot included."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

import pytest
import structlog

from domain.events import GameCreated, MoveUndone, parse_event
from domain.registry import RULESETS
from domain.replay import SNAPSHOT_EVERY, Frame, MissingHistory, Replay, fold
from eventstore import SqliteEventStore, StoredEvent, StoreError
from service.app import UseCases, bootstrap
from service.core.commands import CreateGame, PlayMove, SeatSpec, Undo
from tests.domain.playout import random_events
from tests.waiting import wait_until_async


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteEventStore]:
    with SqliteEventStore(tmp_path / "t.db", synchronous="OFF") as opened:
        yield opened


def play_with_undos(games: UseCases, length: int, seed: int = 7, undos: bool = True) -> str:
    """A sorry game of at least ``length`` events: random moves, two undos every fifth."""
    command = CreateGame("sorry", [SeatSpec("A"), SeatSpec("B")], seed="s", auto_chance=True)
    created = games.commands.create(command)
    play_on(games, created.id, created.tokens.referee, length, seed, undos)
    return created.id


def play_on(
    games: UseCases, game_id: str, referee: str, length: int, seed: int, undos: bool
) -> None:
    """Play random moves (and, with ``undos``, two undos every fifth) up to ``length``."""
    rng = random.Random(seed)
    for turn in range(10_000):
        with games.games.game(game_id) as game:
            if game.version >= length or game.finished:
                return
            seat = game.rules.to_act(game.replay.state)[0].seat
            move = rng.choice(game.rules.legal_moves(game.replay.state, seat)).id
        games.commands.play(game_id, referee, PlayMove(move=move, seat=seat), None)
        if undos and turn % 5 == 4:
            for _ in range(2):
                games.commands.undo(game_id, referee, Undo("test"), None)
    raise AssertionError("the game did not grow")


def folds(log: list[StoredEvent]) -> Iterator[Replay]:
    """The full fold after each event, from the start (no snapshots)."""
    replay = fold([(1, parse_event(log[0].type, log[0].data))])
    yield replay
    for stored in log[1:]:
        replay.push(stored.version, parse_event(stored.type, stored.data))
        yield replay


def undo_past_a_snapshot(log: list[StoredEvent]) -> bool:
    """Whether some undo reverts to before a snapshot version that lies before the undo."""
    return any(
        isinstance(undo := parse_event(e.type, e.data), MoveUndone)
        and undo.reverts <= (e.version - 1) // SNAPSHOT_EVERY * SNAPSHOT_EVERY
        for e in log
    )


def test_state_at_every_version_equals_a_full_fold_with_undos(store: SqliteEventStore) -> None:
    game_id = play_with_undos(bootstrap(store), 4 * SNAPSHOT_EVERY)
    log = store.read(game_id)
    assert undo_past_a_snapshot(log)
    assert store.load_snapshot(game_id, len(log)) is not None
    cold = bootstrap(store)  # a fresh process: nothing in memory, snapshots from the store
    for full in folds(log):
        served = cold.games.replay_at(game_id, full.version)
        assert (served.state, served.chance_count) == (full.state, full.chance_count)


def test_dropped_snapshots_change_nothing_and_come_back(store: SqliteEventStore) -> None:
    game_id = play_with_undos(bootstrap(store), 3 * SNAPSHOT_EVERY)
    store.drop_snapshots()
    log = store.read(game_id)
    games = bootstrap(store)
    for full in folds(log):
        served = games.games.replay_at(game_id, full.version)
        assert served.state == full.state
    assert store.load_snapshot(game_id, len(log)) is not None


def test_a_game_loaded_from_a_snapshot_undoes_like_the_full_fold(
    store: SqliteEventStore,
) -> None:
    games = bootstrap(store)
    created = games.commands.create(
        CreateGame("sorry", [SeatSpec("A"), SeatSpec("B")], seed="s", auto_chance=True)
    )
    referee = created.tokens.referee
    play_on(games, created.id, referee, 2 * SNAPSHOT_EVERY + 10, 3, undos=False)
    fresh = bootstrap(store)
    with fresh.games.game(created.id) as game:
        assert not game.replay.complete  # loaded from the snapshot, frames before it unknown
    for _ in range(8):  # back past the snapshot it was loaded from
        fresh.commands.undo(created.id, referee, Undo("back past the snapshot"), None)
    full = list(folds(store.read(created.id)))[-1]
    with fresh.games.game(created.id) as game:
        assert (game.replay.state, game.version) == (full.state, full.version)
        assert game.replay.complete


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_rule_sets_states_survive_a_snapshot_round_trip(name: str) -> None:
    rules = RULESETS[name]
    players = min(rules.MAX_PLAYERS, 4)
    replay = fold([(1, _created(name, players))])
    playout = random_events(rules, replay.state, random.Random(3))
    for number, (state, _) in enumerate(islice(playout, 150), start=2):
        replay.top = Frame(number, state, number // 2, number % 2 == 0)
        restored = Replay.from_snapshot(replay.created, number + 1, replay.snapshot_bytes())
        assert restored.state == state and restored.top == replay.top
        assert restored.version == number + 1 and not restored.complete


def test_undo_past_a_restored_frame_raises_missing_history() -> None:
    replay = fold([(1, _created("race35", 2))])
    restored = Replay.from_snapshot(replay.created, 64, replay.snapshot_bytes())
    with pytest.raises(MissingHistory):
        restored.push(65, MoveUndone(1, "too far"))
    with pytest.raises(MissingHistory):
        restored.last_decision()
    assert restored.version == 64


def _created(name: str, players: int) -> GameCreated:
    """A GameCreated event for a rule set with its default options."""
    rules = RULESETS[name]
    seats = tuple(f"P{i}" for i in range(players))
    return GameCreated(name, dict(rules.OPTIONS), seats, "server", "0" * 64)


class FailingSnapshots(SqliteEventStore):
    def save_snapshot(self, stream_id: str, version: int, data: bytes) -> None:
        raise StoreError("disk full")


async def play_async_past_a_snapshot(games: UseCases) -> str:
    """Play a sorry game on the event loop (``play_async``) past its first snapshot; its id."""
    command = CreateGame("sorry", [SeatSpec("A"), SeatSpec("B")], seed="s", auto_chance=True)
    created = games.commands.create(command)
    rng = random.Random(5)
    while True:
        with games.games.game(created.id) as game:
            if game.version > SNAPSHOT_EVERY:
                return created.id
            seat = game.rules.to_act(game.replay.state)[0].seat
            move = rng.choice(game.rules.legal_moves(game.replay.state, seat)).id
        await games.commands.play_async(
            created.id, created.tokens.referee, PlayMove(move=move, seat=seat), None
        )


def test_a_move_on_the_event_loop_saves_its_snapshot_without_waiting_for_it(
    store: SqliteEventStore,
) -> None:
    async def scenario() -> str:
        game_id = await play_async_past_a_snapshot(bootstrap(store))
        await wait_until_async(
            lambda: store.load_snapshot(game_id, SNAPSHOT_EVERY) is not None,
            message="the snapshot was never saved",
        )
        return game_id

    game_id = asyncio.run(scenario())
    cold = bootstrap(store).games.replay_at(game_id, SNAPSHOT_EVERY)
    full = next(islice(folds(store.read(game_id)), SNAPSHOT_EVERY - 1, None))
    assert (cold.state, cold.chance_count) == (full.state, full.chance_count)


def test_a_snapshot_that_cannot_be_saved_is_logged_and_the_move_stands(tmp_path: Path) -> None:
    with FailingSnapshots(tmp_path / "t.db", synchronous="OFF") as store:

        async def scenario() -> str:
            game_id = await play_async_past_a_snapshot(bootstrap(store))
            await wait_until_async(
                lambda: any(e["event"] == "snapshot not saved" for e in logs),
                message="the failed snapshot was never logged",
            )
            return game_id

        with structlog.testing.capture_logs() as logs:
            game_id = asyncio.run(scenario())
        assert store.version(game_id) > SNAPSHOT_EVERY
        assert store.load_snapshot(game_id, store.version(game_id)) is None

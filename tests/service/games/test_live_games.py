"""UseCases kept in memory are bounded: the least recently used are forgotten and come back
from the log (and their latest snapshot) unchanged when next used."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec

from eventstore import SqliteEventStore
from service.app import UseCases, bootstrap
from service.core.commands import CreateGame, PlayMove
from service.usecases.games.views import moves_for

SEATS = [{"name": n} for n in ("Ann", "Bob", "Cy", "Di")]


def create(games: UseCases, ruleset: str, **extra: object) -> tuple[str, str]:
    command = msgspec.convert({"ruleset": ruleset, "seats": SEATS, **extra}, CreateGame)
    created = games.commands.create(command)
    return created.id, created.tokens.referee


def play_random(games: UseCases, game_id: str, referee: str, rng: random.Random) -> None:
    with games.games.game(game_id) as game:
        moves = moves_for(game, "referee")
    if moves:
        move = rng.choice(moves)
        games.commands.play(game_id, referee, PlayMove(move=move.id, seat=move.seat), None)


def test_least_recently_used_games_are_forgotten_and_reload_unchanged(tmp_path: Path) -> None:
    rng = random.Random(7)
    with SqliteEventStore(tmp_path / "t.db", synchronous="OFF") as store:
        bounded, unbounded = bootstrap(store, max_live=3), bootstrap(store)
        made = [create(bounded, "sorry") for _ in range(8)]
        for _ in range(150):
            play_random(bounded, *rng.choice(made), rng)
            assert bounded.games.live() <= 3
        for game_id, _ in made:
            with bounded.games.game(game_id) as game, unbounded.games.game(game_id) as fresh:
                assert game.version == fresh.version
                assert msgspec.json.encode(game.replay.state) == msgspec.json.encode(
                    fresh.replay.state
                )


def test_a_forgotten_timed_game_is_still_enforced_by_its_deadline_in_the_store(
    tmp_path: Path,
) -> None:
    clock = [datetime.now(UTC)]
    with SqliteEventStore(tmp_path / "t.db", synchronous="OFF") as store:
        games = bootstrap(store, max_live=1, now=lambda: clock[0])
        timed, _ = create(games, "race35", clock={"total": 600, "on_timeout": "forfeit"})
        assert games.commands.enforce_due() == 0
        for _ in range(4):
            other, _ = create(games, "race35")
            with games.games.game(other):
                pass
        assert games.games.live() == 1  # the timed game is not in memory
        clock[0] += timedelta(minutes=11)
        assert games.commands.enforce_due() == 1
        with games.games.game(timed) as game:
            assert game.finished


def test_listing_every_game_leaves_the_games_in_memory_as_they_were(tmp_path: Path) -> None:
    rng = random.Random(3)
    with SqliteEventStore(tmp_path / "t.db", synchronous="OFF") as store:
        games = bootstrap(store, max_live=2)
        hot = create(games, "sorry")
        for _ in range(20):
            play_random(games, *hot, rng)
        others = [create(games, "race35") for _ in range(6)]
        held = games.games.live()
        listed, _ = games.queries.results()
        assert games.games.live() == held == 1
        assert [row.id for row in listed] == [hot[0], *(game_id for game_id, _ in others)]
        with games.games.game(hot[0]) as game:
            assert listed[0].version == game.version


def test_timed_games_count_against_max_live_games_and_run_out_all_the_same(
    tmp_path: Path,
) -> None:
    """Issue 16: timed games used to stay in memory whatever ``max_live_games`` said; they are
    forgotten like any other now, and the store's deadlines still time every one of them out."""
    clock = [datetime.now(UTC)]
    with SqliteEventStore(tmp_path / "t.db", synchronous="OFF") as store:
        games = bootstrap(store, max_live=5, now=lambda: clock[0])
        timed = []
        for _ in range(40):
            game_id, _ = create(games, "race35", clock={"total": 600, "on_timeout": "forfeit"})
            timed.append(game_id)
            assert games.games.live() <= 5
        assert games.commands.enforce_due() == 0
        clock[0] += timedelta(minutes=11)
        assert games.commands.enforce_due() == 40
        assert games.games.live() <= 5
        for game_id in timed:
            with games.games.game(game_id) as game:
                assert game.finished
            assert games.games.live() <= 5
        assert store.due("9999-12-31T00:00:00.000000Z") == []  # no deadline left

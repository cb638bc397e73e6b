"""A socket's push is read from the game this process holds (``Queries.held_page``, the last
``RECENT`` stored events) when it holds them: the same page, redacted the same way for each
viewer, as the log gives (``Queries.page``), or nothing when it does not hold them all, so a
push never skips, repeats or shows an event the viewer may not see."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from domain.model import Viewer
from eventstore import SqliteEventStore
from service.app import UseCases, bootstrap
from service.core.commands import CreateGame, PlayMove, SeatSpec
from service.usecases.games.queries import StreamPage
from service.usecases.games.repository import RECENT
from service.usecases.replies import Created


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[UseCases, UseCases]]:
    """Two services on one database file, as two processes would be."""
    with (
        SqliteEventStore(tmp_path / "t.db", synchronous="OFF") as one,
        SqliteEventStore(tmp_path / "t.db", synchronous="OFF") as other,
    ):
        yield bootstrap(one), bootstrap(other)


def same(page: StreamPage) -> StreamPage:
    return page


def play(games: UseCases, created: Created, moves: int, rng: random.Random) -> None:
    """Random legal moves as the referee, until ``moves`` or the game's end."""
    token = created.tokens.referee
    for _ in range(moves):
        legal = games.queries.legal_moves(created.id, token)
        if not legal.moves:
            return
        move = rng.choice(legal.moves)
        games.commands.play(
            created.id,
            token,
            PlayMove(move=move.id, seat=move.seat, expected_version=legal.version),
            None,
        )


def viewers(created: Created) -> list[tuple[Viewer, str | None]]:
    """Each viewer of the game and its token."""
    seats: list[tuple[Viewer, str | None]] = list(enumerate(created.tokens.seats))
    return [("referee", created.tokens.referee), (None, None), *seats]


@pytest.mark.parametrize("ruleset", ["race35", "sorry"])
def test_a_held_page_is_the_logs_page_for_every_viewer_and_cursor(
    two: tuple[UseCases, UseCases], ruleset: str
) -> None:
    games, _ = two
    seats = [SeatSpec("A"), SeatSpec("B")]
    created = games.commands.create(CreateGame(ruleset, seats, seed=f"held-{ruleset}"))
    play(games, created, 3 * RECENT, random.Random(1))
    version = games.store.version(created.id)
    held = 0
    for viewer, _token in viewers(created):
        for cursor in range(version + 1):
            page = games.queries.held_page(created.id, viewer, cursor, 200, same)
            if page is None:  # not held: older than the recent events, or nothing after
                assert cursor < version - RECENT or cursor == version
                continue
            held += 1
            assert page.events == games.queries.page(created.id, viewer, cursor, 200).events
            assert page.events[0].version == cursor + 1
            assert page.events[-1].version == version
    assert held == 4 * min(RECENT, version)


def test_a_held_page_stops_at_what_this_process_has_seen(two: tuple[UseCases, UseCases]) -> None:
    here, there = two
    created = here.commands.create(
        CreateGame("race35", [SeatSpec("A"), SeatSpec("B")], seed="seen")
    )
    play(here, created, 4, random.Random(2))
    seen = here.store.version(created.id)
    with there.games.game(created.id):
        pass
    play(there, created, 4, random.Random(3))  # another process: here has not seen it
    assert here.store.version(created.id) > seen
    page = here.queries.held_page(created.id, "referee", seen - 1, 200, same)
    assert page is not None and [e.version for e in page.events] == [seen]
    assert here.queries.held_page(created.id, "referee", seen, 200, same) is None
    logged = here.queries.page(created.id, "referee", seen, 200)  # the log, read again
    assert logged.events[0].version == seen + 1


def test_a_held_page_is_made_once_per_version_and_viewer(two: tuple[UseCases, UseCases]) -> None:
    games, _ = two
    created = games.commands.create(
        CreateGame("race35", [SeatSpec("A"), SeatSpec("B")], seed="once")
    )
    play(games, created, 3, random.Random(4))
    version = games.store.version(created.id)
    made: list[StreamPage] = []

    def wrap(page: StreamPage) -> StreamPage:
        made.append(page)
        return page

    first = games.queries.held_page(created.id, None, version - 1, 200, wrap)
    again = games.queries.held_page(created.id, None, version - 1, 200, wrap)
    assert first is again and len(made) == 1
    play(games, created, 1, random.Random(5))
    moved = games.queries.held_page(created.id, None, version - 1, 200, wrap)
    assert moved is not None and len(made) == 2
    assert moved.events[-1].version == games.store.version(created.id)

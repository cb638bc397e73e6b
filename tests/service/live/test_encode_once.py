"""A pushed event is made and encoded once for every socket on its game: a held page of a game
that shows everyone the same events is one page for every viewer, a write's own events are
offered to the other sockets as the page they read next, and the ``played`` reply and the
``events`` push are built around the same encoded events, byte for byte what encoding the
messages whole gives."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from eventstore import SqliteEventStore
from service.api.socket import events_frame, played_frame
from service.api.socket_messages import Events, Played
from service.app import UseCases, bootstrap
from service.core.commands import CreateGame, PlayMove, SeatSpec
from service.usecases.games.queries import StreamPage
from service.usecases.live.feed import Batch
from service.usecases.replies import Created, LegalMoves


@pytest.fixture
def games(tmp_path: Path) -> Iterator[UseCases]:
    with SqliteEventStore(tmp_path / "t.db", synchronous="OFF") as store:
        yield bootstrap(store)


def start(games: UseCases, ruleset: str, seats: int = 2) -> Created:
    """A game of ``ruleset`` a few random moves in."""
    specs = [SeatSpec(f"P{seat}") for seat in range(seats)]
    created = games.commands.create(CreateGame(ruleset, specs, seed=f"once-{ruleset}"))
    rng, token = random.Random(7), created.tokens.referee
    for _ in range(3):
        legal = games.queries.legal_moves(created.id, token)
        move = rng.choice(legal.moves)
        games.commands.play(created.id, token, PlayMove(move=move.id, seat=move.seat), None)
    return created


def test_a_page_without_secrets_is_made_once_for_every_viewer(games: UseCases) -> None:
    created = start(games, "race35")
    version = games.store.version(created.id)
    made: list[StreamPage] = []

    def wrap(page: StreamPage) -> StreamPage:
        made.append(page)
        return page

    pages = [
        games.queries.held_page(created.id, viewer, version - 1, 200, wrap)
        for viewer in ("referee", None, 0, 1)
    ]
    assert len(made) == 1 and all(page is made[0] for page in pages)


def test_a_page_with_secrets_is_made_for_each_viewer_while_the_game_runs(
    games: UseCases,
) -> None:
    created = start(games, "partners", seats=4)
    version = games.store.version(created.id)
    made: list[StreamPage] = []

    def wrap(page: StreamPage) -> StreamPage:
        made.append(page)
        return page

    for viewer in ("referee", None, 0, 1):
        games.queries.held_page(created.id, viewer, version - 1, 200, wrap)
    assert len(made) == 4


def test_a_writes_events_are_the_page_the_other_sockets_read_next(games: UseCases) -> None:
    created = start(games, "race35")
    token = created.tokens.referee
    cursor = games.store.version(created.id)
    legal = games.queries.legal_moves(created.id, token)
    move = legal.moves[0]
    stored = games.commands.play(created.id, token, PlayMove(move=move.id, seat=move.seat), None)
    reply = games.queries.played(created.id, token, stored, with_state=False)
    batch = Batch(StreamPage(reply.events, False, None))
    games.queries.offer_page(created.id, "referee", cursor, 200, reply.events, batch)

    def never(page: StreamPage) -> Batch:
        raise AssertionError("the offered page is made again")

    for viewer in (None, 0, 1):
        assert games.queries.held_page(created.id, viewer, cursor, 200, never) is batch


def test_an_offered_page_that_is_not_the_games_latest_is_not_kept(games: UseCases) -> None:
    created = start(games, "race35")
    version = games.store.version(created.id)
    behind = games.queries.page(created.id, "referee", version - 2, 1).events  # not the last
    games.queries.offer_page(created.id, "referee", version - 2, 200, behind, "offered")
    page = games.queries.held_page(created.id, None, version - 2, 200, Batch)
    assert isinstance(page, Batch) and page.page.events[-1].version == version


def test_the_frames_made_around_the_events_are_the_messages_encoded_whole(
    games: UseCases,
) -> None:
    created = start(games, "race35")
    token = created.tokens.referee
    cursor = games.store.version(created.id) - 2
    events = games.queries.page(created.id, "referee", cursor, 200).events
    batch = Batch(StreamPage(events, False, None))
    assert batch.frame(events_frame) == msgspec.json.encode(Events(events)).decode()
    reply = games.queries.played(created.id, token, [], with_state=False)
    whole = Played('a "ref"', reply.version, events, LegalMoves(reply.version, reply.legal_moves))
    made = played_frame('a "ref"', reply, batch.json())
    assert made == msgspec.json.encode(whole).decode()

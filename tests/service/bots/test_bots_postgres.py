"""Bots over PostgreSQL with two service processes: both drivers try every bot decision (each
is told of the other's commits, as LISTEN/NOTIFY would), and each decision is appended once."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from eventstore.postgres import PostgresEventStore
from service.app import bootstrap, drive_bots
from service.core.commands import CreateGame, SeatSpec
from service.core.rejudge import Entry, rejudge
from service.usecases.games.repository import to_domain
from tests.postgres import postgres_schema
from tests.waiting import wait_until

pytestmark = pytest.mark.postgres


@pytest.fixture
def url() -> Iterator[str]:
    with postgres_schema("bots") as url:
        yield url


def test_two_processes_play_a_bot_game_each_decision_appended_once(url: str) -> None:
    stores = [PostgresEventStore(url), PostgresEventStore(url)]
    first, second = (bootstrap(store) for store in stores)
    drivers = [drive_bots(first), drive_bots(second)]
    # each hears of the other's appends
    first.games.writer.followers.append(lambda a: drivers[1].poke(a.stream_id))
    second.games.writer.followers.append(lambda a: drivers[0].poke(a.stream_id))
    for driver in drivers:
        for thread in driver.threads:
            thread.start()
    seats = [SeatSpec("Robin", "random"), SeatSpec("Rex", "greedy")]
    created = first.commands.create(CreateGame("sorry", seats, seed="two processes"))
    drivers[1].poke(created.id)

    def done() -> bool:
        return stores[0].read(created.id)[-1].type == "SeedRevealed"

    try:
        wait_until(done, 120, "the two processes did not finish the game")
        log = stores[0].read(created.id)
        versions = [e.version for e in log]
        assert versions == list(range(1, len(log) + 1))
        bot_acts = [e for e in log if e.by == "bot"]
        assert sum(d.decided for d in drivers) >= len(bot_acts) > 0
        entries = [Entry(e.version, to_domain(e), e.by) for e in log]
        rejudge(entries, log[-1].data["seed"])  # valid: raises Invalid otherwise
    finally:
        for driver in drivers:
            driver.stop()
        threading.Event().wait(0.2)
        for store in stores:
            store.close()

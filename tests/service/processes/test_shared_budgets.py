"""Per-caller budgets counted once across processes: one address spread over three processes on
one PostgreSQL database, or over ``--workers 2`` on one SQLite file, gets what it gets from one
process (within 10%), and a process killed without a word frees its slots a lease later."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from litestar.testing import TestClient

from bench.harness import service_process
from eventstore import utcnow
from eventstore.budgets import Budgets, SqliteBudgets
from service.api.limits import TokenBucket
from service.api.streams import StreamSlots
from service.app import create_app
from service.core.refusal import Refusal
from service.settings import Settings
from service.usecases.analysis.analyses import Analyses, Job
from service.usecases.budgets import Asking, Beat, SharedBucket, SharedSlots
from service.usecases.games.repository import Repository
from tests.postgres import postgres_schema
from tests.service.conftest import auth
from tests.service.test_side_files import ignored
from tests.waiting import wait_until

BURST = 10
SLOW = "0.001"  # tokens a second: none comes back while a test runs
ATTEMPTS = 3 * BURST


@contextmanager
def processes(url: str, count: int, **env: str) -> Iterator[list[str]]:
    """``count`` service processes over the PostgreSQL database at ``url``; their URLs."""
    base = {"TABULA_LOG_LEVEL": "warning", "TABULA_DATABASE_URL": url}
    with ExitStack() as stack:
        yield [
            stack.enter_context(service_process(Path("unused.db"), base | env))[0]
            for _ in range(count)
        ]


def create(base: str) -> int:
    """POST /games on a fresh connection; the status."""
    body = {"ruleset": "race35", "seats": [{"name": "A"}, {"name": "B"}]}
    return httpx.post(f"{base}/games", json=body, timeout=10).status_code


def accepted(bases: list[str], attempt: Callable[[str], int]) -> int:
    """How many of ``ATTEMPTS`` tries, spread round the processes, were accepted (2xx); every
    other is a 429."""
    statuses = [attempt(base) for base, _ in zip(itertools.cycle(bases), range(ATTEMPTS))]
    assert set(statuses) <= {200, 201, 429}, statuses
    return sum(status < 300 for status in statuses)


def mover(game_id: str, referee: str) -> Callable[[str], int]:
    """A try at the game's next move as its referee, on a fresh connection; the status."""

    def attempt(base: str) -> int:
        with httpx.Client(base_url=base, timeout=10) as client:
            legal = client.get(f"/games/{game_id}/legal-moves", headers=auth(referee)).json()
            move = legal["moves"][0]
            body = {"move": move["id"], "seat": move["seat"], "expected_version": legal["version"]}
            reply = client.post(f"/games/{game_id}/moves", json=body, headers=auth(referee))
            return reply.status_code

    return attempt


def budget_env(create_rate: str = SLOW) -> dict[str, str]:
    """Budgets of ``BURST`` creations and writes that do not come back while a test runs."""
    return {
        "TABULA_CREATE_RATE": create_rate,
        "TABULA_CREATE_BURST": str(BURST),
        "TABULA_WRITE_RATE": SLOW,
        "TABULA_WRITE_BURST": str(BURST),
    }


@pytest.mark.postgres
@pytest.mark.slow
def test_one_address_creates_as_many_games_across_three_processes_as_against_one() -> None:
    with postgres_schema("budgets") as url, processes(url, 1, **budget_env()) as bases:
        single = accepted(bases, create)
    with postgres_schema("budgets") as url, processes(url, 3, **budget_env()) as bases:
        spread = accepted(bases, create)
        assert all(create(base) == 429 for base in bases)  # spent on every process
    assert single == BURST
    assert single * 0.9 <= spread <= single * 1.1


@pytest.mark.postgres
@pytest.mark.slow
def test_one_caller_makes_as_many_moves_across_three_processes_as_against_one() -> None:
    with postgres_schema("budgets") as url, processes(url, 3, **budget_env("0")) as bases:
        created = httpx.post(
            f"{bases[0]}/games", json={"ruleset": "race35", "seats": [{}, {}]}, timeout=10
        ).json()
        moves = accepted(bases, mover(created["id"], created["tokens"]["referee"]))
    assert BURST * 0.9 <= moves <= BURST * 1.1


def test_workers_on_one_sqlite_file_share_one_addresss_creation_budget(tmp_path: Path) -> None:
    env = {"TABULA_LOG_LEVEL": "warning", "TABULA_WORKERS": "2"} | budget_env()
    with service_process(tmp_path / "tabula.db", env) as (base, _):
        spread = accepted([base], create)  # a fresh connection each: either worker takes it
    assert BURST * 0.9 <= spread <= BURST * 1.1
    made = [p.name for p in tmp_path.iterdir() if p.name.startswith("tabula.db.budgets")]
    assert "tabula.db.budgets" in made
    assert [name for name in made if not ignored(name)] == []  # git leaves them out


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def budgets(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., Budgets]]:
    """Opens budgets on one database as each process would (``lease`` seconds)."""
    opened: list[Budgets] = []
    with ExitStack() as stack:
        if request.param == "postgres":
            from eventstore.budgets_postgres import PostgresBudgets

            url = stack.enter_context(postgres_schema("budgets"))

            def open_one(lease: float = 30.0) -> Budgets:
                opened.append(PostgresBudgets(url, lease=lease))
                return opened[-1]
        else:

            def open_one(lease: float = 30.0) -> Budgets:
                opened.append(SqliteBudgets(tmp_path / "tabula.db.budgets", lease=lease))
                return opened[-1]

        yield open_one
        for each in opened:
            each.close()


def refused(slots: StreamSlots, client: str) -> bool:
    """Whether a stream of ``client`` is refused."""
    try:
        slots.acquire(client)
    except Refusal as refusal:
        assert refusal.slug == "rate-limited"
        return True
    return False


def test_an_addresss_open_streams_are_capped_across_processes(
    budgets: Callable[..., Budgets],
) -> None:
    first = StreamSlots(2, 100, SharedSlots(Asking(budgets()), "streams", 2))
    second = StreamSlots(2, 100, SharedSlots(Asking(budgets()), "streams", 2))
    first.acquire("10.0.0.1")
    second.acquire("10.0.0.1")
    assert refused(first, "10.0.0.1") and refused(second, "10.0.0.1")
    second.acquire("10.0.0.2")  # another address has its own
    first.release("10.0.0.1")  # told, not awaited: given back a moment later
    wait_until(lambda: not refused(second, "10.0.0.1"), timeout=5, interval=0.05)
    assert refused(first, "10.0.0.1")


def test_a_killed_processs_slots_expire_after_its_lease(
    budgets: Callable[..., Budgets],
) -> None:
    killed = SharedSlots(Asking(budgets(lease=0.5)), "streams", 2)
    assert killed.acquire("10.0.0.1", "a") and killed.acquire("10.0.0.1", "b")
    alive = budgets(lease=0.5)
    survivor = SharedSlots(Asking(alive), "streams", 2)
    alive.renew()  # the survivor beats; the killed process never does again
    assert survivor.acquire("10.0.0.1", "c") is False
    wait_until(lambda: survivor.acquire("10.0.0.1", "c"), timeout=5, interval=0.1)
    assert survivor.held("10.0.0.1") == 1


def test_a_renewed_slot_outlives_its_first_lease(budgets: Callable[..., Budgets]) -> None:
    alive = budgets(lease=0.5)
    slots = SharedSlots(Asking(alive), "analyses", 1)
    other = SharedSlots(Asking(budgets(lease=0.5)), "analyses", 1)
    assert slots.acquire("10.0.0.1", "game")
    for _ in range(4):
        alive.renew()
        assert other.acquire("10.0.0.1", "another") is False
    slots.release("10.0.0.1", "game")
    wait_until(lambda: other.acquire("10.0.0.1", "another"), timeout=5, interval=0.05)


def test_two_processes_spend_one_bucket_whatever_their_order(
    budgets: Callable[..., Budgets],
) -> None:
    one, two = budgets(), budgets()
    granted = [
        (one if n % 2 else two).take("writes", "game:g:referee", 1, 0.001, BURST) == 0
        for n in range(ATTEMPTS)
    ]
    assert sum(granted) == BURST
    waits = [one.take("writes", "game:g:referee", 1, 0.001, BURST) for _ in range(2)]
    assert all(wait > 0 for wait in waits)
    assert one.take("writes", "another", 1, 0.001, BURST) == 0


@pytest.mark.parametrize("proxies", ["127.0.0.0/8", "10.9.0.0/16, 127.0.0.1"])
def test_budgets_count_the_address_a_trusted_proxy_forwards(tmp_path: Path, proxies: str) -> None:
    env = {"TABULA_LOG_LEVEL": "warning", "TABULA_TRUSTED_PROXIES": proxies}
    env |= {"TABULA_CREATE_RATE": SLOW, "TABULA_CREATE_BURST": "2"}
    body = {"ruleset": "race35", "seats": [{}, {}]}
    with service_process(tmp_path / "tabula.db", env) as (base, _):

        def status(forwarded: str) -> int:
            headers = {"X-Forwarded-For": forwarded}
            return httpx.post(f"{base}/games", json=body, headers=headers).status_code

        # each client behind the proxy has its own budget ...
        assert [status(f"203.0.113.{n}") for n in range(1, 5)] == [201] * 4
        # ... and the address the proxy saw counts, whatever the client wrote before it
        spoofed = [status(f"198.51.100.{n}, 203.0.113.9") for n in range(1, 5)]
        assert spoofed == [201, 201, 429, 429]


@pytest.mark.postgres
def test_an_addresss_games_with_bots_are_capped_across_processes() -> None:
    with postgres_schema("budgets") as url:
        settings = Settings(database_url=url, log_level="warning", max_bot_games_per_client=2)
        with TestClient(create_app(settings)) as a, TestClient(create_app(settings)) as b:
            first, second = person_and_bot(a), person_and_bot(b)
            assert first.status_code == second.status_code == 201
            assert person_and_bot(a).status_code == 429
            refused = person_and_bot(b)
            assert refused.status_code == 429, refused.text
            assert "on this server and others" in refused.json()["detail"]
            game = first.json()
            forfeit = {"kind": "forfeit", "seat": 0, "reason": "left"}
            referee = auth(game["tokens"]["referee"])
            ended = a.post(f"/games/{game['id']}/adjudicate", json=forfeit, headers=referee)
            assert ended.status_code == 200, ended.text
            wait_until(lambda: person_and_bot(b).status_code == 201, 10, "no place came free")


def person_and_bot(api: TestClient[Any]) -> Any:
    """POST /games of a person (who moves first) against a greedy bot."""
    seats = [{"name": "Ann"}, {"name": "Robin", "bot": "greedy"}]
    return api.post("/games", json={"ruleset": "sorry", "seats": seats})


def test_an_addresss_analyses_under_way_are_capped_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "tabula.db.budgets"
    one, two = (
        Analyses(
            cast(Repository, None), utcnow, 1, 1, SharedSlots(Asking(SqliteBudgets(path)), "a", 1)
        )
        for _ in range(2)
    )
    job = one.join(("g1", 5, False), "10.0.0.1")
    assert isinstance(job, Job)
    with pytest.raises(Refusal) as refused:
        two.join(("g2", 5, False), "10.0.0.1")
    assert refused.value.slug == "rate-limited"
    assert isinstance(two.join(("g3", 5, False), "10.0.0.2"), Job)  # another address's own
    one.ended(job)  # done: the address may start another anywhere (a moment later)
    wait_until(lambda: started(two, ("g2", 5, False), "10.0.0.1"), timeout=5, interval=0.05)


def started(analyses: Analyses, key: tuple[str, int, bool], caller: str) -> bool:
    """Whether ``caller`` may start the analysis ``key`` now."""
    try:
        return isinstance(analyses.join(key, caller), Job)
    except Refusal:
        return False


class Silent(SqliteBudgets):
    """Budgets whose database stops answering once ``silent`` is set (a link cut off)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.silent, self.back = threading.Event(), threading.Event()

    def _take(self, name: str, key: str, step: float, slack: float) -> tuple[bool, float]:
        if self.silent.is_set():
            self.back.wait(10)
        return super()._take(name, key, step, slack)


def test_a_database_that_stops_answering_holds_a_check_up_at_most_its_deadline(
    tmp_path: Path,
) -> None:
    silent = Silent(tmp_path / "tabula.db.budgets")
    own = TokenBucket(0.001, 3)
    shared = SharedBucket(Asking(silent, deadline=0.1), "creations", 0.001, 3, own.take)
    assert [shared.take("10.0.0.1") for _ in range(3)] == [0, 0, 0]
    silent.silent.set()
    began = time.monotonic()
    assert shared.take("10.0.0.2") == 0  # late: this process's own bucket answers
    assert time.monotonic() - began < 1
    began = time.monotonic()
    assert [shared.take("10.0.0.2") == 0 for _ in range(3)] == [True, True, False]
    assert time.monotonic() - began < 0.05  # while one is late, none is asked
    silent.back.set()
    wait_until(lambda: shared.take("10.0.0.1") > 0, timeout=5, interval=0.05)  # shared again


def test_a_stream_closing_after_its_process_stopped_asking_gives_its_slot_back_quietly(
    tmp_path: Path,
) -> None:
    asking = Asking(SqliteBudgets(tmp_path / "tabula.db.budgets"))
    slots = StreamSlots(2, 100, SharedSlots(asking, "streams", 2))
    slots.acquire("10.0.0.1")
    Beat(asking).stop()  # the process stops: its slots go with its budgets
    slots.release("10.0.0.1")  # a connection closing late: nothing to ask, nothing raised
    assert slots.count("10.0.0.1") == 0
    assert asking.ask(lambda budgets: budgets.held("streams", "10.0.0.1")) is None
    assert SqliteBudgets(tmp_path / "tabula.db.budgets").held("streams", "10.0.0.1") == 0

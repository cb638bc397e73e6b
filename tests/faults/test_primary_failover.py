"""The PostgreSQL primary killed for good, its synchronous standby promoted (issue 49.3): no
acknowledged write is lost, a write whose commit was cut off is answered as unknown (never as
written) and its retry with the same Idempotency-Key appends once, and the service, given both
hosts (``target_session_attrs=read-write``), takes writes again within ``FAILOVER_BOUND``
seconds of the kill, with no restart.

The pair is ``deploy/postgres-standby.sh``'s standalone one (``tests.faults.standby``): the
primary is SIGKILLed with every process it started, and the standby promoted at once, as a
failover manager does once it has seen the primary gone.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import psycopg
import pytest

from eventstore import Appending, AppendResult, NewEvent, StoreUnavailable
from eventstore.postgres import PostgresEventStore
from service.app import create_app
from service.settings import Settings
from tests.faults.load import RETRY_SECONDS, playing, reckon
from tests.faults.standby import Pair, standby_pair
from tests.live import serving
from tests.waiting import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.slow]  # two servers made, one killed

PLAYERS = 4
FAILOVER_BOUND = 10.0
"""Seconds from the primary's kill to the first write acknowledged by the promoted standby."""


def move(n: int) -> list[NewEvent]:
    return [NewEvent("MovePlayed", {"n": n}, 0)]


def waiting_for_the_standby(pair: Pair) -> bool:
    """Whether a commit on the primary waits for the standby's flush."""
    with psycopg.connect(pair.primary_url, autocommit=True) as conn:
        query = "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"
        row = conn.execute(query).fetchone()
    return row is not None and row[0] > 0


def append_waiting_for_the_standby(
    pair: Pair, store: PostgresEventStore, appending: Appending
) -> tuple[threading.Thread, dict[str, Any]]:
    """The standby stopped, an append started on a thread of its own: once this returns, its
    commit is written on the primary and waits for the standby. The thread, and what the
    append returns or raises (``result`` or ``error``) once it ends."""
    pair.stop_standby()
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = store.append(appending)
        except Exception as error:
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    wait_until(lambda: waiting_for_the_standby(pair), message="no commit waits for the standby")
    return thread, outcome


def appended(store: PostgresEventStore, appending: Appending) -> AppendResult | None:
    """The append's result, or None while the store finds no writable server."""
    try:
        return store.append(appending)
    except StoreUnavailable:
        return None


def test_a_commit_cut_off_waiting_for_the_standby_is_unknown_and_its_retry_appends_once() -> None:
    with standby_pair() as pair, PostgresEventStore(pair.url, timeout=2.0) as store:
        store.append(Appending("g", move(1), 0, idempotency_key="k1", fingerprint="f1"))
        second = Appending("g", move(2), 1, idempotency_key="k2", fingerprint="f2")
        thread, outcome = append_waiting_for_the_standby(pair, store, second)
        pair.kill_primary()
        thread.join(timeout=10)
        assert "result" not in outcome, "a commit the standby never had was acknowledged"
        assert isinstance(outcome["error"], StoreUnavailable)
        assert outcome["error"].kind == "unreachable"
        pair.start_standby()
        pair.promote()
        retried = wait_until(lambda: appended(store, second), message="no writes after promotion")
        assert (
            retried is not None and not retried.replayed
        )  # the commit the primary kept died with it
        again = store.append(second)
        assert again.replayed and again.events == retried.events
        assert [(e.version, e.data) for e in store.read("g")] == [(1, {"n": 1}), (2, {"n": 2})]


def test_a_commit_whose_wait_for_the_standby_is_cancelled_is_unknown_never_written() -> None:
    with standby_pair() as pair, PostgresEventStore(pair.url, timeout=2.0) as store:
        store.append(Appending("g", move(1), 0, idempotency_key="k1", fingerprint="f1"))
        second = Appending("g", move(2), 1, idempotency_key="k2", fingerprint="f2")
        thread, outcome = append_waiting_for_the_standby(pair, store, second)
        with psycopg.connect(pair.primary_url, autocommit=True) as conn:
            waiting = "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = %s"
            conn.execute(waiting, ["SyncRep"])  # PostgreSQL then reports the commit done
        thread.join(timeout=10)
        assert "result" not in outcome, "a commit the standby may not have was acknowledged"
        assert isinstance(outcome["error"], StoreUnavailable)
        assert outcome["error"].kind == "unreachable"
        pair.start_standby()
        retried = store.append(second)  # the primary kept it: the retry finds it written
        assert retried.replayed
        assert [(e.version, e.data) for e in store.read("g")] == [(1, {"n": 1}), (2, {"n": 2})]


def first_write(url: str) -> float:
    """When a write sent from now on is first acknowledged (a game created): the old primary
    is dead, so only the new one can have taken it."""
    with httpx.Client(base_url=url, timeout=30) as client:
        while True:
            reply = client.post("/games", json={"ruleset": "race35", "seats": [{}, {}]})
            if reply.status_code == 201:
                return time.monotonic()
            assert reply.status_code == 503, reply.text
            time.sleep(RETRY_SECONDS)


def test_the_primary_killed_for_good_loses_no_acknowledged_move_and_writes_resume_within_10_s() -> (
    None
):
    with standby_pair() as pair:
        settings = Settings(
            database_url=pair.url, store_timeout=2.0, log_level="critical", create_rate=0
        )
        with serving(create_app(settings)) as url:
            with playing(url, PLAYERS) as players:
                killed = time.monotonic()
                pair.kill_primary()
                with ThreadPoolExecutor(1) as pool:
                    writing = pool.submit(first_write, url)
                    pair.promote()
                    promoted = time.monotonic() - killed
                    resumed = writing.result() - killed
                after = {id(p): len(p.acked_at) for p in players}
                wait_until(lambda: all(len(p.acked_at) >= after[id(p)] + 2 for p in players))
            assert [p.failure for p in players] == [None] * PLAYERS
            figures = reckon(url, players)
            print(f"failover: promoted {promoted:.2f} s, writes {resumed:.2f} s after the kill")
            print(f"failover: {figures}")
            assert resumed < FAILOVER_BOUND
            assert (figures.lost, figures.duplicated, figures.audits_failed) == (0, 0, 0)
            assert figures.acknowledged > 0 and figures.found == figures.acknowledged
            assert set(figures.errors) <= {"503 store-unavailable"}, figures.errors

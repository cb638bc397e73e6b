"""What only the PostgreSQL store does: announcing appends, its errors, its statistics."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from eventstore import Appending, NewEvent, StoreError
from eventstore.postgres import PostgresEventStore
from eventstore.sql import POSTGRES
from tests.postgres import postgres_schema

WAKE_SECONDS = 5.0


@pytest.fixture
def url() -> Iterator[str]:
    with postgres_schema("pgstore") as url:
        yield url


@pytest.fixture
def store(url: str) -> Iterator[PostgresEventStore]:
    with PostgresEventStore(url) as store:
        yield store


def event(n: int = 0) -> list[NewEvent]:
    return [NewEvent("MovePlayed", {"n": n}, 0)]


def test_an_append_by_another_store_wakes_the_streams_subscribers(
    store: PostgresEventStore, url: str
) -> None:
    woken, other_woken = threading.Event(), threading.Event()
    store.subscribe("g1", lambda _: woken.set())
    store.subscribe("g2", lambda _: other_woken.set())
    woken.wait(WAKE_SECONDS)  # subscribing wakes once, for appends made before it listened
    woken.clear()
    other_woken.clear()
    with PostgresEventStore(url) as writer:
        writer.append(Appending("g1", event(), 0))
    assert woken.wait(WAKE_SECONDS)
    assert not other_woken.is_set()


def test_unsubscribed_callbacks_are_not_called(store: PostgresEventStore) -> None:
    calls: list[str] = []
    stop = store.subscribe("g1", lambda _: calls.append("old"))
    stop()
    woken = threading.Event()
    store.subscribe("g1", lambda _: woken.set())
    woken.wait(WAKE_SECONDS)
    woken.clear()
    store.append(Appending("g1", event(), 0))
    assert woken.wait(WAKE_SECONDS)
    assert calls == []


def test_a_failing_subscriber_does_not_stop_the_others(store: PostgresEventStore) -> None:
    def broken(_: int | None) -> None:
        raise RuntimeError("boom")

    woken = threading.Event()
    store.subscribe("g1", broken)
    store.subscribe("g1", lambda _: woken.set())
    woken.wait(WAKE_SECONDS)
    woken.clear()
    store.append(Appending("g1", event(), 0))
    assert woken.wait(WAKE_SECONDS)


def test_nul_in_an_event_type_is_a_store_error_and_writes_nothing(
    store: PostgresEventStore,
) -> None:
    with pytest.raises(StoreError, match="NUL"):
        store.append(Appending("g1", [NewEvent("Bad\x00Type", {}, 0)], 0))
    assert store.version("g1") == 0


def test_unreachable_server_is_a_store_error_without_the_password() -> None:
    with pytest.raises(StoreError, match="cannot open the event store") as caught:
        PostgresEventStore("postgresql://who:s3cr3t@127.0.0.1:1/nowhere", timeout=1)
    assert "s3cr3t" not in str(caught.value)


def test_closed_store_raises_store_error(url: str) -> None:
    store = PostgresEventStore(url)
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.append(Appending("g1", event(), 0))
    with pytest.raises(StoreError, match="closed"):
        store.read("g1")


def test_stats_count_one_commit_per_append(store: PostgresEventStore) -> None:
    for version in range(3):
        store.append(Appending("g1", event(version), version))
    assert store.stats() == {"appends": 3, "commits": 3, "largest_batch": 1}


def test_settings_show_durability(store: PostgresEventStore) -> None:
    assert set(store.settings()) == {"synchronous_commit", "fsync"}


def test_reopening_keeps_the_log(store: PostgresEventStore, url: str) -> None:
    log = store.append(Appending("g1", event(), 0)).events
    with PostgresEventStore(url) as again:
        assert tuple(again.read("g1")) == log


def test_the_events_are_hash_partitioned_by_stream_id_each_stream_in_one_partition(
    store: PostgresEventStore, url: str
) -> None:
    import psycopg

    for n in range(40):
        store.append(Appending(f"g{n}", event(), 0))
        store.append(Appending(f"g{n}", event(1), 1))
    with psycopg.connect(url, autocommit=True) as conn:
        kind = conn.execute("SELECT relkind FROM pg_class WHERE oid = 'events'::regclass")
        assert kind.fetchone() == ("p",)
        parts = conn.execute(
            "SELECT count(*) FROM pg_inherits WHERE inhparent = 'events'::regclass"
        )
        assert parts.fetchone() == (POSTGRES.partitions,)
        homes = conn.execute(
            "SELECT stream_id, count(DISTINCT tableoid) FROM events GROUP BY stream_id"
        ).fetchall()
        used = conn.execute("SELECT count(DISTINCT tableoid) FROM events").fetchone()
    assert len(homes) == 40 and {count for _, count in homes} == {1}
    assert used is not None and used[0] > 1
    assert [e.version for e in store.read("g7")] == [1, 2]


def test_connections_find_a_vanished_server_within_seconds_unless_the_url_says_otherwise() -> None:
    from psycopg.conninfo import conninfo_to_dict

    from eventstore.postgres_pool import resilient

    url = "postgresql://tabula:secret@h1:5432,h2:5432/tabula?target_session_attrs=read-write"
    made = conninfo_to_dict(resilient(url, 2.0))
    assert made["host"] == "h1,h2" and made["target_session_attrs"] == "read-write"
    assert (made["keepalives_idle"], made["tcp_user_timeout"]) == ("2", "2000")
    own = conninfo_to_dict(resilient(f"{url}&tcp_user_timeout=500&keepalives_idle=7", 2.0))
    assert (own["keepalives_idle"], own["tcp_user_timeout"]) == ("7", "500")


def test_after_a_failover_new_connections_try_the_server_that_took_writes_first() -> None:
    from psycopg.conninfo import conninfo_to_dict

    from eventstore.postgres_pool import preferring

    url = "postgresql://u@h1:5432,h2:5433,h3:5434/db?target_session_attrs=read-write"
    made = conninfo_to_dict(preferring(url, "h2", 5433))
    assert (made["host"], made["port"]) == ("h2,h3,h1", "5433,5434,5432")
    assert made["target_session_attrs"] == "read-write"
    assert preferring(url, "elsewhere", 5432) == url
    assert preferring("postgresql://u@h1/db", "h1", 5432) == "postgresql://u@h1/db"
    shared_port = conninfo_to_dict(preferring("postgresql://u@h1,h2/db", "h2", 5432))
    assert (shared_port["host"], shared_port["port"]) == ("h2,h1", "5432,5432")

"""What a client and an operator see of a store fault (issue 27.3): a 503 with a problem type
of its own and a Retry-After, a detail naming the kind of fault without paths or SQL, not
ready on ``/ready`` while ``/health`` stays a liveness check, and the fault counted in
``/metrics``; all through the real app, over a store whose database turns read-only and
whose disk fills (``faulty.Faulty``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from eventstore import SqliteEventStore
from service.app import bootstrap, create_app
from service.settings import Settings
from service.usecases.games.records import GameRecord
from tests.big_record import big_record
from tests.faults.faulty import Faulty, faulty

TOKEN = "metrics-token"
GAME = {"ruleset": "race35", "seats": [{}, {}]}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteEventStore]:
    with SqliteEventStore(tmp_path / "tabula.db") as opened:
        yield opened


@pytest.fixture
def api(store: SqliteEventStore, tmp_path: Path) -> Iterator[TestClient[Any]]:
    settings = Settings(database=str(tmp_path / "unused.db"), metrics_token=TOKEN)
    with TestClient(create_app(settings, store)) as client:
        yield client


def fail_begins(conn: Faulty, kind: str | None) -> None:
    conn.fails = lambda statement, _: kind if statement.startswith("BEGIN") else None


@pytest.mark.parametrize(
    ("kind", "slug"),
    [
        ("read-only", "store-unavailable"),
        ("io-error", "store-unavailable"),
        ("disk-full", "insufficient-storage"),
    ],
)
def test_a_store_fault_is_a_503_of_its_own_and_counted(
    api: TestClient[Any], store: SqliteEventStore, kind: str, slug: str
) -> None:
    conn = faulty(store)
    fail_begins(conn, kind)
    reply = api.post("/games", json=GAME)
    assert reply.status_code == 503
    problem = reply.json()
    assert problem["type"] == f"https://tabula.dev/problems/{slug}" and problem["fault"] == kind
    assert int(reply.headers["Retry-After"]) == problem["retry_after"] > 0
    assert reply.headers["Content-Type"].startswith("application/problem+json")
    for secret in ("tabula.db", "BEGIN", "INSERT", "sqlite", str(Path.cwd())):
        assert secret not in problem["detail"]
    assert api.get("/health").status_code == 200
    ready = api.get("/ready")
    assert ready.status_code == 503 and ready.json()["status"] == "not-ready"
    assert kind in ready.json()["checks"].values() and ready.headers["Retry-After"]
    metrics = api.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).text
    assert f'tabula_store_faults_total{{kind="{kind}"}} 1.0' in metrics
    assert 'tabula_store_faults_total{kind="unreachable"} 0.0' in metrics
    fail_begins(conn, None)
    assert api.post("/games", json=GAME).status_code == 201
    assert api.get("/ready").json() == {
        "status": "ready",
        "checks": dict.fromkeys(("writer", "file", "disk", "database"), "ok"),
    }


def test_a_read_does_not_fail_for_a_snapshot_it_cannot_save(tmp_path: Path) -> None:
    """Snapshots are derived data: a fold that cannot save one (the disk full) still answers."""
    with SqliteEventStore(tmp_path / "tabula.db") as store:
        cases = bootstrap(store)
        record = msgspec.convert(big_record(300), GameRecord)
        game = cases.commands.import_record(record).id
        store.drop_snapshots()
        conn = faulty(store)
        conn.fails = lambda statement, _: "disk-full" if "snapshots" in statement else None
        assert cases.games.fold(game).version == store.version(game)
        assert conn.failed == 1 and store.load_snapshot(game, 10**9) is None

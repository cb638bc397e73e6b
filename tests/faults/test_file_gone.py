"""The SQLite file deleted or replaced under a running server (issue 27.4): the next write is
refused with a 503 ``store-unavailable`` (``file-gone``) and an error in the log, never
acknowledged into a file nobody will read again; ``/ready`` says so; and the service will not
start on the emptied path (the marker beside it says a database was there), where before it
made a new, empty one and every game was gone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from eventstore import SqliteEventStore
from service.app import create_app
from service.settings import Settings
from tests.faults.test_disk import new_game, play
from tests.live import serving

ROOT = Path(__file__).parents[2]


def remove(database: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)


def replace(database: Path) -> None:
    """Put another database file at the path (a restore from the wrong backup)."""
    other = database.with_name("other.db")
    SqliteEventStore(other).close()
    os.replace(other, database)


@pytest.mark.parametrize("fault", [remove, replace])
def test_writes_to_a_deleted_or_replaced_file_are_refused(
    tmp_path: Path, fault: object, capfd: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "tabula.db"
    settings = Settings(database=str(database), log_level="error")
    with serving(create_app(settings)) as url, httpx.Client(base_url=url, timeout=15) as client:
        game, referee = new_game(client)
        assert play(client, game, referee).status_code == 200
        fault(database)  # type: ignore[operator]
        refused = play(client, game, referee)
        assert refused.status_code == 503, refused.text
        problem = refused.json()
        assert problem["type"].endswith("/store-unavailable") and problem["fault"] == "file-gone"
        assert "tabula.db" not in refused.text and refused.headers["Retry-After"]
        created = client.post("/games", json={"ruleset": "race35", "seats": [{}, {}]})
        assert created.status_code == 503
        ready = client.get("/ready")
        assert ready.status_code == 503 and ready.json()["checks"]["file"] == "file-gone"
        assert client.get("/health").status_code == 200
    logged = capfd.readouterr().out
    assert "store fault" in logged and "file-gone" in logged and "level='error'" in logged


def test_the_service_does_not_start_on_a_database_that_is_gone(tmp_path: Path) -> None:
    database = tmp_path / "tabula.db"
    SqliteEventStore(database).close()
    assert database.with_name("tabula.db.marker").exists()
    remove(database)
    command = [sys.executable, "-m", "service", "--database", str(database), "--port", "0"]
    started = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert started.returncode == 1
    assert "held a Tabula event store" in started.stderr and "marker" in started.stderr
    assert not database.exists()
    database.with_name("tabula.db.marker").unlink()  # the operator's choice: start afresh
    SqliteEventStore(database).close()
    assert database.exists()

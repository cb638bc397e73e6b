"""SQLite on a small file system (issue 27.1 and 27.3), served on loopback: a disk that fills
in the middle of a large import refuses that import with a 503 ``insufficient-storage``,
answers every later write (stored, or 503 while there is no room: the space the failed
import took in the WAL file may hold a few), releases the import's
slot, reports itself not ready, and takes writes again as soon as space is freed; nothing
acknowledged is lost and the file stays whole.

The file system is a tmpfs of ``DISK_MIB`` MiB (``machine.small_disk``; skipped where the
machine cannot mount one).
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

import httpx
import msgspec

from service.app import create_app
from service.settings import Settings
from tests.big_record import big_record
from tests.faults.machine import fill, free_bytes, small_disk
from tests.live import serving
from tests.service.conftest import auth
from tests.waiting import wait_until

DISK_MIB = 8
RECORD_EVENTS = 9_967  # the 3.6 MB record
ANSWER_SECONDS = 15.0


def test_a_disk_that_fills_during_an_import_refuses_it_and_recovers() -> None:
    record = msgspec.json.encode(big_record(RECORD_EVENTS))
    with small_disk(DISK_MIB) as disk:
        settings = Settings(database=str(disk / "tabula.db"), log_level="critical", create_rate=0)
        with serving(create_app(settings)) as url, httpx.Client(base_url=url) as client:
            client.timeout = ANSWER_SECONDS
            game, referee = new_game(client)
            assert play(client, game, referee).status_code == 200
            filler = fill(disk, leave=1024 * 1024)
            imported = client.post("/games/import", content=record, headers=JSON)
            assert_full(imported)
            assert_full(client.post("/games/import", content=record, headers=JSON))  # no 429
            ready = client.get("/ready")
            assert ready.status_code == 503 and ready.json()["checks"]["disk"] == "disk-full"
            more = fill(disk, leave=0, name="more")  # moves may still fit in the WAL's room
            replies = [play(client, game, referee) for _ in range(5)]
            assert all(r.status_code in (200, 503) for r in replies), [r.text for r in replies]
            for reply in replies:
                if reply.status_code == 503:
                    assert_full(reply)
            assert client.get("/health").status_code == 200
            filler.unlink()
            more.unlink()
            freed = time.monotonic()
            wait_until(lambda: play(client, game, referee).status_code == 200, timeout=5)
            assert time.monotonic() - freed < 1.0
            assert client.get("/ready").status_code == 200
            audit = client.get(f"/games/{game}/audit", headers=auth(referee))
            assert audit.json()["verification"]["valid"], audit.text[:800]
        assert free_bytes(disk) > 0
        with sqlite3.connect(disk / "tabula.db") as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


JSON = {"Content-Type": "application/json"}


def new_game(client: httpx.Client) -> tuple[str, str]:
    body = {"ruleset": "sorry", "seats": [{}, {}, {}, {}], "auto_chance": True, "seed": "disk"}
    created = client.post("/games", json=body).json()
    return created["id"], created["tokens"]["referee"]


def play(client: httpx.Client, game: str, referee: str) -> httpx.Response:
    """One legal move (the first) as the referee (a four-seat game of sorry: it lasts)."""
    headers = {"Authorization": f"Bearer {referee}"}
    moves = client.get(f"/games/{game}/legal-moves", headers=headers).json()
    assert moves["moves"], "the game ended"
    body: dict[str, Any] = {"move": moves["moves"][0]["id"], "seat": moves["moves"][0]["seat"]}
    return client.post(f"/games/{game}/moves", json=body, headers=headers)


def assert_full(reply: httpx.Response) -> None:
    """A 503 insufficient-storage with a Retry-After, naming the fault but no path or SQL."""
    assert reply.status_code == 503, reply.text
    problem = reply.json()
    assert problem["type"].endswith("/insufficient-storage") and problem["fault"] == "disk-full"
    assert int(reply.headers["Retry-After"]) > 0
    assert "tabula.db" not in reply.text and "INSERT" not in reply.text

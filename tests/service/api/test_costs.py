"""Costly public work and unbounded growth (issue 16, items 8 and 9), in process: the write
limit keys on the verified caller and keeps bounded memory, creation and import have budgets
per client, imports a size and a number at once, and a finished game's audit is verified
once and its documents are kept.

The same attacks against a real server are in tests/hostile/test_costs.py."""

from __future__ import annotations

import json
import math
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from service.api.limits import Limits, TokenBucket
from service.app import create_app
from service.settings import Settings
from service.usecases.games import records
from service.usecases.games.queries import Queries
from service.usecases.games.records import Audit, Documents, GameRecord
from tests.big_record import big_record
from tests.service.api.test_bad_input import expect_problem
from tests.service.conftest import auth, create

REFERENCE = Path(__file__).parents[2] / "reference"
RECORD = json.loads((REFERENCE / "sorry-1.record.json").read_text())


def client(tmp_path: Path, **settings: Any) -> TestClient[Any]:
    """A test client of the app with some settings changed."""
    changed = Settings(database=str(tmp_path / "costs.db"), log_level="warning", **settings)
    return TestClient(create_app(changed))


def limits(api: TestClient[Any]) -> Limits:
    found: Limits = api.app.state.limits
    return found


def queries(api: TestClient[Any]) -> Queries:
    found: Queries = api.app.state.queries
    return found


def import_record(api: TestClient[Any], record: dict[str, Any] = RECORD) -> Any:
    return api.post("/games/import", json=record)


# -- the write limit: keyed on the verified caller, bounded memory -------------------------


def test_buckets_left_alone_until_full_again_are_dropped() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=1, burst=10, clock=lambda: now[0])
    for key in range(5000):
        assert bucket.take(f"junk{key}") == 0  # one token of ten: full again 1 s later
        now[0] += 0.0001
    assert len(bucket) == 5000
    now[0] += 1
    bucket.take("another")
    assert len(bucket) == 1  # every one of them was full again: the same as none


def test_buckets_stay_bounded_whatever_the_number_of_keys() -> None:
    bucket = TokenBucket(rate=1, burst=30, max_keys=1000)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for key in range(37_000):  # issue 16: 37k made-up tokens kept 10 MB more
            bucket.take(f"Bearer junk{key}")
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(bucket) == 1000
    assert grown < 1_000_000, f"{grown:,} bytes kept for 1,000 buckets"


def test_a_debt_keeps_its_bucket_until_it_is_paid() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=1, burst=5, clock=lambda: now[0])
    assert bucket.take("round", cost=8) == 0  # more than the burst: granted on a full bucket
    assert bucket.take("round") == pytest.approx(4)  # -3 tokens: 4 s until one is due
    now[0] = 6
    bucket.take("other")
    assert len(bucket) == 2  # still in debt (1 of 5 back): not pruned
    assert bucket.take("round") == pytest.approx(0)


SPELLINGS = [
    "Bearer {}",
    "bearer {}",
    "BEARER {}",
    "bEaReR {}",
    "Bearer  {}",
    "Bearer {} ",
    "Bearer   {}   ",
    "bearer {}\t",
]


def test_every_spelling_of_a_token_spends_the_same_bucket(tmp_path: Path) -> None:
    with client(tmp_path, write_rate=0.001, write_burst=2) as api:
        created = create(api)
        game, referee = created["id"], created["tokens"]["referee"]
        statuses = []
        for spelling in SPELLINGS:
            headers = {"Authorization": spelling.format(referee)}
            statuses.append(api.post(f"/games/{game}/undo", json={}, headers=headers).status_code)
        assert statuses[:2] == [409, 409]  # nothing to undo in race35, but the writes counted
        assert statuses[2:] == [429] * 6
        assert len(limits(api).writes) == 2  # the referee's, and the address's (it created)
        seat = auth(created["tokens"]["seats"][0])
        assert api.post(f"/games/{game}/undo", json={}, headers=seat).status_code != 429


def test_made_up_tokens_share_the_budget_of_their_address(tmp_path: Path) -> None:
    with client(tmp_path, write_rate=0.001, write_burst=3, refusal_rate=0) as api:
        created = create(api)  # a write of the address: 2 left
        game = created["id"]
        other = created["tokens"]["referee"]
        created = create(api)  # 1 left
        game = created["id"]
        statuses = [
            api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=auth(f"junk{i}"))
            for i in range(2000)
        ]
        assert [s.status_code for s in statuses[:1]] == [401]
        assert {s.status_code for s in statuses[1:]} == {429}
        expect_problem(statuses[-1], 429, "rate-limited", "too many writes")
        assert len(limits(api).writes) == 1  # one bucket: the address's
        # a token of another game, a malformed header and no token at all: the address too
        for headers in (auth(other), {"Authorization": "Basic x"}, {}):
            reply = api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=headers)
            assert reply.status_code == 429
        # the game's own tokens are each a caller of their own
        referee = auth(created["tokens"]["referee"])
        assert api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=referee).is_success


def test_the_write_limit_is_off_by_default_and_then_keeps_no_buckets(
    api: TestClient[Any],
) -> None:
    created = create(api)
    referee = auth(created["tokens"]["referee"])
    for i in range(50):
        assert api.post(f"/games/{created['id']}/undo", json={}, headers=referee).status_code == 409
        junk = auth(f"junk{i}")
        assert api.post(f"/games/{created['id']}/undo", json={}, headers=junk).status_code == 401
    assert len(limits(api).writes) == 0


# -- creation and import budgets -----------------------------------------------------------


def test_creation_has_a_budget_per_client_with_retry_after(tmp_path: Path) -> None:
    with client(tmp_path, create_rate=0.01, create_burst=3) as api:
        body = {"ruleset": "race35", "seats": [{}, {}]}
        replies = [api.post("/games", json=body) for _ in range(4)]
        assert [r.status_code for r in replies[:3]] == [201] * 3
        problem = expect_problem(replies[3], 429, "rate-limited", "too many games created")
        assert int(replies[3].headers["retry-after"]) == problem["retry_after"] >= 1
        assert len(queries(api).results()[0]) == 3


def test_a_batch_spends_one_creation_a_table(tmp_path: Path) -> None:
    with client(tmp_path, create_rate=0.001, create_burst=3) as api:
        table = {"ruleset": "race35", "seats": [{}, {}]}
        assert api.post("/games/batch", json={"games": [table, table]}).status_code == 201
        refused = api.post("/games/batch", json={"games": [table, table]})
        expect_problem(refused, 429, "rate-limited", "too many games created")
        assert api.post("/games", json=table).status_code == 201  # the one left
        assert len(queries(api).results()[0]) == 3


def test_the_default_creation_budget_lets_a_round_through_and_stops_a_flood(
    api: TestClient[Any],
) -> None:
    defaults = Settings()
    assert (defaults.create_rate, defaults.create_burst) == (1.0, 60)
    body = {"ruleset": "race35", "seats": [{}, {}]}
    statuses = [api.post("/games", json=body).status_code for _ in range(150)]
    created = statuses.count(201)
    assert statuses[:60] == [201] * 60
    assert 429 in statuses and created < 80  # 60 at once, then about one a second
    assert set(statuses) == {201, 429}


def test_import_has_a_budget_per_client(tmp_path: Path) -> None:
    with client(tmp_path, import_rate=0.001, import_burst=1) as api:
        assert import_record(api).status_code == 201
        refused = import_record(api)
        problem = expect_problem(refused, 429, "rate-limited", "too many imports")
        assert int(refused.headers["retry-after"]) == problem["retry_after"] >= 1
        assert len(queries(api).results()[0]) == 1


def test_a_record_over_the_size_limit_is_413_before_it_is_read(tmp_path: Path) -> None:
    size = len(msgspec.json.encode(RECORD))
    with client(tmp_path, max_record_bytes=size - 1, import_burst=1, import_rate=0.001) as api:
        problem = expect_problem(
            import_record(api),
            413,
            "payload-too-large",
            f"{size - 1:,} bytes",
            "TABULA_MAX_RECORD_BYTES",
        )
        assert (problem["limit"], problem["setting"]) == (size - 1, "TABULA_MAX_RECORD_BYTES")

        def chunked() -> Iterator[bytes]:  # no Content-Length: counted as it comes
            body = msgspec.json.encode(RECORD)
            for start in range(0, len(body), 4096):
                yield body[start : start + 4096]

        reply = api.post(
            "/games/import", content=chunked(), headers={"Content-Type": "application/json"}
        )
        expect_problem(reply, 413, "payload-too-large")
        assert limits(api).importing.busy == 0
    with client(tmp_path, max_record_bytes=size, import_burst=1, import_rate=0.001) as api:
        assert import_record(api).status_code == 201  # the refusals spent no budget


def test_a_record_over_the_events_limit_is_413(tmp_path: Path) -> None:
    events = len(RECORD["events"])
    with client(tmp_path, max_record_events=events - 1) as api:
        problem = expect_problem(
            import_record(api), 413, "payload-too-large", f"{events - 1:,} events", "EVENTS"
        )
        assert (problem["limit"], problem["setting"]) == (events - 1, "TABULA_MAX_RECORD_EVENTS")
    with client(tmp_path, max_record_events=events) as api:
        assert import_record(api).status_code == 201


def test_imports_at_once_are_capped_and_their_slots_come_back(tmp_path: Path) -> None:
    with client(tmp_path, import_concurrency=1, import_rate=0) as api:
        slots = limits(api).importing
        with slots.taken("imports", 2):  # an import in progress
            refused = import_record(api)
        problem = expect_problem(refused, 429, "rate-limited", "1 imports at once")
        assert refused.headers["retry-after"] == "2" and problem["retry_after"] == 2
        bad = json.loads(json.dumps(RECORD))
        bad["events"][5]["data"]["seat"] = 1 - bad["events"][5]["data"].get("seat", 0)
        assert import_record(api, bad).status_code == 422
        assert api.post("/games/import", json={"format": 1}).status_code == 400
        assert slots.busy == 0
        assert import_record(api).status_code == 201
        assert slots.busy == 0


def test_settings_of_the_limits_come_from_the_environment() -> None:
    env = {
        "TABULA_CREATE_RATE": "2.5",
        "TABULA_CREATE_BURST": "100",
        "TABULA_IMPORT_RATE": "0",
        "TABULA_IMPORT_BURST": "3",
        "TABULA_IMPORT_CONCURRENCY": "4",
        "TABULA_MAX_RECORD_BYTES": "1000000",
        "TABULA_MAX_RECORD_EVENTS": "500",
    }
    settings = Settings.from_env(env)
    assert (settings.create_rate, settings.create_burst) == (2.5, 100)
    assert (settings.import_rate, settings.import_burst, settings.import_concurrency) == (0, 3, 4)
    assert (settings.max_record_bytes, settings.max_record_events) == (1_000_000, 500)


# -- audits and exports: verified once, kept, streamed -------------------------------------


def test_a_finished_games_audit_is_verified_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[int] = []
    verify = records.verify_stored

    def counted(*args: Any) -> records.Verification:
        runs.append(args[2])
        return verify(*args)

    monkeypatch.setattr(records, "verify_stored", counted)
    with client(tmp_path, import_rate=0) as api:
        created = import_record(api).json()
        game = created["id"]
        first = api.get(f"/games/{game}/audit")
        audits = [api.get(f"/games/{game}/audit") for _ in range(5)]
        assert first.status_code == 200 and first.json()["verification"]["valid"]
        assert all(a.content == first.content for a in audits)
        assert runs == [len(RECORD["events"])]  # once, at the game's version
        assert queries(api).verifications.computed == 1
        # an undo reopens the game: a new version, verified once more
        referee = auth(created["tokens"]["referee"])
        undone = api.post(f"/games/{game}/undo", json={"reason": "reopen"}, headers=referee)
        assert undone.status_code == 200
        reopened = api.get(f"/games/{game}/audit", headers=referee).json()
        assert reopened["status"] == "active" and reopened["verification"]["valid"]
        assert runs == [len(RECORD["events"]), undone.json()["version"]]
        api.get(f"/games/{game}/audit", headers=referee)
        assert len(runs) == 2


def test_concurrent_audits_of_one_version_verify_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    runs: list[int] = []
    verify = records.verify_stored
    started = threading.Event()

    def slow(*args: Any) -> records.Verification:
        runs.append(args[2])
        started.wait(2)  # every other audit arrives meanwhile
        return verify(*args)

    monkeypatch.setattr(records, "verify_stored", slow)
    with client(tmp_path, import_rate=0) as api:
        game = import_record(api).json()["id"]
        replies: list[Any] = []

        def audit() -> None:
            replies.append(api.get(f"/games/{game}/audit"))

        threads = [threading.Thread(target=audit) for _ in range(4)]
        for thread in threads:
            thread.start()
        started.set()
        for thread in threads:
            thread.join()
        assert [r.status_code for r in replies] == [200] * 4
        assert len(runs) == 1


def test_streamed_documents_are_the_documents_encoded_at_once(tmp_path: Path) -> None:
    with client(tmp_path, import_rate=0) as api:
        game = import_record(api).json()["id"]
        audit = api.get(f"/games/{game}/audit")
        export = api.get(f"/games/{game}/export")
        archive = api.get("/archive")
        assert (
            audit.headers["content-type"] == export.headers["content-type"] == ("application/json")
        )
        assert audit.content == msgspec.json.encode(msgspec.json.decode(audit.content, type=Audit))
        exported = msgspec.json.decode(export.content, type=GameRecord)
        assert export.content == msgspec.json.encode(exported)
        assert archive.json() == {
            "records": [export.json()],
            "format": "tabula-archive",
            "format_version": 1,
        }
        assert [e["hash"] for e in export.json()["events"]] == [
            e["hash"] for e in audit.json()["events"]
        ]


def test_a_running_games_export_is_read_a_page_at_a_time(tmp_path: Path) -> None:
    record = big_record(5000, seed="paged")
    undos = [i for i, e in enumerate(record["events"]) if e["type"] == "MoveUndone"]
    record["events"] = record["events"][: undos[-1] + 1]  # running: it stops after an undo
    events = len(record["events"])
    with client(tmp_path, import_rate=0) as api:
        created = import_record(api, record)
        assert created.status_code == 201, created.text
        game, referee = created.json()["id"], created.json()["tokens"]["referee"]
        exported = api.get(f"/games/{game}/export", headers=auth(referee)).json()
        assert len(exported["events"]) == events and exported["seed"] is None
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            count = sum(1 for _ in queries(api).export(game, referee))
            streaming = tracemalloc.get_traced_memory()[1] - before
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
            log = queries(api).store.read(game)  # what the export held before it streamed
            whole = tracemalloc.get_traced_memory()[1] - before
            del log
        finally:
            tracemalloc.stop()
        assert count == 2 + math.ceil(events / records.PAGE)  # head, pages, tail
        assert streaming < whole / 2, f"{streaming:,} bytes to stream, {whole:,} to hold the log"


def test_finished_documents_are_kept_within_their_budget() -> None:
    documents = Documents(budget=4000)
    made: list[str] = []

    def make(name: str, size: int) -> Iterator[bytes]:
        made.append(name)
        return iter([b"x" * (size // 2), b"y" * (size - size // 2)])

    def get(name: str, size: int) -> bytes:
        return b"".join(documents.get(("audit", name, 1), lambda: make(name, size)))

    assert get("a", 900) == b"x" * 450 + b"y" * 450
    assert get("a", 900) == b"x" * 450 + b"y" * 450  # kept
    assert made == ["a"]
    for name in "bcdef":
        get(name, 900)
    assert documents.kept.spent <= 4000
    get("a", 900)
    assert made.count("a") == 2  # forgotten, least recently used
    big = get("big", 3000)  # over a quarter of the budget: streamed, not kept
    assert len(big) == 3000
    get("big", 3000)
    assert made.count("big") == 2
    assert documents.kept.spent <= 4000

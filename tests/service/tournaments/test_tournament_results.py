"""Tournaments on the write pipeline: results reach a tournament through its follower (never
through a read), exactly once across processes and restarts; a round's games count against
the creation budget; locks exist only for tournaments that exist; a finished table's result
is final."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from eventstore import SqliteEventStore
from service.app import bootstrap, create_app
from service.core.commands import PlayMove
from service.core.refusal import Refusal
from service.settings import Settings
from service.usecases.tournaments.wire import CreateTournament
from tests.postgres import postgres_schema
from tests.service.conftest import auth, play_to_end
from tests.service.tournaments.test_tournaments import QUICK, pair, problem, tournament, verify


def table_game(created: dict[str, Any], table: dict[str, Any]) -> dict[str, Any]:
    tokens = {p["name"]: p["token"] for p in created["tokens"]["players"]}
    seats = [tokens[name] for name in table["seats"]]
    return {
        "id": table["game_id"],
        "tokens": {"referee": created["tokens"]["director"], "seats": seats},
    }


def small() -> CreateTournament:
    """Two players, one round, one table of two."""
    body = {
        "name": "Night",
        "ruleset": "race35",
        "options": QUICK,
        "rounds": 1,
        "seats_per_table": 2,
        "players": [{"name": "A"}, {"name": "B"}],
    }
    return msgspec.convert(body, CreateTournament)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def two_stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    """Two stores on one database, as two processes would have."""
    if request.param == "sqlite":
        with SqliteEventStore(tmp_path / "t.db") as one, SqliteEventStore(tmp_path / "t.db") as two:
            yield one, two
        return
    from eventstore.postgres import PostgresEventStore

    with (
        postgres_schema("follower") as url,
        PostgresEventStore(url) as one,
        PostgresEventStore(url) as two,
    ):
        yield one, two


def test_a_get_writes_nothing_and_the_follower_records_each_result_once(
    two_stores: tuple[Any, Any],
) -> None:
    store, other = two_stores
    here, there = bootstrap(store), bootstrap(other)
    body = small()
    created = here.tournaments.create(body)
    paired = here.tournaments.pair(created.id, created.tokens.director)
    (table,) = paired.round.tables
    # ``there`` plays the table to its end: another process, whose writer ``here`` never sees.
    there.writer.followers.clear()
    seats = {p.name: p.token for p in created.tokens.players}
    game_id = table.game_id
    while there.queries.state(game_id, None).status != "finished":
        for token in (seats[name] for name in table.seats):
            legal = there.queries.legal_moves(game_id, token).moves
            if legal:
                there.commands.play(game_id, token, PlayMove(move=legal[0].id), None)
                break
    version = store.version(created.id)
    assert here.tournaments.view(created.id).status == "active"
    assert here.tournaments.standings(created.id).rounds_closed == 0
    assert store.version(created.id) == version  # the reads wrote nothing
    sweeps = [here.tournaments.results.sweep, there.tournaments.results.sweep]
    threads = [threading.Thread(target=s) for s in sweeps * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    types = [e.type for e in store.read(created.id)]
    assert types.count("TableFinished") == 1 and types.count("RoundClosed") == 1
    assert bootstrap(other).tournaments.results.sweep() == 0  # a restart records nothing again
    assert here.tournaments.view(created.id).status == "finished"


def test_the_finishing_move_records_the_result_before_its_reply(api: TestClient[Any]) -> None:
    created = tournament(api, players=2, rounds=1, seats_per_table=2)
    (table,) = pair(api, created)["tables"]
    play_to_end(api, table_game(created, table))
    shown = api.get(f"/tournaments/{created['id']}").json()
    assert shown["status"] == "finished" and shown["rounds"][0]["closed"]


def test_a_round_s_games_count_against_the_creation_budget(tmp_path: Path) -> None:
    settings = Settings(database=str(tmp_path / "b.db"), log_level="warning", create_burst=8)
    with TestClient(create_app(settings)) as api:
        created = tournament(api, players=16, rounds=1, seats_per_table=2)  # 8 tables
        director = auth(created["tokens"]["director"])
        path = f"/tournaments/{created['id']}/rounds"
        problem(api.post(path, json={}, headers=director), 429, "rate-limited")  # 1 + 8 > 8
        assert api.get(f"/tournaments/{created['id']}").json()["rounds"] == []
        assert api.get(f"/games?tag=tournament:{created['id']}").json()["games"] == []


def test_unknown_tournament_ids_leave_no_lock_behind(tmp_path: Path) -> None:
    with SqliteEventStore(tmp_path / "l.db") as store:
        cases = bootstrap(store)
        for n in range(200):
            tid = f"{n:x}" * 400
            for read in (cases.tournaments.view, cases.tournaments.standings):
                try:
                    read(tid)
                except Refusal as refusal:
                    assert refusal.slug == "tournament-not-found"
            try:
                cases.tournaments.pair(tid, "token")
            except Refusal as refusal:
                assert refusal.slug == "tournament-not-found"
        assert len(cases.tournaments.log.locks) == 0
        body = small()
        created = cases.tournaments.create(body)
        cases.tournaments.pair(created.id, created.tokens.director)
        assert len(cases.tournaments.log.locks) == 0  # kept only while held


def test_a_finished_table_s_result_is_final_and_the_record_verifies(
    api: TestClient[Any], tmp_path: Path
) -> None:
    created = tournament(
        api, players=2, rounds=1, seats_per_table=2, options=QUICK | {"allow_undo": True}
    )
    (table,) = pair(api, created)["tables"]
    game = table_game(created, table)
    play_to_end(api, game)
    for token in [game["tokens"]["referee"], *game["tokens"]["seats"]]:
        reply = api.post(f"/games/{game['id']}/undo", json={}, headers=auth(token))
        assert reply.status_code in (403, 409), reply.text
        if reply.status_code == 409:
            assert reply.json()["type"].endswith("/result-final"), reply.text
    assert api.get(f"/games/{game['id']}").json()["status"] == "finished"
    record = api.get(f"/tournaments/{created['id']}/record").json()
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    verified = verify(path)
    assert verified.returncode == 0, verified.stdout
    assert "valid tournament (finished)" in verified.stdout

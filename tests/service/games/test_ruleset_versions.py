"""Rule set versions: a new game is played under the current version of its rule set, and a
record replays under the version its ``GameCreated`` names (none named: version 1), so games
recorded before a rules fix still import and verify as they were played."""

from __future__ import annotations

import copy
import functools
import random
from typing import Any

import msgspec
from litestar.testing import TestClient

from domain.events import GameCreated
from eventstore import GENESIS
from eventstore.hashing import seal
from service.core import chance
from service.core.commands import PlayMove
from service.core.luck import Seeded
from service.core.referee import judge, open_game
from service.usecases.games.records import GameRecord
from service.usecases.games.repository import new_events
from service.usecases.replies import EventOut, wire
from tests.service.conftest import auth, create
from tests.service.games.test_records import import_problem, rehash

BONUSES = {
    "capture_bonus": 20,
    "home_bonus": 10,
    "six_counts_seven": False,
    "three_sixes_exempt_home_column": False,
}
SEED = "v1-8"  # one of the games where a version 1 play is not a version 2 one
SEATS = ("Ann", "Bob", "Cid", "Dee")


def version_1_record() -> dict[str, Any]:
    """A finished parchis-2dice game with bonus counts on, played by random choices under
    version 1 (as every such game was before version 2), exported as the service writes it
    (a fresh copy each time)."""
    return copy.deepcopy(played_under_version_1())


@functools.cache
def played_under_version_1(game_id: str = "v1game") -> dict[str, Any]:
    """``version_1_record``'s game, played once."""
    created = GameCreated(
        "parchis-2dice", BONUSES, SEATS, "server", chance.commitment(SEED),
        auto_chance=True,
    )  # fmt: skip
    luck, rng = Seeded(SEED), random.Random(1)
    verdict = open_game(created, luck)
    batch, replay = list(verdict.batch), verdict.after
    while not replay.state.finished:
        seat = replay.rules.to_act(replay.state)[0].seat
        move = rng.choice(replay.rules.legal_moves(replay.state, seat)).id
        verdict = judge(replay, "referee", PlayMove(move=move, seat=seat), luck)
        batch, replay = batch + verdict.batch, verdict.after
    stored = seal(game_id, new_events(batch), 0, GENESIS, "2026-01-01T00:00:00.000000Z")
    head = (game_id, "parchis-2dice", 1, BONUSES, list(SEATS), "server", created.seed_commitment)
    record = GameRecord(*head, [wire(EventOut, e) for e in stored], SEED)
    built: dict[str, Any] = msgspec.to_builtins(record)
    return built


def test_a_version_1_record_imports_and_verifies_under_version_1(api: TestClient[Any]) -> None:
    record = version_1_record()
    assert "ruleset_version" not in record["events"][0]["data"]
    reply = api.post("/games/import", json=record)
    assert reply.status_code == 201, reply.text
    imported = reply.json()
    referee = auth(imported["tokens"]["referee"])
    audit = api.get(f"/games/{imported['id']}/audit", headers=referee).json()
    assert audit["verification"]["valid"] and audit["verification"]["finished"]
    exported = api.get(f"/games/{imported['id']}/export").json()
    assert exported["ruleset_version"] == 1
    assert [e["data"] for e in exported["events"]] == [e["data"] for e in record["events"]]


def test_the_same_record_played_again_under_version_2_differs(api: TestClient[Any]) -> None:
    record = version_1_record()
    record["ruleset_version"] = 2
    record["events"][0]["data"]["ruleset_version"] = 2
    problem = import_problem(api, rehash(record))
    assert problem["first_bad_event"] > 1
    assert "is not legal" in problem["detail"]


def test_new_games_get_the_current_version_of_their_rule_set(api: TestClient[Any]) -> None:
    current = [("parchis-2dice", 3), ("ludo", 2), ("sorry", 2), ("sorry-hand", 2), ("parchis", 1)]
    for ruleset, version in current:
        created = create(api, ruleset, players=2)
        referee = auth(created["tokens"]["referee"])
        record = api.get(f"/games/{created['id']}/export", headers=referee).json()
        assert record["ruleset_version"] == version
        assert record["events"][0]["data"].get("ruleset_version", 1) == version
    listed = {r["name"]: r["version"] for r in api.get("/rulesets").json()["rulesets"]}
    assert all(listed[ruleset] == version for ruleset, version in current)


def test_a_record_whose_header_names_another_version_is_refused(api: TestClient[Any]) -> None:
    record = version_1_record()
    record["ruleset_version"] = 2
    problem = import_problem(api, record)
    assert problem["first_bad_event"] == 1
    assert "ruleset_version 2 does not match" in problem["detail"]


def test_a_record_of_an_unknown_version_is_refused(api: TestClient[Any]) -> None:
    record = version_1_record()
    record["ruleset_version"] = 7
    record["events"][0]["data"]["ruleset_version"] = 7
    problem = import_problem(api, rehash(record))
    assert problem["first_bad_event"] == 1
    assert "no version 7; known: [1, 2, 3]" in problem["detail"]

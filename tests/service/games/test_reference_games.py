"""Reference games: stored records of bot games replay to the same final state, forever.

``tests/reference/<ruleset>-<n>.record.json`` is a game's export and ``<ruleset>-<n>.final.json``
its final state as the referee saw it (``python -m tests.reference.generate`` writes them). A
change to a rule set or to replay that alters how a stored game comes out fails here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from domain.registry import RULESETS
from tests.service.conftest import auth

REFERENCE = Path(__file__).parents[2] / "reference"
RECORDS = sorted(REFERENCE.glob("*.record.json"))
COMPARED = ("pieces", "to_act", "winners", "status", "hands", "version")


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def final_of(record: Path) -> dict[str, Any]:
    return load(record.with_name(record.name.replace(".record.", ".final.")))


def compared(state: dict[str, Any]) -> dict[str, Any]:
    return {key: state.get(key) for key in COMPARED}


def test_every_ruleset_has_two_reference_games() -> None:
    names = {path.name for path in RECORDS}
    for ruleset in RULESETS:
        assert {f"{ruleset}-1.record.json", f"{ruleset}-2.record.json"} <= names, ruleset


@pytest.mark.parametrize("record", RECORDS, ids=[path.name for path in RECORDS])
def test_reference_game_imports_to_its_final_state(api: TestClient[Any], record: Path) -> None:
    reply = api.post("/games/import", json=load(record))
    assert reply.status_code == 201, reply.text
    created = reply.json()
    state = api.get(f"/games/{created['id']}", headers=auth(created["tokens"]["referee"])).json()
    final = final_of(record)
    assert final["status"] == "finished"
    assert compared(state) == compared(final)


def test_verify_command_accepts_every_reference_game() -> None:
    command = [sys.executable, "-m", "service", "verify", *map(str, RECORDS)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(": valid: ") == len(RECORDS)

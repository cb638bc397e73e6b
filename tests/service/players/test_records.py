"""A player's record: the player or its app reads it, ``python -m service verify`` checks it
offline, and a tampered record does not verify."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from service.__main__ import main
from tests.service.conftest import auth
from tests.service.players.conftest import refused, register


def verified(tmp_path: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> str:
    """What ``python -m service verify`` says of the record, and whether it held (a prefix)."""
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    code = main(["verify", str(path)])
    said = capsys.readouterr().out
    return f"{code} {said}"


def ann_record(api: TestClient[Any]) -> dict[str, Any]:
    """Ann's record after a rotation and her retirement, read with her app's key."""
    app = api.app.state.apps.add("ludoclub")
    key = register(api, "Ann", app)["key"]
    key = api.post("/me/keys", headers=auth(key)).json()["key"]
    assert api.delete("/me", headers=auth(key)).status_code == 204
    reply = api.get("/players/ludoclub:ann/record", headers=auth(app))
    assert reply.status_code == 200, reply.text
    record: dict[str, Any] = reply.json()
    return record


def test_a_players_record_verifies_offline(
    api: TestClient[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = ann_record(api)
    assert record["format"] == "tabula-player-record" and record["format_version"] == 1
    assert record["handle"] == "ludoclub:Ann"
    assert [e["type"] for e in record["events"]] == [
        "PlayerRegistered",
        "KeyIssued",
        "KeyIssued",
        "HandleRetired",
    ]
    said = verified(tmp_path, record, capsys)
    assert said.startswith("0 ") and "valid player record" in said, said
    assert "2 keys issued, retired" in said


@pytest.mark.parametrize(
    "tamper",
    [
        lambda r: r["events"][1]["data"].update(digest="0" * 64),  # a key swapped
        lambda r: r.update(handle="ludoclub:Bob"),  # another's record relabelled
        lambda r: r["events"].pop(2),  # a rotation hidden
        lambda r: r["events"][0]["data"].update(handle="ludoclub:Bob"),
    ],
    ids=["digest", "handle", "dropped-event", "registered-handle"],
)
def test_a_tampered_record_does_not_verify(
    api: TestClient[Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    tamper: Any,
) -> None:
    record = ann_record(api)
    tamper(record)
    said = verified(tmp_path, record, capsys)
    assert said.startswith("1 ") and "INVALID" in said, said


def test_a_record_is_the_players_or_its_apps(api: TestClient[Any]) -> None:
    ann = register(api, "ann")["key"]
    bob = register(api, "bob")["key"]
    app = api.app.state.apps.add("ludoclub")
    assert api.get("/players/ANN/record", headers=auth(ann)).json()["handle"] == "ann"
    assert refused(api.get("/players/ann/record", headers=auth(bob))) == (403, "forbidden")
    assert refused(api.get("/players/ann/record", headers=auth(app))) == (403, "forbidden")
    assert refused(api.get("/players/ann/record")) == (401, "unauthorized")
    assert refused(api.get("/players/nobody/record", headers=auth(ann))) == (
        404,
        "player-not-found",
    )

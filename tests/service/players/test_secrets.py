"""Keys nowhere in clear: after registering, rotating, minting, playing over HTTP and the
socket and exporting a record, neither the raw SQLite files nor the log output nor the record
hold any key or its secret (the store holds each secret's sha256, which the test finds)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.conftest import auth
from tests.service.players.conftest import register, seated_game


def use_every_key(api: TestClient[Any]) -> tuple[list[str], str]:
    """Register, rotate, add an app, mint, play with keys over HTTP and the socket, export a
    record, try a wrong key; every key made, and the record's text."""
    first = register(api, "ann")["key"]
    second = api.post("/me/keys", headers=auth(first)).json()["key"]
    app = api.app.state.apps.add("ludoclub")
    member = register(api, "8812", app)["key"]
    minted = api.post("/players/ludoclub:8812/keys", headers=auth(app)).json()["key"]
    game = seated_game(api, "ann")["id"]
    api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=auth(second))
    api.get(f"/games/{game}/legal-moves", headers=auth(first))  # refused: rotated
    with api.websocket_connect(f"/games/{game}/socket") as session:
        session.send_json({"type": "hello", "token": second, "after": 0})
        assert session.receive_json()["type"] == "welcome"
    record = api.get("/players/ann/record", headers=auth(second)).text
    api.get("/me", headers=auth(minted))
    return [first, second, app, member, minted], record


def test_keys_are_nowhere_in_clear(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings(database=str(tmp_path / "t.db"), log_format="json", log_level="debug")
    with TestClient(create_app(settings)) as api:
        keys, record = use_every_key(api)
    secrets = [key.split("_", 3)[3] for key in keys]  # tabula_pk_<id>_<secret>
    stored = b"".join(path.read_bytes() for path in tmp_path.glob("t.db*"))
    logged = capsys.readouterr()
    lines = [json.loads(line) for line in logged.out.splitlines() if line.startswith("{")]
    assert any(line.get("event") == "request" for line in lines)  # the log was captured
    for secret in secrets:
        digest = hashlib.sha256(secret.encode()).hexdigest()
        assert digest.encode() in stored  # what is kept of a key: its digest
        for text in (secret, secret[:24]):
            assert text.encode() not in stored
            assert text not in logged.out and text not in logged.err
            assert text not in record

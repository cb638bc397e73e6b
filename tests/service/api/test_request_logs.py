"""Every request logs one line with its id, the game id and the outcome (JSON in production)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.service.conftest import auth, create


def request_lines(text: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("event") == "request"]


def test_each_request_logs_its_id_game_and_outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(database=str(tmp_path / "t.db"), log_format="json", log_level="info")
    with TestClient(create_app(settings)) as api:
        created = create(api, players=2)
        game, seat = created["id"], created["tokens"]["seats"][0]
        capsys.readouterr()
        played = api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=auth(seat))
        refused = api.post(
            f"/games/{game}/moves",
            json={"move": "roll"},
            headers={**auth(seat), "X-Request-ID": "frontend-42"},
        )
        api.get("/health")
    first, second, health = request_lines(capsys.readouterr().out)
    assert (first["game_id"], first["status"], first["outcome"]) == (game, 200, "ok")
    assert (second["game_id"], second["status"], second["outcome"]) == (game, 409, "rejected")
    assert second["request_id"] == refused.headers["x-request-id"] == "frontend-42"
    assert first["request_id"] == played.headers["x-request-id"]
    assert len({first["request_id"], second["request_id"], health["request_id"]}) == 3
    assert health["game_id"] is None

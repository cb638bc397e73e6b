"""Apps against the real app: the operator's command adds, lists and revokes them; an app
registers players in its namespace and mints keys for them alone, and never acts in a game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from service.__main__ import main
from service.app import create_app
from service.settings import Settings
from tests.service.conftest import auth
from tests.service.players.conftest import refused, register, seated_game


def app_key(api: TestClient[Any], name: str) -> str:
    key: str = api.app.state.apps.add(name)
    return key


def test_an_app_registers_its_players_in_its_namespace(api: TestClient[Any]) -> None:
    ludo = app_key(api, "ludoclub")
    member = register(api, "8812", ludo)
    assert member["handle"] == "ludoclub:8812"
    me = api.get("/me", headers=auth(member["key"]))
    assert me.json()["handle"] == "ludoclub:8812"
    register(api, "8812")  # the same handle outside the namespace is another player


def test_an_app_mints_a_key_for_its_player_and_the_old_one_stops(api: TestClient[Any]) -> None:
    ludo = app_key(api, "ludoclub")
    old = register(api, "8812", ludo)["key"]
    minted = api.post("/players/ludoclub:8812/keys", headers=auth(ludo))
    assert minted.status_code == 200, minted.text
    assert api.get("/me", headers=auth(minted.json()["key"])).json()["handle"] == "ludoclub:8812"
    assert refused(api.get("/me", headers=auth(old))) == (401, "key-refused")


def test_an_app_mints_no_key_outside_its_namespace(api: TestClient[Any]) -> None:
    ludo, other = app_key(api, "ludoclub"), app_key(api, "chatbot")
    register(api, "7", other)
    register(api, "ann")
    assert refused(api.post("/players/chatbot:7/keys", headers=auth(ludo))) == (403, "forbidden")
    assert refused(api.post("/players/ann/keys", headers=auth(ludo))) == (403, "forbidden")
    assert refused(api.post("/players/ludoclub:nobody/keys", headers=auth(ludo))) == (
        404,
        "player-not-found",
    )
    ann = register(api, "bea")["key"]
    assert refused(api.post("/players/bea/keys", headers=auth(ann))) == (403, "forbidden")


def test_an_app_never_acts_in_a_game(api: TestClient[Any]) -> None:
    ludo = app_key(api, "ludoclub")
    register(api, "8812", ludo)
    game = seated_game(api, "ludoclub:8812")["id"]
    for reply in (
        api.get(f"/games/{game}/legal-moves", headers=auth(ludo)),
        api.post(f"/games/{game}/moves", json={"move": "roll"}, headers=auth(ludo)),
    ):
        assert refused(reply) == (403, "forbidden")
        assert "POST /players/{handle}/keys" in reply.json()["detail"]
    assert refused(api.get("/me", headers=auth(ludo))) == (403, "forbidden")


def test_a_revoked_apps_key_is_refused_and_its_players_keys_still_work(
    api: TestClient[Any],
) -> None:
    ludo = app_key(api, "ludoclub")
    member = register(api, "8812", ludo)["key"]
    api.app.state.apps.revoke("ludoclub")
    assert refused(api.post("/players", json={"handle": "9"}, headers=auth(ludo))) == (
        401,
        "key-refused",
    )
    assert api.get("/me", headers=auth(member)).status_code == 200


def test_the_apps_command_adds_lists_and_revokes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = str(tmp_path / "t.db")
    assert main(["apps", "add", "ludoclub", "--database", database]) == 0
    key = capsys.readouterr().out.strip()
    assert key.startswith("tabula_ak_ludoclub_")
    assert main(["apps", "add", "ludoclub", "--database", database]) == 1
    assert "registered already" in capsys.readouterr().err
    assert main(["apps", "add", "Ludo Club", "--database", database]) == 1
    with TestClient(create_app(Settings(database=database, log_level="warning"))) as api:
        assert register(api, "1", key)["handle"] == "ludoclub:1"
    capsys.readouterr()
    assert main(["--database", database, "apps", "list"]) == 0
    assert capsys.readouterr().out.split()[::3] == ["ludoclub"]  # name, registered, state
    assert main(["apps", "revoke", "ludoclub", "--database", database]) == 0
    assert main(["apps", "list", "--database", database]) == 0
    assert capsys.readouterr().out.split()[-1] == "revoked"
    with TestClient(create_app(Settings(database=database, log_level="warning"))) as api:
        reply = api.post("/players", json={"handle": "2"}, headers=auth(key))
        assert refused(reply) == (401, "key-refused")

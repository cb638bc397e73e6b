"""The OpenAPI document says which credential each route takes: the four bearer schemes, the
players' routes' keys, a game's routes its tokens or a player's key, open routes none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DOCUMENT: dict[str, Any] = json.loads(
    (Path(__file__).parents[3] / "openapi" / "openapi.json").read_text()
)


def security(method: str, path: str) -> list[dict[str, list[str]]] | None:
    found: list[dict[str, list[str]]] | None = DOCUMENT["paths"][path][method].get("security")
    return found


def test_every_kind_of_bearer_is_a_scheme() -> None:
    schemes = DOCUMENT["components"]["securitySchemes"]
    assert set(schemes) == {"playerKey", "appKey", "gameToken", "tournamentToken"}
    assert all(s["type"] == "http" and s["scheme"] == "bearer" for s in schemes.values())
    assert schemes["playerKey"]["bearerFormat"].startswith("tabula_pk_")
    assert schemes["appKey"]["bearerFormat"].startswith("tabula_ak_")


def test_each_route_says_which_credential_it_takes() -> None:
    assert security("get", "/me") == [{"playerKey": []}]
    assert security("post", "/players") == [{}, {"appKey": []}]
    assert security("post", "/players/{handle}/keys") == [{"appKey": []}]
    assert security("get", "/players/{handle}/record") == [{"playerKey": []}, {"appKey": []}]
    assert security("post", "/games/{game_id}/moves") == [{"gameToken": []}, {"playerKey": []}]
    assert security("get", "/games/{game_id}") == [{}, {"gameToken": []}, {"playerKey": []}]
    assert security("post", "/games/{game_id}/chance") == [{"gameToken": []}]
    mine = [{"tournamentToken": []}, {"playerKey": []}]  # a guest's token or a player's key
    assert security("get", "/tournaments/{tournament_id}/me") == mine
    assert security("post", "/tournaments/{tournament_id}/withdrawals") == mine
    assert security("get", "/tournaments/{tournament_id}") == [{}, {"tournamentToken": []}]
    assert security("get", "/health") is None

"""``GET /games/{id}/analysis``: who may read it, the 202 while it is computed, the result kept,
and ``python -m service analyse``."""

from __future__ import annotations

import time
from typing import Any

import msgspec
from litestar.testing import TestClient

from service.__main__ import main
from service.settings import Settings
from tests.service.conftest import auth, create
from tests.service.test_spectator_delay import play


def analysis(api: TestClient[Any], game: str, headers: dict[str, str] | None = None) -> Any:
    """The analysis once computed (polling through the 202s); the last reply if refused."""
    for _ in range(600):
        reply = api.get(f"/games/{game}/analysis", headers=headers or {})
        if reply.status_code != 202:
            return reply
        progress = reply.json()
        assert progress["status"] == "running" and 0 <= progress["done"] <= progress["total"]
        time.sleep(0.05)
    raise AssertionError("the analysis did not finish")


def test_no_seat_or_spectator_reads_a_running_games_analysis(api: TestClient[Any]) -> None:
    created = create(api, players=2)
    state = play(api, created, 12)
    assert state["status"] == "active"
    game, tokens = created["id"], created["tokens"]
    for headers in [{}, *(auth(token) for token in tokens["seats"])]:
        reply = api.get(f"/games/{game}/analysis", headers=headers)
        assert reply.status_code == 403, reply.text
        assert reply.json()["type"].endswith("forbidden")
    found = analysis(api, game, auth(tokens["referee"]))
    assert found.status_code == 200, found.text
    body = found.json()
    assert body["points"] and max(p["version"] for p in body["points"]) <= state["version"]
    for point in body["points"]:
        assert abs(sum(point["chances"]) - 1) < 1e-3


def test_a_finished_games_analysis_is_anyones_and_identical_when_computed_twice(
    api: TestClient[Any], settings: Settings, capsys: Any
) -> None:
    created = create(api, players=2)
    assert play(api, created, 2000)["status"] == "finished"
    game = created["id"]
    first = analysis(api, game)
    assert first.status_code == 200, first.text
    assert api.get(f"/games/{game}/analysis").json() == first.json()
    seat = analysis(api, game, auth(created["tokens"]["seats"][1]))
    assert seat.json() == first.json()
    assert main(["analyse", game, "--database", settings.database]) == 0
    printed = msgspec.json.decode(capsys.readouterr().out)
    assert printed == first.json()


def test_a_delayed_games_spectator_waits_for_the_end_it_sees(api: TestClient[Any]) -> None:
    created = create(api, players=2, spectator_delay={"seconds": 600})
    assert play(api, created, 2000)["status"] == "finished"
    game = created["id"]
    assert api.get(f"/games/{game}/analysis").status_code == 403
    assert analysis(api, game, auth(created["tokens"]["referee"])).status_code == 200

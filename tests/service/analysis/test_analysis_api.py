"""``GET /games/{id}/analysis``: who may read it, the 202 while it is computed, the result kept,
and ``python -m service analyse``."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from service.__main__ import main
from service.app import create_app
from service.settings import Settings
from service.store import open_store
from service.usecases.analysis import store as analysis_store
from tests.service.conftest import auth, create, play_to_end
from tests.service.live.test_spectator_delay import play
from tests.waiting import wait_until


def analysis(api: TestClient[Any], game: str, headers: dict[str, str] | None = None) -> Any:
    """The analysis once computed (polling through the 202s); the last reply if refused."""

    def done() -> Any:
        reply = api.get(f"/games/{game}/analysis", headers=headers or {})
        if reply.status_code != 202:
            return reply
        progress = reply.json()
        assert progress["status"] == "running" and 0 <= progress["done"] <= progress["total"]
        return None

    return wait_until(done, timeout=30, message="the analysis did not finish", interval=0.05)


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
    assert body["positions"] and max(p["version"] for p in body["positions"]) <= state["version"]
    for point in body["positions"]:
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


def kept_rows(settings: Settings) -> list[Any]:
    """The analyses the database keeps, as rows of their derived space."""
    store = open_store(settings.database, settings.synchronous, settings.database_url)
    try:
        return store.derived_rows(analysis_store.space())
    finally:
        store.close()


def test_a_finished_games_analysis_is_kept_beside_its_log_and_served_from_there(
    api: TestClient[Any], settings: Settings, capsys: Any
) -> None:
    created = create(api, players=2)
    final = play(api, created, 2000)
    assert final["status"] == "finished"
    game = created["id"]
    first = analysis(api, game)
    assert first.status_code == 200, first.text
    [row] = kept_rows(settings)
    assert row.key == game and row.document["version"] == final["version"]
    assert row.document["analysis"] == first.json()
    with TestClient(create_app(settings)) as restarted:
        served = restarted.get(f"/games/{game}/analysis")
        assert served.status_code == 200, "a kept analysis is served at once, never recomputed"
        assert served.json() == first.json()
    assert main(["analyse", game, "--database", settings.database]) == 0
    out = capsys.readouterr().out
    assert msgspec.json.decode(out.strip().splitlines()[-1]) == first.json(), out[:300]
    assert [r.document for r in kept_rows(settings)] == [row.document]


def test_a_running_games_analysis_is_never_kept(api: TestClient[Any], settings: Settings) -> None:
    created = create(api, players=2)
    assert play(api, created, 12)["status"] == "active"
    referee = auth(created["tokens"]["referee"])
    assert analysis(api, created["id"], referee).status_code == 200
    assert kept_rows(settings) == []


def test_other_weights_name_another_method_so_an_older_analysis_is_never_served(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for path in analysis_store.WEIGHTS.glob("*.json"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    monkeypatch.setattr(analysis_store, "WEIGHTS", tmp_path)
    analysis_store.method.cache_clear()
    try:
        before = analysis_store.method()
        model = msgspec.json.decode((tmp_path / "ludo.json").read_bytes())
        model["weights"]["2"][0] += 0.001
        (tmp_path / "ludo.json").write_bytes(msgspec.json.encode(model))
        analysis_store.method.cache_clear()
        after = analysis_store.method()
        assert analysis_store.space() == f"analysis/{after}"
    finally:
        analysis_store.method.cache_clear()
    assert before != after
    assert before.startswith(f"{analysis_store.NUMBER}-") and after.startswith(
        f"{analysis_store.NUMBER}-"
    )


@pytest.mark.parametrize(("ruleset", "players"), [("ludo", 2), ("sorry", 3), ("partners", 4)])
def test_a_finished_games_chart_ends_at_its_result(
    api: TestClient[Any], ruleset: str, players: int
) -> None:
    created = create(api, ruleset, players)
    final = play_to_end(api, created)
    winners = set(final["winners"])
    body = analysis(api, created["id"]).json()
    last = body["positions"][-1]
    assert last["kind"] == "result" and last["version"] == body["version"] == final["version"]
    assert winners and last["seat"] in winners
    teams = final.get("teams") or [[seat] for seat in range(players)]
    for team in teams:
        share = sum(last["chances"][seat] for seat in team)
        assert share == pytest.approx(1.0 if winners & set(team) else 0.0)
    assert last["half_width"] == [0.0] * players
    assert all(point["kind"] != "result" for point in body["positions"][:-1])

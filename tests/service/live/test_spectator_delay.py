"""Delayed broadcast: a game's ``spectator_delay`` (seconds or moves) holds its spectators
behind the live game on every route; seats and the referee see it live.

The hidden-information tests (``test_hidden_information.py``) call every GET route as a
spectator of delayed games; these check the setting itself and the listings around it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from litestar.testing import TestClient

from tests.clocks import ManualClock
from tests.service.conftest import auth, create
from tests.service.games.test_records import rehash
from tests.service.live.test_stream import read_stream
from tests.service.tournaments.test_tournaments import pair, tournament
from tests.waiting import wait_until


def play(api: TestClient[Any], created: dict[str, Any], moves: int) -> dict[str, Any]:
    """The first legal move of whoever is to act (read as the referee, who sees the game
    live), ``moves`` times or until the end; the state then."""
    game, seats = created["id"], created["tokens"]["seats"]
    referee = auth(created["tokens"]["referee"])
    for _ in range(moves):
        state: dict[str, Any] = api.get(f"/games/{game}", headers=referee).json()
        if state["status"] == "finished":
            return state
        seat = auth(seats[state["to_act"][0]["seat"]])
        move = api.get(f"/games/{game}/legal-moves", headers=seat).json()["moves"][0]["id"]
        reply = api.post(f"/games/{game}/moves", json={"move": move}, headers=seat)
        assert reply.status_code == 200, reply.text
    final: dict[str, Any] = api.get(f"/games/{game}", headers=referee).json()
    return final


def referee_log(api: TestClient[Any], created: dict[str, Any]) -> list[dict[str, Any]]:
    reply = api.get(f"/games/{created['id']}/events", headers=auth(created["tokens"]["referee"]))
    events: list[dict[str, Any]] = reply.json()["events"]
    return events


def test_a_delay_in_moves_shows_spectators_the_game_before_its_last_moves(
    api: TestClient[Any],
) -> None:
    created = create(api, players=2, spectator_delay={"moves": 2})
    play(api, created, 5)
    log = referee_log(api, created)
    moves = [e["version"] for e in log if e["type"] == "MovePlayed"]
    game = created["id"]
    spectator = api.get(f"/games/{game}").json()
    assert spectator["version"] == moves[-2] - 1
    assert (
        spectator["pieces"]
        == api.get(
            f"/games/{game}/state",
            params={"at": moves[-2] - 1},
            headers=auth(created["tokens"]["referee"]),
        ).json()["pieces"]
    )
    for token in [created["tokens"]["referee"], *created["tokens"]["seats"]]:
        assert api.get(f"/games/{game}", headers=auth(token)).json()["version"] == len(log)
    page = api.get(f"/games/{game}/events").json()
    assert page["version"] == moves[-2] - 1
    assert [e["version"] for e in page["events"]] == list(range(1, moves[-2]))
    assert api.get(f"/games/{game}/legal-moves").json()["version"] == moves[-2] - 1
    board = api.get(f"/games/{game}/board.svg", headers=auth(created["tokens"]["seats"][0]))
    assert board.text != api.get(f"/games/{game}/board.svg").text  # a seat's board is live
    assert api.get(f"/games/{game}/board.svg", headers=auth("not-a-token")).status_code == 401


def test_a_spectator_asking_past_the_delay_is_refused_with_the_version_it_sees(
    api: TestClient[Any],
) -> None:
    created = create(api, players=2, spectator_delay={"moves": 1})
    play(api, created, 3)
    game, live = created["id"], len(referee_log(api, created))
    shown = api.get(f"/games/{game}").json()["version"]
    for path, parameter in [("state", "at"), ("board.svg", "at"), ("events", "after")]:
        reply = api.get(f"/games/{game}/{path}", params={parameter: shown + 1})
        assert reply.status_code == 400, (path, reply.text)
        problem = reply.json()
        assert problem["type"].endswith("/out-of-range") and problem["parameter"] == parameter
        assert f"{shown}" in problem["detail"], problem
        assert f"..{live}" not in problem["detail"] and f"version {live}" not in problem["detail"]
    assert api.get(f"/games/{game}/state", params={"at": shown}).status_code == 200
    referee = auth(created["tokens"]["referee"])
    assert api.get(f"/games/{game}/state", params={"at": live}, headers=referee).status_code == 200


def test_a_delay_in_moves_ends_when_the_game_finishes(api: TestClient[Any]) -> None:
    created = create(api, players=2, auto_chance=True, spectator_delay={"moves": 3})
    spectator = api.get(f"/games/{created['id']}").json()
    assert spectator["status"] == "finished"
    assert spectator["version"] == len(referee_log(api, created))
    assert api.get(f"/games/{created['id']}/export").status_code == 200


def test_an_undo_reopening_a_finished_game_never_takes_spectators_back(
    api: TestClient[Any],
) -> None:
    created = create(api, "sorry", players=2, auto_chance=True, spectator_delay={"moves": 3})
    final = play(api, created, 5000)
    assert final["status"] == "finished"
    game, referee = created["id"], auth(created["tokens"]["referee"])
    assert api.get(f"/games/{game}").json()["version"] == final["version"]
    reply = api.post(f"/games/{game}/undo", json={"reason": "misplayed"}, headers=referee)
    assert reply.status_code == 200 and reply.json()["state"]["status"] == "active"
    assert api.get(f"/games/{game}").json()["version"] >= final["version"]
    after = {"after": final["version"]}
    assert api.get(f"/games/{game}/events", params=after).status_code == 200


def test_a_game_finished_within_its_delay_in_seconds_is_running_to_spectators_until_it_passes(
    api: TestClient[Any],
) -> None:
    tags = {"event": "delayed"}
    created = create(api, players=2, auto_chance=True, tags=tags, spectator_delay={"seconds": 1})
    game = created["id"]
    referee = auth(created["tokens"]["referee"])
    assert api.get(f"/games/{game}", headers=referee).json()["status"] == "finished"
    spectator = api.get(f"/games/{game}").json()
    assert (spectator["status"], spectator["version"], spectator["seed"]) == ("active", 1, None)
    (listed,) = api.get("/games", params={"tag": "event:delayed"}).json()["games"]
    assert (listed["status"], listed["winners"], listed["finished_at"]) == ("active", [], None)
    assert listed["version"] == 1
    finished = {"tag": "event:delayed", "status": "finished"}
    assert api.get("/games", params=finished).json()["games"] == []
    assert api.get("/standings", params={"tag": "event:delayed"}).json()["standings"] == []
    assert api.get("/archive", params={"tag": "event:delayed"}).json()["records"] == []
    assert api.get(f"/games/{game}/export").status_code == 403
    assert api.get(f"/games/{game}/audit").status_code == 403
    streamed = read_stream(api, f"/games/{game}/events/stream")  # ends once all are shown
    log = referee_log(api, created)
    ended = datetime.fromisoformat(log[-1]["at"].replace("Z", "+00:00"))
    assert datetime.now(UTC) >= ended + timedelta(seconds=1)
    assert [int(m["id"]) for m in streamed] == [e["version"] for e in log]
    spectator = api.get(f"/games/{game}").json()
    assert spectator["status"] == "finished" and spectator["seed"] is not None
    (listed,) = api.get("/games", params=finished).json()["games"]
    assert listed["winners"] and listed["finished_at"]
    assert len(api.get("/standings", params={"tag": "event:delayed"}).json()["standings"]) == 2
    assert len(api.get("/archive", params={"tag": "event:delayed"}).json()["records"]) == 1
    assert api.get(f"/games/{game}/export").status_code == 200


def test_the_delay_is_in_game_created_and_survives_export_and_import(
    api: TestClient[Any],
) -> None:
    created = create(api, players=2, auto_chance=True, spectator_delay={"seconds": 30})
    record = api.get(
        f"/games/{created['id']}/export", headers=auth(created["tokens"]["referee"])
    ).json()
    assert record["events"][0]["data"]["spectator_delay"] == {"seconds": 30}
    imported = api.post("/games/import", json=record)
    assert imported.status_code == 201, imported.text
    copy = imported.json()
    assert referee_log(api, copy)[0]["data"]["spectator_delay"] == {"seconds": 30}
    assert api.get(f"/games/{copy['id']}").json()["version"] == 1


def test_an_imported_record_with_a_malformed_delay_is_invalid(api: TestClient[Any]) -> None:
    created = create(api, players=2, auto_chance=True)
    record = api.get(f"/games/{created['id']}/export").json()
    record["events"][0]["data"]["spectator_delay"] = {"seconds": 10, "moves": 2}
    reply = api.post("/games/import", json=rehash(record))
    assert reply.status_code == 422, reply.text
    assert reply.json()["type"].endswith("/invalid-record")
    assert "spectator_delay" in reply.json()["detail"]


def test_a_delay_needs_exactly_one_of_seconds_and_moves(api: TestClient[Any]) -> None:
    seats = [{"name": "Ann"}, {"name": "Bob"}]
    for delay, where in [
        ({}, "/spectator_delay"),
        ({"seconds": 5, "moves": 2}, "/spectator_delay"),
        ({"seconds": 0}, "/spectator_delay/seconds"),
        ({"moves": "2"}, "/spectator_delay/moves"),
        ({"minutes": 2}, "/spectator_delay"),
    ]:
        body = {"ruleset": "race35", "seats": seats, "spectator_delay": delay}
        reply = api.post("/games", json=body)
        assert reply.status_code == 400, (delay, reply.text)
        assert reply.json()["pointer"].startswith(where), (delay, reply.json())
    batch = {"games": [{"ruleset": "race35", "seats": seats, "spectator_delay": {}}]}
    reply = api.post("/games/batch", json=batch)
    assert reply.status_code == 400 and reply.json()["detail"].startswith("table 0:")


def test_a_batch_creates_each_table_with_its_delay(api: TestClient[Any]) -> None:
    seats = [{"name": "Ann"}, {"name": "Bob"}]
    delays: list[dict[str, int]] = [{"moves": 4}, {"seconds": 60}]
    tables = [{"ruleset": "race35", "seats": seats, "spectator_delay": d} for d in delays]
    reply = api.post("/games/batch", json={"games": tables})
    assert reply.status_code == 201, reply.text
    for table, delay in zip(reply.json()["games"], delays, strict=True):
        assert referee_log(api, table)[0]["data"]["spectator_delay"] == delay


def test_a_tournament_shows_a_table_s_result_only_once_its_delay_in_seconds_has_passed(
    clocked: TestClient[Any], clock: ManualClock
) -> None:
    api = clocked
    created = tournament(
        api, players=2, rounds=1, seats_per_table=2, spectator_delay={"seconds": 2}
    )
    tid, director = created["id"], auth(created["tokens"]["director"])
    (table,) = pair(api, created)["tables"]
    tokens = {p["name"]: p["token"] for p in created["tokens"]["players"]}
    seats = [tokens[name] for name in table["seats"]]
    game = {
        "id": table["game_id"],
        "tokens": {"referee": created["tokens"]["director"], "seats": seats},
    }
    assert play(api, game, 5000)["status"] == "finished"
    ended = datetime.fromisoformat(referee_log(api, game)[-1]["at"].replace("Z", "+00:00"))
    assert ended == clock()  # the log's times are the service's clock's
    clock.advance(1.9)
    shown = api.get(f"/tournaments/{tid}").json()
    (row,) = shown["rounds"][0]["tables"]
    assert (shown["status"], shown["rounds"][0]["closed"]) == ("active", False)
    assert (row["status"], row["winners"], row["points"]) == ("active", [], {})
    standings = api.get(f"/tournaments/{tid}/standings").json()["standings"]
    assert [(r["wins"], r["points"]) for r in standings] == [(0, 0), (0, 0)]
    assert api.get(f"/tournaments/{tid}/record").status_code == 403
    clock.advance(0.2)

    def recorded() -> dict[str, Any] | None:  # by the results follower's next sweep
        shown: dict[str, Any] = api.get(f"/tournaments/{tid}").json()
        return shown if shown["status"] == "finished" else None

    shown = wait_until(recorded, 5, "the follower never recorded the table's result")
    (row,) = shown["rounds"][0]["tables"]
    assert row["status"] == "finished" and row["winners"]
    standings = api.get(f"/tournaments/{tid}/standings").json()["standings"]
    assert sorted(r["wins"] for r in standings) == [0, 1]
    record = api.get(f"/tournaments/{tid}/record", headers=director)
    assert [g["game_id"] for g in record.json()["games"]] == [table["game_id"]]
    assert api.get(f"/tournaments/{tid}/record").json()["games"] == record.json()["games"]

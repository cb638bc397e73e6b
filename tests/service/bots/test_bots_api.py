"""Bots in the service, end to end against the real app: the levels listed, seats a bot plays
from the start or after a take-over, the driver playing them through the same referee as
anyone, idempotently, and never during an import or a verification."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

import bots
from domain.events import Event
from domain.model import Move
from service.app import bootstrap, create_app, drive_bots
from service.core.actor import SERVER_BOT
from service.core.commands import CreateGame, PlayMove, SeatSpec
from service.settings import Settings
from service.store import open_store
from service.usecases.bots.driver import bot_key
from tests.service.conftest import auth, seed_for_test
from tests.waiting import wait_until


def new_game(api: TestClient[Any], ruleset: str, seats: list[dict[str, Any]], **body: Any) -> Any:
    reply = api.post(
        "/games", json={"ruleset": ruleset, "seats": seats, "seed": seed_for_test(), **body}
    )
    assert reply.status_code == 201, reply.text
    return reply.json()


def finished(api: TestClient[Any], game_id: str) -> dict[str, Any] | None:
    view: dict[str, Any] = api.get(f"/games/{game_id}").json()
    return view if view["status"] == "finished" else None


def events_of(api: TestClient[Any], game_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = api.get(f"/games/{game_id}/events?limit=1000").json()["events"]
    return events


def test_bots_are_listed_weakest_first_with_the_rule_sets_they_play(api: TestClient[Any]) -> None:
    listed = api.get("/bots").json()["bots"]
    assert [b["name"] for b in listed] == [level.name for level in bots.LEVELS]
    assert [b["name"] for b in listed][:3] == ["random", "greedy", "expert"]
    for entry, level in zip(listed, bots.LEVELS, strict=True):
        assert entry["description"] == level.description
        assert entry["rulesets"] == list(level.rulesets)
        assert entry["version"] == level.version
        assert "sorry" in entry["rulesets"]


@pytest.mark.parametrize("ruleset", ["sorry", "race35", "partners"])
def test_a_game_of_bots_plays_to_its_end_on_its_own(api: TestClient[Any], ruleset: str) -> None:
    players = 4 if ruleset == "partners" else 2
    levels = ["random", "greedy", "expert", "random"][:players]
    seats = [{"name": f"Bot {n}", "bot": level} for n, level in enumerate(levels)]
    created = new_game(api, ruleset, seats)
    view = wait_until(lambda: finished(api, created["id"]), 60, "the bots did not finish")
    assert [seat["bot"] for seat in view["seats"]] == levels
    log = events_of(api, created["id"])
    first = log[0]["data"]
    assert first["bots"] == [
        {"seat": n, "level": level, "version": bots.find_level(level).version}
        for n, level in enumerate(levels)
    ]
    acts = [e for e in log if e["type"] in ("MovePlayed", "CardDrawn", "DiceRolled")]
    assert acts and all(e["by"] in ("bot", "server") for e in acts)
    assert any(e["by"] == "bot" for e in acts)
    audit = api.get(f"/games/{created['id']}/audit").json()
    assert audit["verification"]["valid"] is True, audit["verification"]


def test_a_person_plays_against_a_bot_whose_seat_token_cannot_move(api: TestClient[Any]) -> None:
    created = new_game(
        api, "sorry", [{"name": "Ann"}, {"name": "Robin", "bot": "greedy"}], auto_chance=True
    )
    game_id, (ann, robin) = created["id"], created["tokens"]["seats"]
    refused = api.post(f"/games/{game_id}/moves", json={"move": "draw"}, headers=auth(robin))
    assert refused.status_code == 403, refused.text
    assert "played by the bot `greedy`" in refused.json()["detail"]
    for _ in range(3000):
        view = api.get(f"/games/{game_id}").json()
        if view["status"] == "finished":
            break
        if not any(p["seat"] == 0 for p in view["to_act"]):
            wait_until(lambda v=view["version"]: api.get(f"/games/{game_id}").json()["version"] > v)
            continue
        legal = api.get(f"/games/{game_id}/legal-moves", headers=auth(ann)).json()
        body = {"move": legal["moves"][0]["id"], "expected_version": legal["version"]}
        reply = api.post(f"/games/{game_id}/moves", json=body, headers=auth(ann))
        assert reply.status_code in (200, 409), reply.text
    assert api.get(f"/games/{game_id}").json()["status"] == "finished"
    log = events_of(api, game_id)
    assert {e["by"] for e in log if e["type"] == "MovePlayed" and e["data"]["seat"] == 1} <= {
        "bot",
        "server",
    }
    assert {e["by"] for e in log if e["type"] == "MovePlayed" and e["data"]["seat"] == 0} <= {
        0,
        "server",
    }
    pending = api.post(f"/games/{game_id}/moves", json={"move": "draw"}, headers=auth(robin))
    assert pending.status_code == 409  # finished: whoever asks


def test_a_bot_move_the_rules_refuse_is_refused_and_nothing_is_stored(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cheat(*args: Any, **kwargs: Any) -> str:
        return "sorry:red-1:home"  # no such move: decide refuses it as it would anyone's

    monkeypatch.setattr(bots, "choose", cheat)
    cases = bootstrap(open_store(settings.database, settings.synchronous))
    driver = drive_bots(cases)  # not started: played by hand below
    seats = [SeatSpec("Robin", "random"), SeatSpec("Ann")]
    created = cases.commands.create(CreateGame("sorry", seats, seed="cheat", auto_chance=True))
    assert driver.play(created.id) is False
    assert cases.store.version(created.id) == created.version
    cases.store.close()


def test_a_bot_move_is_appended_once_across_a_retry_and_a_second_process(
    settings: Settings,
) -> None:
    store = open_store(settings.database, settings.synchronous)
    first, second = bootstrap(store), bootstrap(store)  # two repositories: two processes' views
    seats = [SeatSpec("Robin", "random"), SeatSpec("Ann")]
    created = first.commands.create(CreateGame("sorry", seats, seed="twice"))
    command = PlayMove(move="draw", seat=0, expected_version=created.version)
    key = bot_key(created.id, created.version, 0)
    appended = first.commands.play(created.id, SERVER_BOT, command, key)
    again = first.commands.play(created.id, SERVER_BOT, command, key)
    elsewhere = second.commands.play(created.id, SERVER_BOT, command, key)
    assert [e.version for e in appended] == [e.version for e in again]
    assert [e.hash for e in elsewhere] == [e.hash for e in appended]
    assert store.version(created.id) == appended[-1].version
    assert appended[0].by == "bot"
    store.close()


def test_a_second_driver_on_the_same_store_appends_nothing_twice(settings: Settings) -> None:
    store = open_store(settings.database, settings.synchronous)
    first, second = bootstrap(store), bootstrap(store)
    seats = [SeatSpec("Robin", "random"), SeatSpec("Ann")]
    created = first.commands.create(CreateGame("sorry", seats, seed="race"))
    mine, theirs = drive_bots(first), drive_bots(second)
    turn = theirs.turn(created.id)  # the other process decides on the version it read
    assert mine.play(created.id) is True
    assert turn is not None
    move = PlayMove(move=turn.moves[0].id, seat=turn.seat, expected_version=turn.version)
    key = bot_key(created.id, turn.version, 0)
    replayed = second.commands.play(created.id, SERVER_BOT, move, key)
    assert store.version(created.id) == replayed[-1].version  # the same append, not a second
    assert [e.type for e in store.read(created.id)].count("CardDrawn") == 1
    store.close()


def test_unknown_levels_and_rule_sets_a_bot_does_not_play_are_refused_naming_the_field(
    api: TestClient[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    base = {"ruleset": "sorry", "seats": [{"name": "Ann"}, {"name": "Robin", "bot": "nobody"}]}
    reply = api.post("/games", json=base)
    assert reply.status_code == 400
    problem = reply.json()
    assert problem["type"].endswith("/unknown-bot") and problem["pointer"] == "/seats/1/bot"
    assert "random" in problem["detail"] and problem["allowed"][:3] == [
        "random",
        "greedy",
        "expert",
    ]
    batch = api.post("/games/batch", json={"games": [base]})
    assert batch.status_code == 400 and batch.json()["pointer"] == "/games/0/seats/1/bot"
    clock = {"per_decision": 5, "on_timeout": "bot:nobody"}
    timed = api.post(
        "/games", json={**base, "seats": [{"name": "A"}, {"name": "B"}], "clock": clock}
    )
    assert timed.status_code == 400 and timed.json()["pointer"] == "/clock/on_timeout"
    players = [{"name": "Ann"}, {"name": "Bob", "bot": "nobody"}]
    tour = api.post("/tournaments", json={"name": "T", "ruleset": "sorry", "players": players})
    assert tour.status_code == 400 and tour.json()["pointer"] == "/players/1/bot"

    real = bots.find_level

    def picky(name: str) -> bots.Level:
        if name == "picky":
            return bots.Level("picky", "plays sorry only", 1, ("sorry",))
        return real(name)

    monkeypatch.setattr(bots, "find_level", picky)
    seats = [{"name": "Ann"}, {"name": "Robin", "bot": "picky"}]
    refused = api.post("/games", json={"ruleset": "race35", "seats": seats})
    assert refused.status_code == 422, refused.text
    assert refused.json()["pointer"] == "/seats/1/bot"
    assert "does not play `race35`" in refused.json()["detail"]
    assert api.post("/games", json={"ruleset": "sorry", "seats": seats}).status_code == 201


def test_the_referee_hands_a_seat_to_a_bot_and_back(api: TestClient[Any]) -> None:
    created = new_game(api, "sorry", [{"name": "Ann"}, {"name": "Bob"}], auto_chance=True)
    game_id, referee = created["id"], created["tokens"]["referee"]
    ann, bob = created["tokens"]["seats"]
    path = f"/games/{game_id}/seats/1/bot"
    assert api.post(path, json={"bot": "greedy"}, headers=auth(bob)).status_code == 403
    unknown = api.post(path, json={"bot": "nobody"}, headers=auth(referee))
    assert unknown.status_code == 400 and unknown.json()["pointer"] == "/bot"
    handed = api.post(path, json={"bot": "greedy", "reason": "Bob left"}, headers=auth(referee))
    assert handed.status_code == 200, handed.text
    event = handed.json()["events"][0]
    assert (event["type"], event["by"]) == ("SeatHandedOver", "referee")
    assert event["data"] == {"seat": 1, "bot": "greedy", "version": 1, "reason": "Bob left"}
    assert api.get(f"/games/{game_id}").json()["seats"][1]["bot"] == "greedy"
    # Ann plays; whenever Bob's seat is pending, the bot plays it.
    for _ in range(6):
        view = api.get(f"/games/{game_id}").json()
        if any(p["seat"] == 0 for p in view["to_act"]):
            legal = api.get(f"/games/{game_id}/legal-moves", headers=auth(ann)).json()
            body = {"move": legal["moves"][0]["id"], "expected_version": legal["version"]}
            api.post(f"/games/{game_id}/moves", json=body, headers=auth(ann))
        wait_until(
            lambda: any(p["seat"] == 0 for p in api.get(f"/games/{game_id}").json()["to_act"])
        )
    log = events_of(api, game_id)
    assert any(e["by"] == "bot" and e["data"].get("seat") == 1 for e in log)
    refused = api.post(
        f"/games/{game_id}/moves", json={"move": "draw", "seat": 1}, headers=auth(bob)
    )
    assert refused.status_code == 403
    back = api.delete(path, headers=auth(referee))
    assert back.status_code == 200, back.text
    assert back.json()["events"][0]["data"] == {
        "seat": 1,
        "bot": "",
        "version": 0,
        "reason": "handed back",
    }
    assert api.get(f"/games/{game_id}").json()["seats"][1]["bot"] is None
    assert api.delete(path, headers=auth(referee)).status_code == 409  # nothing to hand back
    version = api.get(f"/games/{game_id}").json()["version"]
    while not any(p["seat"] == 1 for p in api.get(f"/games/{game_id}").json()["to_act"]):
        legal = api.get(f"/games/{game_id}/legal-moves", headers=auth(ann)).json()
        body = {"move": legal["moves"][0]["id"], "expected_version": legal["version"]}
        assert api.post(f"/games/{game_id}/moves", json=body, headers=auth(ann)).status_code == 200
    legal = api.get(f"/games/{game_id}/legal-moves", headers=auth(bob)).json()
    assert legal["version"] >= version
    body = {"move": legal["moves"][0]["id"], "expected_version": legal["version"]}
    moved = api.post(f"/games/{game_id}/moves", json=body, headers=auth(bob))
    assert moved.status_code == 200 and moved.json()["events"][0]["by"] == 1
    audit = api.get(f"/games/{game_id}/audit", headers=auth(referee)).json()
    assert audit["verification"]["valid"] is True, audit["verification"]


def test_a_seat_out_of_time_is_handed_to_a_bot_that_plays_it(api: TestClient[Any]) -> None:
    clock = {"per_decision": 0.3, "on_timeout": "bot:random"}
    created = new_game(api, "sorry", [{"name": "Ann"}, {"name": "Bob"}], clock=clock)
    game_id = created["id"]

    def handed() -> list[dict[str, Any]]:
        return [e for e in events_of(api, game_id) if e["type"] == "SeatHandedOver"]

    first = wait_until(handed, 10, "no seat was handed to a bot")[0]
    assert first["by"] == "server" and first["data"]["bot"] == "random"
    log = events_of(api, game_id)
    expired = [e for e in log if e["type"] == "TimeExpired"]
    assert expired[0]["data"]["consequence"] == "bot:random"
    wait_until(lambda: len(handed()) == 2, 10, "the second seat was not handed over")
    wait_until(lambda: finished(api, game_id), 60, "the bots did not finish the game")
    assert api.get(f"/games/{game_id}/audit").json()["verification"]["valid"] is True


def test_import_and_verification_never_run_the_bot(
    api: TestClient[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    seats = [{"name": "Robin", "bot": "random"}, {"name": "Ann", "bot": "greedy"}]
    created = new_game(api, "sorry", seats)
    wait_until(lambda: finished(api, created["id"]), 60, "the bots did not finish")
    record = api.get(f"/games/{created['id']}/export").json()

    def forbidden(
        level: str,
        ruleset: str,
        ruleset_version: int,
        seat: int,
        seen: list[Event],
        moves: list[Move],
        seed: int,
    ) -> str:
        raise AssertionError("a bot was asked to choose")

    monkeypatch.setattr(bots, "choose", forbidden)
    imported = api.post("/games/import", json=record)
    assert imported.status_code == 201, imported.text
    audit = api.get(f"/games/{imported.json()['id']}/audit").json()
    assert audit["verification"]["valid"] is True
    assert [e["by"] for e in audit["events"]] == [e["by"] for e in record["events"]]


def test_a_restarted_service_plays_the_games_its_bots_were_to_move(settings: Settings) -> None:
    store = open_store(settings.database, settings.synchronous)
    cases = bootstrap(store)  # no driver: as if the process had stopped after creating it
    seats = [SeatSpec("Robin", "random"), SeatSpec("Rob", "greedy")]
    created = cases.commands.create(CreateGame("sorry", seats, seed="restart"))
    store.close()
    with TestClient(create_app(settings)) as api:
        wait_until(lambda: finished(api, created.id), 60, "the restarted service did not play")


def test_a_tournament_seats_bot_players_at_its_tables(api: TestClient[Any]) -> None:
    players = [
        {"name": "Ann"},
        {"name": "Bob"},
        {"name": "Robin", "bot": "greedy"},
        {"name": "Rex", "bot": "random"},
    ]
    body = {"name": "Club", "ruleset": "sorry", "players": players, "seats_per_table": 4}
    created = api.post("/tournaments", json=body)
    assert created.status_code == 201, created.text
    director = created.json()["tokens"]["director"]
    paired = api.post(
        f"/tournaments/{created.json()['id']}/rounds", json={}, headers=auth(director)
    )
    assert paired.status_code in (200, 201), paired.text
    table = paired.json()["round"]["tables"][0]
    view = api.get(f"/games/{table['game_id']}").json()
    by_name = {seat["name"]: seat["bot"] for seat in view["seats"]}
    assert by_name == {"Ann": None, "Bob": None, "Robin": "greedy", "Rex": "random"}
    # Bob does not come: the director (the tables' referee) gives his seat to a bot.
    bob = table["seats"].index("Bob")
    path = f"/games/{table['game_id']}/seats/{bob}/bot"
    handed = api.post(path, json={"bot": "random", "reason": "no show"}, headers=auth(director))
    assert handed.status_code == 200, handed.text
    assert api.get(f"/games/{table['game_id']}").json()["seats"][bob]["bot"] == "random"


def test_bot_seats_are_on_no_clock(settings: Settings, tmp_path: Path) -> None:
    with TestClient(create_app(settings)) as api:
        clock = {"per_decision": 30}
        seats = [{"name": "Ann"}, {"name": "Robin", "bot": "random"}]
        created = new_game(api, "sorry", seats, clock=clock)
        view = api.get(f"/games/{created['id']}").json()
        assert view["clock"]["remaining"][0] is not None
        assert "1" not in view["clock"]["deadlines"]


def test_a_bot_is_given_what_its_seat_token_reads_and_nothing_more(
    api: TestClient[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[int, list[Event]]] = []
    real = bots.choose

    def watched(
        level: str,
        ruleset: str,
        ruleset_version: int,
        seat: int,
        seen: list[Event],
        moves: list[Move],
        seed: int,
    ) -> str:
        asked.append((seat, list(seen)))
        return real(level, ruleset, ruleset_version, seat, seen, moves, seed)

    monkeypatch.setattr(bots, "choose", watched)
    seats = [{"name": "Ann"}, {"name": "Robin", "bot": "random"}]
    created = new_game(api, "sorry-hand", seats, auto_chance=True)
    game_id, ann = created["id"], created["tokens"]["seats"][0]
    robin = created["tokens"]["seats"][1]
    for _ in range(40):  # Ann plays, and the bot whenever its seat is pending
        view = api.get(f"/games/{game_id}").json()
        if view["status"] == "finished":
            break
        if any(p["seat"] == 0 for p in view["to_act"]):
            legal = api.get(f"/games/{game_id}/legal-moves", headers=auth(ann)).json()
            body = {"move": legal["moves"][0]["id"], "expected_version": legal["version"]}
            api.post(f"/games/{game_id}/moves", json=body, headers=auth(ann))
        else:
            wait_until(lambda v=view["version"]: api.get(f"/games/{game_id}").json()["version"] > v)
    assert len(asked) > 3
    log = api.get(f"/games/{game_id}/events?limit=1000", headers=auth(robin)).json()["events"]
    for seat, seen in asked:
        assert seat == 1
        shown = [{"type": e["type"], **e["data"]} for e in log[: len(seen)]]
        assert [msgspec.json.decode(msgspec.json.encode(event)) for event in seen] == shown
        assert not any(type(event).__name__ == "SeedRevealed" for event in seen)


def test_a_running_driver_takes_up_games_another_process_left(settings: Settings) -> None:
    store = open_store(settings.database, settings.synchronous)
    gone, alive = bootstrap(store), bootstrap(store)  # ``gone`` has no driver: it stopped
    driver = drive_bots(alive, resume_every=0.1)
    driver.start()
    try:
        seats = [SeatSpec("Robin", "random"), SeatSpec("Rex", "greedy")]
        created = gone.commands.create(CreateGame("sorry", seats, seed="left behind"))
        wait_until(
            lambda: store.read(created.id)[-1].type == "SeedRevealed",
            60,
            "the running driver never took the game up",
        )
    finally:
        driver.stop()
        store.close()

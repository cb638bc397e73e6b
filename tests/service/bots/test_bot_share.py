"""The bots' thinking shared fairly between owners: one client address's many games with bots
never hold back another's one (served owner by owner), and an address has at most
``max_bot_games_per_client`` of them running (429 at creation or hand-over beyond it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from service.app import bootstrap, create_app, drive_bots
from service.core.commands import CreateGame, SeatSpec
from service.settings import Settings
from service.store import open_store
from service.usecases.bots.driver import BotDriver
from tests.service.conftest import auth
from tests.waiting import wait_until

BURST, PERSON = "10.0.0.1", "10.0.0.2"
CAP = 2


def all_bots(ruleset: str = "partners") -> CreateGame:
    """A game every seat of which an expert bot plays (what a creation burst is made of)."""
    return CreateGame(ruleset, [SeatSpec(f"Bot {n}", "expert") for n in range(4)])


def against_a_bot() -> CreateGame:
    """A person's game against an expert bot, the bot to move first."""
    return CreateGame("sorry", [SeatSpec("Robin", "expert"), SeatSpec("Ann")], auto_chance=True)


def served_in_order(
    driver: BotDriver,
    monkeypatch: pytest.MonkeyPatch,
    decisions: int,
    meanwhile: Callable[[int], object] = lambda served: None,
) -> list[str]:
    """The games the driver's worker loop takes, in order, for ``decisions`` decisions (each
    one's commit pokes its game again, as a real move's does; ``meanwhile`` is told how many
    were served after each); played on this thread."""
    served: list[str] = []

    def play(game_id: str) -> bool:
        served.append(game_id)
        driver.queue(game_id)  # the bot's move is committed: the game's next decision is due
        meanwhile(len(served))
        if len(served) == decisions:
            driver.stop()
        return True

    monkeypatch.setattr(driver, "play", play)
    driver.run()
    return served


def test_one_addresss_many_bot_games_do_not_hold_back_another_addresss_one(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = bootstrap(open_store(settings.database, settings.synchronous))
    driver = drive_bots(cases, workers=0)  # no threads: its loop is run by hand below
    burst = [cases.commands.create(all_bots(), owner=BURST).id for _ in range(6)]
    person = cases.commands.create(against_a_bot(), owner=PERSON).id
    served = served_in_order(driver, monkeypatch, 8)
    # the person's game comes after at most one decision of the other address, every time
    assert served == [burst[0], person, burst[1], person, burst[2], person, burst[3], person]
    cases.store.close()


def test_a_game_due_later_is_served_after_one_decision_of_each_other_address(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = bootstrap(open_store(settings.database, settings.synchronous))
    driver = drive_bots(cases, workers=0)
    first = [cases.commands.create(all_bots(), owner="10.0.0.3").id for _ in range(3)]
    second = [cases.commands.create(all_bots("sorry"), owner="10.0.0.4").id for _ in range(3)]
    person: list[str] = []

    def arrives(served: int) -> None:
        if served == 2:  # the person's game is created while both bursts are being played
            person.append(cases.commands.create(against_a_bot(), owner=PERSON).id)

    served = served_in_order(driver, monkeypatch, 5, arrives)
    assert served == [first[0], second[0], first[1], second[1], person[0]]
    cases.store.close()


@pytest.fixture
def capped(tmp_path: Path) -> Any:
    settings = Settings(
        database=str(tmp_path / "capped.db"), log_level="warning", max_bot_games_per_client=CAP
    )
    with TestClient(create_app(settings)) as client:
        yield client


def person_and_bot(api: TestClient[Any], **body: Any) -> Any:
    """POST /games of a person (who moves first) against a greedy bot."""
    seats = [{"name": "Ann"}, {"name": "Robin", "bot": "greedy"}]
    return api.post("/games", json={"ruleset": "sorry", "seats": seats, **body})


def test_games_with_bots_over_an_addresss_cap_are_refused_until_one_finishes(
    capped: TestClient[Any],
) -> None:
    api = capped
    games = [person_and_bot(api).json() for _ in range(CAP)]
    assert all("id" in game for game in games)
    refused = person_and_bot(api)
    assert refused.status_code == 429, refused.text
    problem = refused.json()
    assert problem["type"].endswith("/rate-limited")
    assert "TABULA_MAX_BOT_GAMES_PER_CLIENT" in problem["detail"]
    assert f"at most {CAP}" in problem["detail"]
    assert int(refused.headers["Retry-After"]) >= 1
    batch = {
        "games": [{"ruleset": "sorry", "seats": [{"name": "A"}, {"name": "B", "bot": "random"}]}]
    }
    assert api.post("/games/batch", json=batch).status_code == 429
    clock = {"per_decision": 60, "on_timeout": "bot:greedy"}
    assert person_and_bot(api, clock=clock).status_code == 429
    # a game of people is no bot game: created, but no seat of it handed to a bot
    people = api.post("/games", json={"ruleset": "sorry", "seats": [{}, {}]}).json()
    referee = auth(people["tokens"]["referee"])
    handed = api.post(f"/games/{people['id']}/seats/1/bot", json={"bot": "greedy"}, headers=referee)
    assert handed.status_code == 429, handed.text
    # a forfeit ends one of the games: its place is free again
    ended = api.post(
        f"/games/{games[0]['id']}/adjudicate",
        json={"kind": "forfeit", "seat": 0, "reason": "left"},
        headers=auth(games[0]["tokens"]["referee"]),
    )
    assert ended.status_code == 200, ended.text
    again = wait_until(lambda: person_and_bot(api).status_code == 201, 10, "no place came free")
    assert again

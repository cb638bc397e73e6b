"""Games' summaries end to end: listings paged in SQL, filters, standings and archives from
the summaries, their rebuild from the logs, and a database of the previous schema."""

from __future__ import annotations

import base64
import random
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest
from litestar.testing import TestClient

from eventstore import GENESIS, EventStore, SqliteEventStore, Summarised, SummaryQuery, chain_hash
from service.app import create_app
from service.settings import Settings
from service.usecases.games.listings import standings
from service.usecases.games.repository import Repository
from service.usecases.replies import GameSummary
from service.usecases.writer import Writer
from tests.postgres import postgres_schema
from tests.previous_schema import copied, write_postgres, write_sqlite
from tests.service.conftest import auth, create
from tests.service.games.test_undo import decide_once, undo

RULESETS = ["sorry", "ludo", "parchis", "partners", "race35", "sorry-hand"]
NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"]


def pages(api: TestClient[Any], first: str) -> Iterator[dict[str, Any]]:
    """Each page of a listing from its first URL, following ``next`` (checked against the
    ``Link`` header)."""
    url: str | None = first
    while url is not None:
        reply = api.get(url)
        assert reply.status_code == 200, reply.text
        page = reply.json()
        link = reply.headers.get("link")
        assert link == (None if page["next"] is None else f'<{page["next"]}>; rel="next"')
        yield page
        url = page["next"]


def listed(api: TestClient[Any], first: str) -> list[str]:
    return [game["id"] for page in pages(api, first) for game in page["games"]]


def make_games(api: TestClient[Any], count: int, **tags: str) -> list[str]:
    made = []
    for n in range(count):
        body = {"tags": {**tags, "n": str(n)}, "auto_chance": True}
        made.append(create(api, RULESETS[n % 3], players=2, **body)["id"])
    return made


def test_pages_list_every_game_once_oldest_first(api: TestClient[Any]) -> None:
    made = make_games(api, 11, cup="a")
    found = list(pages(api, "/games?limit=3&tag=cup:a"))
    assert [len(page["games"]) for page in found] == [3, 3, 3, 2]
    assert [g["id"] for page in found for g in page["games"]] == made
    path, _, query = found[0]["next"].partition("?")
    assert path == "/games" and {k for k, _ in parse_qsl(query)} == {"limit", "tag", "cursor"}
    assert listed(api, "/games?limit=11") == made and listed(api, "/games") == made
    ndjson = api.get("/games?limit=4&format=ndjson")
    assert len(ndjson.text.splitlines()) == 4
    assert 'rel="next"' in ndjson.headers["link"] and "format=ndjson" in ndjson.headers["link"]


def test_games_created_while_paging_never_make_a_game_listed_twice(
    api: TestClient[Any],
) -> None:
    before = make_games(api, 12)
    stop = threading.Event()
    added: list[str] = []

    def creating() -> None:
        while not stop.is_set() and len(added) < 40:
            added.append(create(api, "race35", players=2)["id"])

    thread = threading.Thread(target=creating)
    thread.start()
    try:
        found = listed(api, "/games?limit=2")
    finally:
        stop.set()
        thread.join()
    assert len(found) == len(set(found))
    assert found[: len(before)] == before  # every game there before, once, in order
    assert set(found) - set(before) <= set(added)
    assert listed(api, "/games?limit=5") == before + added


def test_filters_by_status_rule_set_and_tag(api: TestClient[Any]) -> None:
    made = make_games(api, 6, cup="b")
    ended = create(api, "ludo", players=2, tags={"cup": "b"})
    agreement = {"kind": "agreement", "reason": "draw", "winners": [1]}
    reply = api.post(
        f"/games/{ended['id']}/adjudicate", json=agreement, headers=auth(ended["tokens"]["referee"])
    )
    assert reply.status_code == 200
    [finished] = api.get("/games?status=finished").json()["games"]
    assert finished["id"] == ended["id"] and finished["winners"] == ["P1"]
    assert finished["finished_at"] == reply.json()["events"][-1]["at"]
    assert finished["version"] == reply.json()["version"]
    active = api.get("/games?status=active&tag=cup:b").json()["games"]
    assert [g["id"] for g in active] == made
    assert all(g["finished_at"] is None and g["winners"] == [] for g in active)
    assert listed(api, "/games?ruleset=ludo") == [made[1], made[4], ended["id"]]
    assert listed(api, "/games?tag=n:3") == [made[3]]
    assert listed(api, "/games?tag=b") == [*made, ended["id"]]  # a bare word: a key or value
    assert listed(api, "/games?tag=cup:c") == []


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("cursor=nonsense", "cursor"),
        ("cursor=WyJhIl0", "cursor"),  # base64 of a JSON list of one string
        ("limit=0", "limit"),
        ("limit=1001", "limit"),
        ("status=paused", "status"),
    ],
)
def test_a_bad_page_or_filter_is_400_naming_the_parameter(
    api: TestClient[Any], query: str, parameter: str
) -> None:
    reply = api.get(f"/games?{query}")
    assert reply.status_code == 400, reply.text
    assert reply.json()["parameter"] == parameter


def test_a_games_version_in_the_list_follows_its_moves(api: TestClient[Any]) -> None:
    created = create(api, "sorry", players=2, auto_chance=True)
    played = decide_once(api, created, random.Random(1))
    [game] = api.get("/games").json()["games"]
    assert game["version"] == played["version"] > 1 and game["status"] == "active"


# summaries against the logs


def play_season(api: TestClient[Any], rng: random.Random, tables: int) -> list[dict[str, Any]]:
    """Games of several rule sets, some left running, some finished by agreement or forfeit,
    some of those reopened by an undo and some finished again, one race35 to its end."""
    made = []
    for n in range(tables):
        ruleset = RULESETS[n % len(RULESETS)]
        players = 4 if ruleset == "partners" else rng.choice([2, 3])
        names = rng.sample(NAMES, players)
        body = {
            "ruleset": ruleset,
            "seats": [{"name": name} for name in names],
            "tags": {"season": "s1", "round": str(n % 3)},
            "auto_chance": True,
            "seed": f"season-{n}",
        }
        created = api.post("/games", json=body).json()
        made.append(created)
        referee = auth(created["tokens"]["referee"])
        path = f"/games/{created['id']}"
        if ruleset == "race35":  # it plays itself to its end at once
            continue
        for _ in range(rng.randrange(1, 6)):
            decide_once(api, created, rng)
        fate = rng.choice(["running", "agreement", "forfeit", "reopened", "again"])
        if fate == "running":
            continue
        seat = rng.randrange(players)
        if fate == "agreement":
            ending = {"kind": "agreement", "reason": "tea", "winners": [seat]}
        else:
            ending = {"kind": "forfeit", "reason": "left", "seat": seat}
        if ruleset == "partners" and fate != "agreement":
            ending = {"kind": "agreement", "reason": "tea", "winners": [seat % 2, seat % 2 + 2]}
        reply = api.post(f"{path}/adjudicate", json=ending, headers=referee)
        assert reply.status_code == 200, reply.text
        if fate in ("reopened", "again"):
            reopened = undo(api, created)
            assert reopened.status_code == 200, reopened.text
            assert reopened.json()["state"]["status"] == "active"
        if fate == "again":
            decide_once(api, created, rng)
            again = {"kind": "agreement", "reason": "late", "winners": []}
            assert api.post(f"{path}/adjudicate", json=again, headers=referee).status_code == 200
    return made


def kept(store: EventStore) -> list[Summarised]:
    return store.summaries(SummaryQuery(limit=100_000))


def has_tag(tags: dict[str, str], wanted: str) -> bool:
    key, _, value = wanted.partition(":")
    return tags.get(key) == value


def results_from_logs(store: EventStore, tag: str) -> list[GameSummary]:
    """Each finished game with ``tag``, folded from its log (as listings were made before
    summaries)."""
    games, found = Repository(Writer(store)), []
    for info in store.streams():
        if not has_tag(info.meta.get("tags", {}), tag):
            continue
        with games.game(info.stream_id, keep=False) as game:
            if not game.finished:
                continue
            names, state = list(game.created.seats), game.replay.state
            home = dict.fromkeys(names, 0)
            for seat, count in game.rules.finished(state).items():
                home[names[seat]] += count
            winners = [names[s] for s in game.rules.view(state, None).winners]
        found.append(GameSummary(info.stream_id, "", "finished", 0, names, "", {}, winners, home))
    return found


def test_rebuilt_summaries_equal_the_kept_ones_and_standings_equal_the_logs(
    api: TestClient[Any], settings: Settings
) -> None:
    made = play_season(api, random.Random(18), 24)
    store = SqliteEventStore(settings.database)
    try:
        before = kept(store)
        assert [row.stream_id for row in before] == [g["id"] for g in made]
        statuses = {row.summary.status for row in before}
        assert statuses == {"active", "finished"}
        reopened = [
            r for r in before if r.summary.status == "active" and r.updated_at > r.created_at
        ]
        assert reopened, "no game was reopened by an undo"
        for tag in ("season:s1", "round:1", "round:2"):
            expected = standings(tag, results_from_logs(store, tag))
            assert api.get("/standings", params={"tag": tag}).json() == {
                "tag": tag,
                "standings": [vars_of(s) for s in expected.standings],
            }
        done = subprocess.run(
            [sys.executable, "-m", "service", "rebuild-summaries", "--database", settings.database],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert f"{len(made)} games and tournaments summarised" in done.stdout
        assert kept(store) == before
    finally:
        store.close()


def vars_of(standing: Any) -> dict[str, Any]:
    return {name: getattr(standing, name) for name in standing.__struct_fields__}


def test_archive_holds_the_finished_games_of_a_tag(api: TestClient[Any]) -> None:
    ended, running = (create(api, "ludo", players=2, tags={"cup": "z"}) for _ in range(2))
    forfeit = {"kind": "forfeit", "reason": "left", "seat": 0}
    referee = auth(ended["tokens"]["referee"])
    assert api.post(f"/games/{ended['id']}/adjudicate", json=forfeit, headers=referee).is_success
    archive = api.get("/archive", params={"tag": "cup:z"}).json()
    assert [r["game_id"] for r in archive["records"]] == [ended["id"]]
    assert running["id"] not in str(archive)


# a database of the previous schema


def season_on(settings: Settings) -> list[dict[str, Any]]:
    """A few games played on a fresh app; its listing."""
    with TestClient(create_app(settings)) as api:
        play_season(api, random.Random(3), 8)
        return list(api.get("/games").json()["games"])


def test_a_database_of_the_previous_schema_lists_every_game(tmp_path: Path) -> None:
    scratch = Settings(database=str(tmp_path / "scratch.db"), log_level="warning")
    listing = season_on(scratch)
    store = SqliteEventStore(scratch.database)
    streams = copied(store)
    store.close()
    old = tmp_path / "old.db"
    write_sqlite(old, streams)
    with TestClient(create_app(Settings(database=str(old), log_level="warning"))) as api:
        assert api.get("/games").json()["games"] == listing
        assert {g["status"] for g in listing} == {"active", "finished"}


@pytest.mark.postgres
def test_a_postgres_database_of_the_previous_schema_lists_every_game(tmp_path: Path) -> None:
    scratch = Settings(database=str(tmp_path / "scratch.db"), log_level="warning")
    listing = season_on(scratch)
    store = SqliteEventStore(scratch.database)
    streams = copied(store)
    store.close()
    with postgres_schema("previous") as url:
        write_postgres(url, streams)
        settings = Settings(database_url=url, log_level="warning")
        with TestClient(create_app(settings)) as api:
            assert api.get("/games").json()["games"] == listing


def test_a_nul_character_in_a_tag_or_filter_is_400(api: TestClient[Any]) -> None:
    body = {"ruleset": "race35", "seats": [{"name": "A"}, {"name": "B"}], "tags": {"k": "a\0b"}}
    created = api.post("/games", json=body)
    assert created.status_code == 400 and created.json()["pointer"] == "/tags/k"
    for route, parameter in [("/games", "tag"), ("/games", "ruleset"), ("/standings", "tag")]:
        reply = api.get(route, params={parameter: "a\0b"})
        assert reply.status_code == 400 and reply.json()["parameter"] == parameter
    archive = api.get("/archive", params={"tag": "k:\0"})
    assert archive.status_code == 400 and archive.json()["parameter"] == "tag"
    cursor = base64.urlsafe_b64encode(b'["2025-01-01","\\u0000"]').decode()
    assert api.get("/games", params={"cursor": cursor}).json()["parameter"] == "cursor"


def test_an_imported_record_with_a_nul_in_a_tag_is_refused(api: TestClient[Any]) -> None:
    created = create(api, "race35", players=2, auto_chance=True, tags={"k": "v"})
    record = api.get(f"/games/{created['id']}/export").json()
    record["events"][0]["data"]["tags"] = {"k": "a\0b"}
    previous = GENESIS
    for event in record["events"]:  # a chain that holds, so that the tag is what is refused
        fields = {name: event[name] for name in ("version", "type", "data", "by", "at")}
        event["prev_hash"] = previous
        event["hash"] = previous = chain_hash(previous, {"stream_id": record["game_id"], **fields})
    reply = api.post("/games/import", json=record)
    assert reply.status_code == 422, reply.text
    assert reply.json()["first_bad_event"] == 1 and "NUL" in reply.json()["detail"]

"""``GET /games/{id}/analysis`` shared between callers: one analysis under way per client
address (``analyses_per_client``), a referee asking at every move holding one, analyses taking
turns on the workers, and a running game's analysis going on from its last version."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient
from litestar.types import ASGIApp, Receive, Scope, Send

from analysis import game as game_module
from analysis import model as analysis_model
from analysis.game import analyse, started
from domain.events import parse_event
from service.app import create_app
from service.settings import Settings
from service.store import open_store
from service.usecases.analysis import analyses
from service.usecases.analysis import store as analysis_store
from tests.service.conftest import auth, create
from tests.service.live.test_spectator_delay import play
from tests.waiting import wait_until

REFEREE, OTHER = {"X-Test-Client": "10.0.0.1"}, {"X-Test-Client": "10.0.0.2"}


def addressed(app: ASGIApp) -> ASGIApp:
    """The app, with each request's client address taken from its ``X-Test-Client`` header
    (the test client's is always ``testclient``)."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        given = dict(scope.get("headers", [])).get(b"x-test-client")
        if given:  # an HTTP or WebSocket request (the lifespan has no headers)
            scope["client"] = (given.decode(), 50000)
        await app(scope, receive, send)

    return wrapped


@pytest.fixture
def app(settings: Settings) -> Any:
    return create_app(settings)


@pytest.fixture
def api(app: Any) -> Iterator[TestClient[Any]]:
    with TestClient(addressed(app)) as client:
        yield client


@pytest.fixture
def gate(app: Any) -> Iterator[threading.Event]:
    """Holds the analyses' one worker until set, so that what is asked meanwhile waits."""
    opened = threading.Event()
    app.dependencies["analyses"].dependency().pool.submit(opened.wait, 30)
    yield opened
    opened.set()


def ended(api: TestClient[Any], moves: int) -> dict[str, Any]:
    """A game played ``moves`` moves, then ended by the referee (an agreement): a short
    finished game."""
    created = create(api, players=2)
    play(api, created, moves)
    ending = {"kind": "agreement", "reason": "agreed", "winners": [0]}
    path = f"/games/{created['id']}/adjudicate"
    reply = api.post(path, json=ending, headers=auth(created["tokens"]["referee"]))
    assert reply.status_code == 200, reply.text
    return created


def ask(api: TestClient[Any], game: str, *headers: dict[str, str]) -> Any:
    """One request for a game's analysis, with the headers given merged."""
    return api.get(f"/games/{game}/analysis", headers={k: v for h in headers for k, v in h.items()})


def finished(api: TestClient[Any], game: str, *headers: dict[str, str]) -> Any:
    """The reply once the analysis is no longer under way (polling through the 202s)."""

    def done() -> Any:
        reply = ask(api, game, *headers)
        return reply if reply.status_code != 202 else None

    return wait_until(done, timeout=30, message="the analysis did not finish")


def test_a_referee_asking_at_every_move_holds_one_share_and_others_are_served(
    api: TestClient[Any], gate: threading.Event
) -> None:
    mine = ended(api, 10)
    running = create(api, players=3)
    referee = auth(running["tokens"]["referee"])
    for _ in range(analyses.QUEUE_PER_WORKER + 1):  # the server's every slot, before
        assert play(api, running, 1)["status"] == "active"
        reply = ask(api, running["id"], REFEREE, referee)
        assert reply.status_code == 202, reply.text
    served = ask(api, mine["id"], OTHER)
    assert served.status_code == 202, served.text
    gate.set()
    assert finished(api, mine["id"], OTHER).status_code == 200
    last = play(api, running, 0)["version"]
    done = finished(api, running["id"], REFEREE, referee)
    assert done.status_code == 200 and done.json()["version"] == last


def test_a_client_over_its_share_of_analyses_is_refused_429_and_others_are_not(
    api: TestClient[Any], gate: threading.Event
) -> None:
    games = [create(api, players=2) for _ in range(3)]
    first, second, third = (g["id"] for g in games)
    first_ref, second_ref, third_ref = (auth(g["tokens"]["referee"]) for g in games)
    assert ask(api, first, REFEREE, first_ref).status_code == 202
    refused = ask(api, second, REFEREE, second_ref)
    assert refused.status_code == 429, refused.text
    problem = refused.json()
    assert problem["type"].endswith("rate-limited") and problem["limit"] == 1
    assert int(refused.headers["Retry-After"]) > 0
    assert ask(api, third, OTHER, third_ref).status_code == 202
    gate.set()
    assert finished(api, first, REFEREE, first_ref).status_code == 200
    assert finished(api, second, REFEREE, second_ref).status_code == 200, "its share is free again"


def test_more_analyses_at_once_than_the_bound_are_refused_with_429(
    api: TestClient[Any], gate: threading.Event
) -> None:
    bound = 1 + analyses.QUEUE_PER_WORKER  # one worker (the default), its queue
    games = [create(api, players=2) for _ in range(bound + 1)]
    clients = [{"X-Test-Client": f"10.0.1.{n}"} for n in range(bound + 1)]
    for created, client in zip(games[:bound], clients, strict=False):
        reply = ask(api, created["id"], client, auth(created["tokens"]["referee"]))
        assert reply.status_code == 202, reply.text
    last = games[bound]
    refused = ask(api, last["id"], clients[bound], auth(last["tokens"]["referee"]))
    assert refused.status_code == 429, refused.text
    assert refused.json()["type"].endswith("rate-limited")
    assert int(refused.headers["Retry-After"]) > 0
    gate.set()
    for created, client in zip(games[:bound], clients, strict=False):
        reply = finished(api, created["id"], client, auth(created["tokens"]["referee"]))
        assert reply.status_code == 200


def test_a_short_analysis_is_not_stuck_behind_a_long_one(
    api: TestClient[Any], gate: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(analyses, "SLICE", 0.0, raising=False)  # turns of one event each
    order: list[str] = []
    real = analysis_store.wire

    def wire(game_id: str, *args: Any) -> Any:
        order.append(game_id)  # (an earlier test's app may still be ending one: filtered)
        return real(game_id, *args)

    monkeypatch.setattr(analysis_store, "wire", wire)
    short = ended(api, 10)
    long = create(api, players=3)
    play(api, long, 120)
    lengths = {g["id"]: play(api, g, 0)["version"] for g in (short, long)}
    assert lengths[long["id"]] > 2 * lengths[short["id"]]
    assert ask(api, long["id"], REFEREE, auth(long["tokens"]["referee"])).status_code == 202
    assert ask(api, short["id"], OTHER).status_code == 202
    gate.set()
    assert finished(api, short["id"], OTHER).status_code == 200
    assert finished(api, long["id"], REFEREE, auth(long["tokens"]["referee"])).status_code == 200
    ours = [game for game in order if game in (short["id"], long["id"])]
    assert ours == [short["id"], long["id"]], "the short analysis ends first"


def test_a_running_games_analysis_goes_on_from_its_last_version_and_equals_a_full_one(
    api: TestClient[Any], settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(analyses, "SLICE", 60.0, raising=False)  # no turn is cut short
    created = create(api, players=3)
    game, referee = created["id"], auth(created["tokens"]["referee"])
    play(api, created, 20)
    first = finished(api, game, referee)
    assert first.status_code == 200, first.text
    for moves in (1, 1, 30):
        now = play(api, created, moves)["version"]
        reply = ask(api, game, referee)
        assert reply.status_code == 200, f"from the last version, at once: {reply.text}"
        assert reply.json()["version"] == now
    assert reply.json() == full_analysis(settings, game, now)


def read_log(settings: Settings, game: str, version: int) -> list[tuple[int, Any]]:
    """A game's log up to ``version`` as (version, event) pairs."""
    store = open_store(settings.database, settings.synchronous, settings.database_url)
    try:
        return [(e.version, parse_event(e.type, e.data)) for e in store.read(game, until=version)]
    finally:
        store.close()


def full_analysis(settings: Settings, game: str, version: int) -> Any:
    """A game's analysis up to ``version`` computed from its log from the start."""
    log = read_log(settings, game, version)
    return msgspec.to_builtins(analysis_store.wire(game, version, analyse(log, seed=game)))


def test_a_running_games_analysis_asked_again_values_only_the_new_positions(
    api: TestClient[Any], settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The referee asking again after a few moves gets the analysis gone on from the last
    version: the model values the positions of the new events alone, no more than an
    analyser that had pushed the earlier ones values for them, and far fewer than an analysis
    from the start."""
    monkeypatch.setattr(analyses, "SLICE", 60.0, raising=False)
    valued = [0]
    model_chances = analysis_model.chances

    def counted(*args: Any, **kwargs: Any) -> Any:
        valued[0] += 1
        return model_chances(*args, **kwargs)

    monkeypatch.setattr(game_module, "chances", counted)
    created = create(api, "ludo", players=2)
    game, referee = created["id"], auth(created["tokens"]["referee"])
    play(api, created, 40)
    first = finished(api, game, referee)
    assert first.status_code == 200, first.text
    before = first.json()["version"]
    now = play(api, created, 3)["version"]
    valued[0] = 0
    reply = ask(api, game, referee)
    assert reply.status_code == 200 and reply.json()["version"] == now
    again = valued[0]
    log = read_log(settings, game, now)
    analyser, rest = started(log, game)
    for version, event in rest:
        if version == before + 1:
            analyser.forget()
            valued[0] = 0
        analyser.push(version, event)
    new_only = valued[0]
    valued[0] = 0
    analyse(log, seed=game)
    assert 0 < again <= new_only < valued[0] / 5

"""No secret leaks through any GET route: other seats' hands, the seed before its reveal, and
a game's moves to its spectators before their delay has passed.

Every GET route of openapi/openapi.json is called, for random games of every rule set with
hidden hands, as a spectator and with each seat's token; routes added later are covered.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from domain.model import HIDDEN
from domain.registry import RULESETS
from eventstore import EventStore
from service.app import create_app
from service.settings import Settings
from service.store import open_store
from service.usecases.games.repository import Secrets
from tests.live import serving

OPENAPI = json.loads((Path(__file__).parents[3] / "openapi" / "openapi.json").read_text())
HIDDEN_RULESETS = [
    name for name, rules in sorted(RULESETS.items()) if rules.redact.__name__ != "no_secrets"
]


class Server(msgspec.Struct):
    url: str
    store: EventStore

    def seed(self, game_id: str) -> str:
        """The sealed seed, read where it lives: the game's private record."""
        return msgspec.convert(self.store.private(game_id), Secrets).seed


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    database = str(tmp_path_factory.mktemp("hidden") / "tabula.db")
    with serving(create_app(Settings(database=database, log_level="warning"))) as url:
        yield Server(url, open_store(database, "NORMAL"))


def get_routes() -> list[tuple[str, list[str]]]:
    """Every GET path with its query parameter names."""
    routes = []
    for path, operations in OPENAPI["paths"].items():
        if "get" in operations:
            params = operations["get"].get("parameters", [])
            routes.append((path, [p["name"] for p in params if p["in"] == "query"]))
    return routes


def play_some(http: httpx.Client, created: dict[str, Any], steps: int, rng: random.Random) -> None:
    """Random legal actions of pending seats, ``steps`` times or until the end."""
    game, seats = created["id"], created["tokens"]["seats"]
    referee = {"Authorization": f"Bearer {created['tokens']['referee']}"}
    for _ in range(steps):
        state = http.get(f"/games/{game}", headers=referee).json()
        if state["status"] == "finished":
            return
        seat = rng.choice(state["to_act"])["seat"]
        token = {"Authorization": f"Bearer {seats[seat]}"}
        moves = http.get(f"/games/{game}/legal-moves", headers=token).json()["moves"]
        reply = http.post(
            f"/games/{game}/moves", json={"move": rng.choice(moves)["id"]}, headers=token
        )
        assert reply.status_code == 200, reply.text
        assert not leaks(reply.json(), seat), leaks(reply.json(), seat)


def responses(
    http: httpx.Client, game: str, version: int, token: str | None
) -> Iterator[tuple[str, str]]:
    """(url, body) of every GET route for this game, as the token's holder."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for path, query in get_routes():
        url = path.replace("{game_id}", game)
        params: dict[str, Any] = {}
        if "at" in query:
            params["at"] = random.Random(version).randint(1, version)
        if path.endswith("/stream"):
            yield url, stream_until(http, url, version, headers)
            continue
        reply = http.get(url, params=params, headers=headers)
        assert reply.status_code < 500, (url, reply.text)
        yield url, reply.text


def stream_until(http: httpx.Client, url: str, version: int, headers: dict[str, str]) -> str:
    """The stream's text up to the event of ``version`` (a live stream does not end)."""
    lines: list[str] = []
    with http.stream("GET", url, headers=headers, timeout=10) as reply:
        if reply.status_code != 200:
            return reply.read().decode()
        for line in reply.iter_lines():
            lines.append(line)
            if line == f"id: {version}":
                break
    return "\n".join(lines)


def leaks(body: Any, viewer: int | None) -> list[str]:
    """Places in a JSON body where another seat's hidden card shows."""
    found: list[str] = []

    def visible_to_viewer(seat: Any, receiver: Any = None) -> bool:
        return viewer is not None and viewer in (seat, receiver)

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
            return
        if not isinstance(node, dict):
            return
        seat, to = node.get("seat"), node.get("to")
        if isinstance(seat, int) and "cards" in node and not visible_to_viewer(seat):
            found.append(f"hand of seat {seat}: {node['cards']}")
        card = node.get("card")
        receiver = to if isinstance(to, int) else None
        if (
            isinstance(seat, int)
            and card not in (None, HIDDEN)
            and not visible_to_viewer(seat, receiver)
        ):
            found.append(f"card of seat {seat}: {node}")
        if is_deal(node):
            for owner, hand in zip(node["seats"], node["hands"], strict=True):
                if not visible_to_viewer(owner) and any(card != HIDDEN for card in hand):
                    found.append(f"dealt hand of seat {owner}: {hand}")
        for value in node.values():
            walk(value)

    walk(body)
    return found


def is_deal(node: dict[str, Any]) -> bool:
    """Whether a JSON object is CardsDealt data: seat numbers and their card lists."""
    hands, seats = node.get("hands"), node.get("seats")
    return (
        isinstance(hands, list)
        and isinstance(seats, list)
        and all(isinstance(hand, list) for hand in hands)
        and all(isinstance(seat, int) for seat in seats)
    )


def bodies(text: str) -> Iterator[Any]:
    """The JSON documents in a response (one, or one per stream message)."""
    if text.startswith("{") or text.startswith("["):
        yield json.loads(text)
        return
    for line in text.splitlines():
        if line.startswith("data: "):
            yield json.loads(line[len("data: ") :])


@pytest.mark.parametrize("ruleset", HIDDEN_RULESETS)
@pytest.mark.parametrize("seed", range(4))
def test_no_hand_or_seed_leaks_through_any_get_route(
    server: Server, ruleset: str, seed: int
) -> None:
    rng = random.Random(seed)
    with httpx.Client(base_url=server.url, timeout=10) as http:
        players = RULESETS[ruleset].MIN_PLAYERS if seed % 2 else RULESETS[ruleset].MAX_PLAYERS
        body = {"ruleset": ruleset, "seats": [{}] * players, "auto_chance": seed % 2 == 0}
        created = http.post("/games", json=body).json()
        play_some(http, created, rng.randint(3, 80), rng)
        state = http.get(f"/games/{created['id']}").json()
        sealed = state["status"] != "finished"
        secret = server.seed(created["id"])
        viewers: list[tuple[int | None, str | None]] = [(None, None)]
        viewers += list(enumerate(created["tokens"]["seats"]))
        for viewer, token in viewers:
            for url, text in responses(http, created["id"], state["version"], token):
                for document in bodies(text):
                    assert not leaks(document, viewer), (url, viewer, leaks(document, viewer))
                if sealed:
                    assert secret not in text and secret[:16] not in text, url


def test_the_leak_detector_finds_shown_hands_cards_and_deals() -> None:
    assert leaks({"hands": [{"seat": 1, "cards": ["7"]}]}, viewer=0)
    assert not leaks({"hands": [{"seat": 1, "count": 1}, {"seat": 0, "cards": ["7"]}]}, viewer=0)
    assert leaks({"type": "CardDrawn", "data": {"seat": 2, "card": "4"}}, viewer=None)
    assert not leaks({"data": {"seat": 2, "card": HIDDEN}}, viewer=None)
    assert not leaks({"data": {"seat": 2, "card": "4", "to": 0}}, viewer=0)
    assert leaks({"dealer": 0, "seats": [0, 1], "hands": [["1"], ["2"]]}, viewer=0)
    assert not leaks({"dealer": 0, "seats": [0, 1], "hands": [["1"], [HIDDEN]]}, viewer=0)


DELAYS = [{"moves": 3}, pytest.param({"seconds": 2}, marks=pytest.mark.slow)]  # waits ~6 s
DELAYED_RULESETS = ["race35", *HIDDEN_RULESETS]  # race35: spectators get legal moves


def moment(at: str) -> datetime:
    return datetime.fromisoformat(at.replace("Z", "+00:00"))


class Log(msgspec.Struct):
    """A delayed game's whole log as the referee reads it, and what its delay lets spectators
    see, worked out here from the events (the rule docs/guides/delayed-broadcast.md states)
    and not asked of the server."""

    delay: dict[str, int]
    events: list[dict[str, Any]]

    def allowed(self, now: datetime) -> int:
        """The last version a spectator may have seen by ``now``."""
        if "seconds" in self.delay:
            late = now - timedelta(seconds=self.delay["seconds"])
            return max([1] + [e["version"] for e in self.events if moment(e["at"]) <= late])
        moves = [e["version"] for e in self.events if e["type"] == "MovePlayed"]
        if self.events[-1]["type"] in ("GameFinished", "SeedRevealed") or not moves:
            return len(self.events)
        return max(1, moves[-min(self.delay["moves"], len(moves))] - 1)


def referee_log(http: httpx.Client, created: dict[str, Any]) -> list[dict[str, Any]]:
    referee = {"Authorization": f"Bearer {created['tokens']['referee']}"}
    events: list[dict[str, Any]] = []
    while page := http.get(
        f"/games/{created['id']}/events", params={"after": len(events)}, headers=referee
    ).json()["events"]:
        events.extend(page)
    return events


def versions_of(node: Any, game: str, mine: bool) -> Iterator[int]:
    """Every ``version`` in a JSON body that belongs to ``game`` (``mine``: the whole body does;
    otherwise only objects naming the game, as a listing's)."""
    if isinstance(node, list):
        for item in node:
            yield from versions_of(item, game, mine)
    elif isinstance(node, dict):
        mine = mine or game in (node.get("id"), node.get("game_id"))
        if mine and isinstance(node.get("version"), int):
            yield node["version"]
        for value in node.values():
            yield from versions_of(value, game, mine)


def spectator_stream(
    http: httpx.Client, url: str, until: int, quiet: float
) -> list[tuple[float, int]]:
    """(arrival time, version) of each event a spectator's stream sends, until the event of
    ``until`` and then ``quiet`` seconds without one."""
    arrivals: list[tuple[float, int]] = []
    try:
        with http.stream("GET", url, timeout=httpx.Timeout(10, read=quiet)) as reply:
            for line in reply.iter_lines():
                if line.startswith("id: "):
                    arrivals.append((time.time(), int(line[len("id: ") :])))
    except httpx.ReadTimeout:
        pass
    assert arrivals and arrivals[-1][1] >= until, arrivals[-3:]
    return arrivals


@pytest.mark.parametrize("ruleset", DELAYED_RULESETS)
@pytest.mark.parametrize("delay", DELAYS, ids=lambda d: next(iter(d)))
def test_a_spectator_never_sees_a_move_before_its_delay_has_passed(
    server: Server, ruleset: str, delay: dict[str, int]
) -> None:
    rng = random.Random(ruleset)
    with httpx.Client(base_url=server.url, timeout=10) as http:
        players = RULESETS[ruleset].MIN_PLAYERS
        body = {"ruleset": ruleset, "seats": [{}] * players, "spectator_delay": delay}
        auto_chance = ruleset != "race35"  # race35's throws would play the whole game at once
        created = http.post("/games", json={**body, "auto_chance": auto_chance}).json()
        game = created["id"]
        play_some(http, created, rng.randint(12, 30), rng)
        log = Log(delay, referee_log(http, created))
        live = len(log.events)
        assert log.allowed(datetime.now(UTC)) < live  # the delay hides something
        for path, query in get_routes():
            url = path.replace("{game_id}", game)
            if path.endswith("/stream"):
                continue
            params = {"at": rng.randint(1, live)} if "at" in query else {}
            least = log.allowed(datetime.now(UTC))
            reply = http.get(url, params=params)
            allowed = log.allowed(datetime.now(UTC))
            assert reply.status_code < 500, (url, reply.text)
            if reply.headers["content-type"].startswith("image/svg"):
                shown = boards(http, created, params.get("at"), range(least, allowed + 1))
                assert reply.text in shown, url
            elif "json" in reply.headers["content-type"]:
                shown = list(versions_of(reply.json(), game, "{game_id}" in path))
                assert all(v <= allowed for v in shown), (url, shown, allowed)
        beyond = http.get(f"/games/{game}/state", params={"at": live})
        assert beyond.status_code == 400 and beyond.json()["parameter"] == "at"
        url = f"/games/{game}/events/stream"
        if "moves" in delay:  # only the next moves release the last ones: nothing more comes
            arrivals = spectator_stream(http, url, log.allowed(datetime.now(UTC)), quiet=1)
            assert arrivals[-1][1] == log.allowed(datetime.now(UTC)) < live
        else:  # each event comes once its delay has passed, and then every one comes
            arrivals = spectator_stream(http, url, live, quiet=delay["seconds"] + 2)
            due = {e["version"]: moment(e["at"]).timestamp() + delay["seconds"] for e in log.events}
            early = [(v, due[v] - t) for t, v in arrivals if v > 1 and t < due[v]]
            assert not early, early  # (version, seconds too early)
            assert http.get(f"/games/{game}").json()["version"] == live


def boards(
    http: httpx.Client, created: dict[str, Any], at: int | None, allowed: range
) -> list[str]:
    """The boards a spectator may be shown: the referee's at ``at``, or (without ``at``) at a
    version they were allowed to see while they asked."""
    referee = {"Authorization": f"Bearer {created['tokens']['referee']}"}
    url = f"/games/{created['id']}/board.svg"
    versions = allowed if at is None else [at]
    return [http.get(url, params={"at": v}, headers=referee).text for v in versions]

"""No secret leaks through any GET route: other seats' hands, and the seed before its reveal.

Every GET route of openapi/openapi.json is called, for random games of every rule set with
hidden hands, as a spectator and with each seat's token; routes added later are covered.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
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
from service.usecases.repository import Secrets
from tests.live import serving

OPENAPI = json.loads((Path(__file__).parents[2] / "openapi" / "openapi.json").read_text())
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
    for _ in range(steps):
        state = http.get(f"/games/{game}").json()
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

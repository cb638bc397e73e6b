"""Random bytes, random JSON and mutated valid bodies on every write route, with and without a
token: always a problem+json 4xx or a success, never a 5xx, and nothing stored unless 2xx.

``pytest -s`` prints the statuses seen.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import hypothesis
import hypothesis.strategies as st
import pytest
from litestar.testing import TestClient

from eventstore import EventStore
from service.app import create_app
from service.settings import Settings
from service.store import open_store
from tests.service.conftest import create, play_to_end

EXAMPLES = 200
PROBLEM_KEYS = {"type", "title", "status", "detail"}
CREATES = {"/games": 1, "/games/import": 1}  # games a 2xx adds; a batch adds its tables
GAME_ROUTES = ["moves", "undo", "chance", "adjudicate"]
JSON: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


class Target:
    """The app under fuzz, its store (to count games and events directly) and real games."""

    def __init__(self, api: TestClient[Any], store: EventStore) -> None:
        self.api, self.store = api, store
        self.games = [
            create(api, "sorry", players=2, allow_undo=True),
            create(api, "parchis", players=2, chance="external"),
            create(api, "race35", players=2, auto_chance=True),
        ]
        finished = create(api, "sorry", players=2, auto_chance=True)
        play_to_end(api, finished)
        referee = {"Authorization": f"Bearer {finished['tokens']['referee']}"}
        self.record = api.get(f"/games/{finished['id']}/export", headers=referee).json()
        self.games.append(finished)
        self.statuses: Counter[int] = Counter()

    def valid_bodies(self, game: dict[str, Any]) -> dict[str, Any]:
        """A body each route accepts now (for ``game``'s routes, at its current version)."""
        table = {"ruleset": "sorry", "seats": [{"name": "A"}, {}], "tags": {"round": "1"}}
        referee = {"Authorization": f"Bearer {game['tokens']['referee']}"}
        legal = self.api.get(f"/games/{game['id']}/legal-moves", headers=referee).json()
        version, moves = legal["version"], legal["moves"]
        move = {"move": moves[0]["id"], "seat": moves[0]["seat"]} if moves else {"move": "roll"}
        return {
            "/games": table,
            "/games/batch": {"games": [table, {**table, "ruleset": "race35"}]},
            "/games/import": self.record,
            "moves": {**move, "expected_version": version},
            "undo": {"reason": "misclick", "expected_version": version},
            "chance": {"dice": [4], "expected_version": version},
            "adjudicate": {"kind": "penalty", "seat": 1, "reason": "slow play"},
        }

    def counts(self, game_id: str | None) -> tuple[int, int]:
        """How many games there are, and how many events ``game_id`` has."""
        info = self.store.stream(game_id) if game_id else None
        return len(self.store.streams()), info.version if info else 0


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    database = str(tmp_path_factory.mktemp("fuzz-writes") / "fuzz.db")
    store = open_store(database, "NORMAL")
    settings = Settings(
        database=database, log_level="critical", refusal_rate=0
    )  # no tarpit: refused on purpose
    with TestClient(create_app(settings, store=store)) as api:
        yield Target(api, store)


def mutated(data: st.DataObject, body: Any) -> Any:
    """A valid body with one part removed, replaced, added or (in a list) dropped."""
    body = copy.deepcopy(body)
    node = body
    while isinstance(node, dict | list) and node and data.draw(st.booleans()):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        child = node[data.draw(st.sampled_from(keys))]
        if not isinstance(child, dict | list) or not child:
            break
        node = child
    if isinstance(node, dict) and node:
        key = data.draw(st.sampled_from(sorted(node)))
        match data.draw(st.sampled_from(["drop", "replace", "add"])):
            case "drop":
                del node[key]
            case "replace":
                node[key] = data.draw(JSON)
            case _:
                node[data.draw(st.text(min_size=1, max_size=8))] = data.draw(JSON)
    elif isinstance(node, list) and node:
        node[data.draw(st.integers(0, len(node) - 1))] = data.draw(JSON)
    return body


def body_bytes(data: st.DataObject, valid: Any) -> bytes:
    """Random bytes, random JSON, or a mutated valid body."""
    match data.draw(st.sampled_from(["bytes", "json", "mutated", "mutated", "valid", "valid"])):
        case "bytes":
            return data.draw(st.binary(max_size=200))
        case "json":
            return json.dumps(data.draw(JSON)).encode()
        case "mutated":
            return json.dumps(mutated(data, valid)).encode()
        case _:
            return json.dumps(valid).encode()


def check_reply(reply: Any) -> None:
    """A success, or a 4xx problem+json with its fields."""
    assert reply.status_code < 500, reply.text
    if reply.status_code >= 400:
        assert reply.headers["content-type"].startswith("application/problem+json"), reply.text
        problem = reply.json()
        assert set(problem) >= PROBLEM_KEYS and problem["status"] == reply.status_code


def fuzz_one(target: Target, data: st.DataObject) -> None:
    """Send one random write and check its reply and what it stored."""
    game = data.draw(st.sampled_from(target.games))
    route = data.draw(st.sampled_from([*CREATES, "/games/batch", *GAME_ROUTES]))
    path = route if route.startswith("/") else f"/games/{game['id']}/{route}"
    tokens = [game["tokens"]["referee"], *game["tokens"]["seats"], "not-a-token"]
    token = data.draw(st.sampled_from([None, tokens[0], *tokens]))  # the referee twice
    headers = {"content-type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    content = body_bytes(data, target.valid_bodies(game)[route])
    before = target.counts(game["id"])
    reply = target.api.post(path, content=content, headers=headers)
    target.statuses[reply.status_code] += 1
    check_reply(reply)
    games, events = target.counts(game["id"])
    if not reply.is_success:
        assert (games, events) == before, (path, content, reply.text)
    elif route == "/games/batch":
        assert (games, events) == (before[0] + len(reply.json()["games"]), before[1])
    elif route in CREATES:
        assert (games, events) == (before[0] + 1, before[1])
    else:
        assert games == before[0] and events == reply.json()["version"] > before[1]


def test_write_routes_answer_random_bodies_with_problems_and_store_nothing(
    target: Target,
) -> None:
    @hypothesis.settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(hypothesis.HealthCheck),
    )
    @hypothesis.given(data=st.data())
    def run(data: st.DataObject) -> None:
        fuzz_one(target, data)

    run()
    seen = dict(sorted(target.statuses.items()))
    print(f"\nfuzz writes: {sum(seen.values())} requests, statuses {seen}")
    assert sum(seen.values()) >= EXAMPLES
    assert any(s < 300 for s in seen) and any(400 <= s < 500 for s in seen)

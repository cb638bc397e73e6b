"""Schemathesis against the served app: no 5xx, every reply as the OpenAPI document says.

Two parts: every operation with generated (and sometimes real) games, ids, tokens, queries and
bodies; then stateful runs that follow the document's links from a created game to its legal
moves, a move and an undo. ``pytest -s`` prints the counts.

The cases are the same on every run, so CI judges a change and not the draw; set
``TABULA_FUZZ=random`` to explore new cases (each such run draws afresh).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import hypothesis
import hypothesis.strategies as st
import pytest
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service.app import create_app
from service.settings import Settings
from tests.live import serving

DOCUMENT = Path(__file__).parents[3] / "openapi" / "openapi.json"
CHECKS = [
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
    content_type_conformance,
]
EXAMPLES_PER_OPERATION = 50
MIN_CASES = 1000
STATEFUL_SCENARIOS = 60
STATEFUL_RUNS = 5
QUIET = hypothesis.settings(
    derandomize=os.environ.get("TABULA_FUZZ") != "random",
    deadline=None,
    database=None,
    suppress_health_check=list(hypothesis.HealthCheck),
    phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real app on uvicorn over a fresh database, without the tarpit (the fuzzer is
    refused a thousand times on purpose) and without a creation budget (games, batches and
    tournaments share it: spent by the first test, the stateful one could create nothing)."""
    database = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
    settings = Settings(database=str(database), log_level="critical", refusal_rate=0, create_rate=0)
    with serving(create_app(settings)) as url:
        yield url


@pytest.fixture(scope="module")
def games(served: str) -> list[dict[str, Any]]:
    """A few real games (their creation replies) for generated requests to aim at."""
    bodies = [
        {"ruleset": "race35", "seats": [{}, {}]},
        {"ruleset": "sorry", "seats": [{}, {}, {}], "allow_undo": True},
        {"ruleset": "sorry-hand", "seats": [{}, {}], "chance": "external"},
        {"ruleset": "parchis", "seats": [{}, {}], "auto_chance": True},
        {"ruleset": "race35", "seats": [{}, {}], "auto_chance": True},
    ]
    created = [httpx.post(f"{served}/games", json=body).json() for body in bodies]
    for game in created:
        state = httpx.get(f"{served}/games/{game['id']}").json()
        game["finished"] = state["status"] == "finished"
    return created


def load_schema() -> Any:
    """The committed OpenAPI document as schemathesis reads it."""
    return schemathesis.openapi.from_path(str(DOCUMENT))


def aim(case: Any, game: dict[str, Any] | None, token: str | None) -> None:
    """Point a generated case at a real game and present one of its tokens, if drawn."""
    if game is not None and case.path_parameters and "game_id" in case.path_parameters:
        case.path_parameters = {**case.path_parameters, "game_id": game["id"]}
    if token is not None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}


def tokens_of(game: dict[str, Any]) -> list[str]:
    """Every token of a game."""
    return [game["tokens"]["referee"], *game["tokens"]["seats"]]


def fuzz_operation(
    operation: Any, url: str, games: list[dict[str, Any]], seen: Counter[int]
) -> int:
    """Run generated cases of one operation; how many were sent."""
    sent = 0
    if operation.label.endswith("/events/stream"):  # a running game's stream never ends
        games = [g for g in games if g["finished"]]
    real_game = st.none() | st.sampled_from(games)

    @hypothesis.given(case=operation.as_strategy(), game=real_game, data=st.data())
    @hypothesis.settings(QUIET, max_examples=EXAMPLES_PER_OPERATION)
    def run(case: Any, game: dict[str, Any] | None, data: st.DataObject) -> None:
        nonlocal sent
        token = data.draw(st.none() | st.sampled_from(tokens_of(game))) if game else None
        aim(case, game, token)
        response = case.call_and_validate(base_url=url, checks=CHECKS)
        seen[response.status_code] += 1
        sent += 1

    run()
    return sent


@pytest.mark.slow
def test_every_operation_survives_generated_requests(
    served: str, games: list[dict[str, Any]]
) -> None:
    schema = load_schema()
    seen: Counter[int] = Counter()
    cases = 0
    for result in schema.get_all_operations():
        started = time.perf_counter()
        sent = fuzz_operation(result.ok(), served, games, seen)
        cases += sent
        print(f"{result.ok().label}: {sent} cases in {time.perf_counter() - started:.1f} s")
    print(f"\nfuzz: {cases} generated cases, statuses {dict(sorted(seen.items()))}")
    assert cases >= MIN_CASES
    assert not [status for status in seen if status >= 500]
    assert seen[200] and seen[201]


SEEDED = {"ruleset": "race35", "seats": [{"name": "Ann"}, {"name": "Bob"}]}
"""The body three generated ``POST /games`` of four in the stateful runs are sent with: a
game is then created whatever the draw (a generated body seldom is one: any of its many
fields may refuse it), so the runs follow the links from created games, each of which leads
to many operations. Generated bodies of every operation are the other test's."""


def stateful_machine(url: str, tally: Counter[str]) -> Any:
    """The document's state machine, calling ``url`` with each created game's referee token;
    three ``POST /games`` of four are sent with ``SEEDED``'s body."""
    referee_tokens: dict[str, str] = {}

    class Machine(load_schema().as_state_machine()):  # type: ignore[misc]
        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"base_url": url}

        def setup(self) -> None:
            tally["scenarios"] += 1

        def before_call(self, case: Any) -> None:
            if case.operation.label == "POST /games":
                tally["creations asked"] += 1
                if tally["creations asked"] % 4:
                    case.body = dict(SEEDED)
            game_id = (case.path_parameters or {}).get("game_id")
            if game_id in referee_tokens:
                aim(case, None, referee_tokens[game_id])

        def after_call(self, response: Any, case: Any) -> None:
            tally["steps"] += 1
            tally[f"{case.operation.label} {response.status_code}"] += 1
            if case.operation.label == "POST /games" and response.status_code == 201:
                created = json.loads(response.content)
                referee_tokens[created["id"]] = created["tokens"]["referee"]

        def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
            case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs)

    return Machine


def run_scenarios(machine: Any, tally: Counter[str]) -> None:
    """Run ``STATEFUL_SCENARIOS`` scenarios of the machine, going on after a diverged replay.

    Hypothesis replays known prefixes of earlier scenarios and demands the same draws, but the
    live server may answer a replayed step otherwise (each game's dice come from a fresh seed,
    clocks run out, more games are listed): the links then offer other steps, and Hypothesis
    ends the run with FlakyStrategyDefinition. That says nothing about the service (the
    schemathesis runner passes over it too), so the run starts again for the scenarios left.
    A failure that does not come back on replay (FlakyFailure) is still a failure.
    """
    for _ in range(STATEFUL_RUNS):
        left = STATEFUL_SCENARIOS - tally["scenarios"]
        if left <= 0:
            return
        settings = hypothesis.settings(QUIET, max_examples=left, stateful_step_count=8)
        try:
            machine.run(settings=settings)
        except* hypothesis.errors.FlakyStrategyDefinition:
            tally["diverged"] += 1


@pytest.mark.slow
def test_stateful_runs_follow_links_from_create_to_move_and_undo(served: str) -> None:
    tally: Counter[str] = Counter()
    run_scenarios(stateful_machine(served, tally), tally)
    left_out = ("steps", "scenarios", "creations asked")
    followed = {k: v for k, v in sorted(tally.items()) if k not in left_out}
    print(f"\nstateful: {tally['steps']} steps in {tally['scenarios']} scenarios begun: {followed}")
    assert tally["scenarios"] >= STATEFUL_SCENARIOS
    assert tally["POST /games 201"] > 0
    assert tally["GET /games/{game_id}/legal-moves 200"] > 0
    assert not [k for k in tally if k.split()[-1].startswith("5")]

"""Schemathesis against the players' routes of the served app: no 5xx and every reply as the
OpenAPI document says, with generated handles and bodies, and no key, a fresh player's key, an
app's key or a made-up key in the Authorization header."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import hypothesis
import hypothesis.strategies as st
import pytest

from service.app import create_app
from service.settings import Settings
from tests.live import serving
from tests.service.api.test_fuzz_api import CHECKS, QUIET, load_schema

EXAMPLES = 40
PLAYERS_ROUTES = ("/players", "/me")
MADE_UP = ["tabula_pk_" + "0" * 24 + "_x", "tabula_ak_ludoclub_x", "tabula_pk_", "not a key"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The app on uvicorn, with no creation budget and no tarpit, and an app's key."""
    database = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
    settings = Settings(database=str(database), log_level="critical", refusal_rate=0, create_rate=0)
    app = create_app(settings)
    with serving(app) as url:
        yield url, app.state.apps.add("ludoclub")


def test_the_players_routes_survive_generated_requests(served: tuple[str, str]) -> None:
    url, app_key = served
    numbers = itertools.count()
    seen: Counter[int] = Counter()

    def key(kind: str) -> str | None:
        """No key, a fresh player's or app-made player's key, the app's, or a made-up one."""
        if kind == "player":
            reply = httpx.post(f"{url}/players", json={"handle": f"fuzz{next(numbers)}"})
            return str(reply.json()["key"])
        if kind == "app":
            return app_key
        return None if kind == "none" else kind

    every = [result.ok() for result in load_schema().get_all_operations()]
    operations = [
        op for op in every if op.path.startswith(PLAYERS_ROUTES) and op.path != "/players/{name}"
    ]
    assert {op.label for op in operations} >= {"POST /players", "GET /me", "DELETE /me"}
    kinds = st.sampled_from(["none", "player", "app", *MADE_UP])
    for operation in operations:

        @hypothesis.given(case=operation.as_strategy(), kind=kinds)
        @hypothesis.settings(QUIET, max_examples=EXAMPLES)
        def run(case: Any, kind: str) -> None:
            bearer = key(kind)
            if bearer is not None:
                case.headers = {**(case.headers or {}), "Authorization": f"Bearer {bearer}"}
            seen[case.call_and_validate(base_url=url, checks=CHECKS).status_code] += 1

        run()
    assert not [status for status in seen if status >= 500]
    assert seen[200] and seen[201] and seen[401] and seen[422]

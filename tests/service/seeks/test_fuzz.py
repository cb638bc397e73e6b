"""Schemathesis against the seeks' routes of the served app: no 5xx and every reply as the
OpenAPI document says, with generated bodies and ids (and real seeks' ids), and no credential,
a fresh player's key, a real guest's secret or a made-up bearer."""

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

EXAMPLES = 60
MADE_UP = ["tabula_pk_" + "0" * 24 + "_x", "tabula_ak_ludoclub_x", "not a token"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app on uvicorn, with no creation budget and no tarpit."""
    database = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
    settings = Settings(database=str(database), log_level="critical", refusal_rate=0, create_rate=0)
    with serving(create_app(settings)) as url:
        yield url


def test_the_seeks_routes_survive_generated_requests(served: str) -> None:
    numbers = itertools.count()
    seen: Counter[int] = Counter()
    real = [httpx.post(f"{served}/seeks", json={"ruleset": "sorry", "players": 4}).json()]
    real += [httpx.post(f"{served}/seeks", json={"ruleset": "partners", "players": 4}).json()]

    def bearer(kind: str) -> str | None:
        """No credential, a fresh player's key, a real guest's secret, or a made-up one."""
        if kind == "player":
            reply = httpx.post(f"{served}/players", json={"handle": f"fuzz{next(numbers)}"})
            return str(reply.json()["key"])
        if kind == "guest":
            return str(real[next(numbers) % len(real)]["secret"])
        return None if kind == "none" else kind

    operations = [
        result.ok()
        for result in load_schema().get_all_operations()
        if result.ok().path.startswith("/seeks")
    ]
    assert {op.label for op in operations} == {
        "POST /seeks",
        "GET /seeks/{seek_id}",
        "DELETE /seeks/{seek_id}",
    }
    kinds = st.sampled_from(["none", "player", "guest", *MADE_UP])
    ids = st.one_of(st.none(), st.sampled_from([seek["id"] for seek in real]))
    for operation in operations:

        @hypothesis.given(case=operation.as_strategy(), kind=kinds, seek_id=ids)
        @hypothesis.settings(QUIET, max_examples=EXAMPLES)
        def run(case: Any, kind: str, seek_id: str | None) -> None:
            credential = bearer(kind)
            if credential is not None:
                case.headers = {**(case.headers or {}), "Authorization": f"Bearer {credential}"}
            if seek_id is not None and case.path_parameters:
                case.path_parameters = {"seek_id": seek_id}
            seen[case.call_and_validate(base_url=served, checks=CHECKS).status_code] += 1

        run()
    assert not [status for status in seen if status >= 500], seen
    # Each answer the routes give a well-formed request, asked outright (generation may not
    # reach them all in a run): seated 201, read by its owner 200, by nobody 401, unknown 404.
    posted = httpx.post(f"{served}/seeks", json={"ruleset": "ludo", "players": 2})
    assert posted.status_code == 201, posted.text
    seek, secret = posted.json()["id"], posted.json()["secret"]
    owned = {"Authorization": f"Bearer {secret}"}
    assert httpx.get(f"{served}/seeks/{seek}", headers=owned).status_code == 200
    assert httpx.get(f"{served}/seeks/{seek}").status_code == 401
    assert httpx.get(f"{served}/seeks/{seek[:-4]}0000", headers=owned).status_code == 404

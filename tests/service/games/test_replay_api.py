"""Time travel: ``state?at=N`` equals folding the first N events, for every N."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from litestar.testing import TestClient

from domain.events import parse_event
from domain.replay import fold
from service.app import create_app
from service.settings import Settings
from tests.service.conftest import create

DOMAIN_FIELDS = ("pieces", "to_act", "chance", "winners", "status")


@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(seed=st.text(min_size=1, max_size=20), players=st.integers(2, 6))
def test_state_at_every_version_equals_folding_the_log(
    tmp_path_factory: Any, seed: str, players: int
) -> None:
    database = Path(tmp_path_factory.mktemp("replay")) / "t.db"
    with TestClient(create_app(Settings(database=str(database), log_level="warning"))) as api:
        created = create(api, players=players, seed=seed, auto_chance=True)
        log = api.get(f"/games/{created['id']}/events").json()["events"]
        events = [(e["version"], parse_event(e["type"], e["data"])) for e in log]
        replay = fold(events[:1])
        for n in range(1, len(events) + 1):
            if n > 1:
                replay.push(*events[n - 1])  # the first n events, folded one by one
            served = api.get(f"/games/{created['id']}/state", params={"at": n}).json()
            folded = api_shape(replay.rules.view(replay.state, None))
            assert served["version"] == n
            assert {k: served[k] for k in DOMAIN_FIELDS} == {k: folded[k] for k in DOMAIN_FIELDS}


def api_shape(view: dict[str, Any]) -> dict[str, Any]:
    """A domain view as it reads after a trip through JSON."""
    import msgspec

    shaped: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(view))
    return shaped

"""Tokens: referee-only routes refuse every seat, no token (nor its hash) reaches a log line or
a problem, and a token is compared with every stored hash whoever presents it."""

from __future__ import annotations

import hmac
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import structlog
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from service.usecases import tokens
from tests.service.api.test_bad_input import expect_problem
from tests.service.conftest import auth, create, play_to_end


def test_referee_only_routes_refuse_every_seat_token(api: TestClient[Any]) -> None:
    created = create(api, "parchis", players=3, chance="external")
    game = created["id"]
    for seat in created["tokens"]["seats"]:
        chance = api.post(f"/games/{game}/chance", json={"dice": [4]}, headers=auth(seat))
        expect_problem(chance, 403, "forbidden", "referee")
        body = {"kind": "forfeit", "seat": 1, "reason": "left"}
        expect_problem(
            api.post(f"/games/{game}/adjudicate", json=body, headers=auth(seat)), 403, "forbidden"
        )
        for read in ("audit", "export"):
            expect_problem(api.get(f"/games/{game}/{read}", headers=auth(seat)), 403, "forbidden")
    assert api.get(f"/games/{game}").json()["version"] == created["version"]
    referee = auth(created["tokens"]["referee"])
    assert api.get(f"/games/{game}/audit", headers=referee).status_code == 200


@pytest.fixture
def json_logs(tmp_path: Path) -> Iterator[tuple[TestClient[Any], io.StringIO]]:
    """The app logging JSON at info level into a buffer instead of stdout."""
    settings = Settings(database=str(tmp_path / "logs.db"), log_format="json", log_level="info")
    app = create_app(settings)
    buffer = io.StringIO()
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(file=buffer))
    try:
        with TestClient(app) as client:
            yield client, buffer
    finally:
        structlog.configure(logger_factory=structlog.PrintLoggerFactory())


def test_no_token_or_token_hash_reaches_the_logs_or_a_problem(
    json_logs: tuple[TestClient[Any], io.StringIO],
) -> None:
    api, buffer = json_logs
    sent: list[httpx.Request] = []
    api.event_hooks["request"].append(sent.append)
    created = create(api, "sorry", players=2, allow_undo=True, auto_chance=True)
    other = create(api, "race35", players=2)
    game, secrets = created["id"], [created["tokens"]["referee"], *created["tokens"]["seats"]]
    problems = [
        api.post(f"/games/{game}/moves", json={"move": "fly"}, headers=auth(secrets[1])),
        api.post(f"/games/{game}/undo", json={}, headers=auth(secrets[2])),
        api.post(f"/games/{other['id']}/moves", json={"move": "roll"}, headers=auth(secrets[0])),
        api.get(f"/games/{game}/audit", headers=auth(secrets[1])),
        api.get(f"/games/{game}", headers={"Authorization": f"Token {secrets[0]}"}),
    ]
    final = play_to_end(api, created)
    assert final["status"] == "finished"
    api.get(f"/games/{game}/export", headers=auth(secrets[0]))
    lines = buffer.getvalue().splitlines()
    assert sum('"event": "request"' in line for line in lines) == len(sent)  # each, once
    assert all(400 <= reply.status_code < 500 for reply in problems)
    written = buffer.getvalue() + "".join(reply.text for reply in problems)
    for secret in secrets:
        assert secret not in written
        assert tokens.token_hash(secret) not in written


@pytest.mark.parametrize("who", ["referee", "seat 0", "seat 3", "stranger"])
def test_a_token_is_compared_with_every_stored_hash(
    monkeypatch: pytest.MonkeyPatch, who: str
) -> None:
    referee, seats = tokens.new_token(), [tokens.new_token() for _ in range(4)]
    presented = {"referee": referee, "seat 0": seats[0], "seat 3": seats[3]}
    calls: list[str] = []
    compare = hmac.compare_digest

    def counting(a: str, b: str) -> bool:
        calls.append(b)
        return compare(a, b)

    monkeypatch.setattr(hmac, "compare_digest", counting)
    role = tokens.identify(
        presented.get(who, tokens.new_token()),
        tokens.token_hash(referee),
        [tokens.token_hash(s) for s in seats],
    )
    assert role == {"referee": "referee", "seat 0": 0, "seat 3": 3}.get(who)
    assert len(calls) == len(seats) + 1

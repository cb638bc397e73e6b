"""Hostile input at the HTTP edge (issue 16, items 4 to 7 and 10), on the real server.

- Bodies nested deeper than 64 levels (950 was a ``RecursionError``, a 500 with a 4 KB
  traceback) are 400 on every route that takes JSON (from ``openapi/openapi.json``), nothing
  is stored, and the server stays healthy.
- One Idempotency-Key raced by 16 concurrent undos, or moves, with different bodies: every
  reply is 200, 409 or 422 ``idempotency-key-reused``, never a 500, exactly one write is
  stored, and every 200 (the write and the retries of its body) shows its events and the
  game after them (a retry answered before the first write was taken into the game in memory
  once showed the game before it).
- ``Last-Event-ID: 1\\xb2`` (a non-ASCII digit), sent as raw bytes, is a 400.
- A ``text/plain``, form or untyped POST (which a foreign web page may send without a CORS
  preflight) is a 415 and creates nothing.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.hostile.conftest import Server

OPENAPI = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
PROBLEM = "https://tabula.dev/problems/"
RACERS = 16
ROUNDS = 4
HEALTHY_SECONDS = 0.5


def json_routes() -> list[str]:
    """The paths of every operation whose request body is JSON, per the OpenAPI document."""
    paths = json.loads(OPENAPI.read_text())["paths"]
    return sorted(
        path
        for path, operations in paths.items()
        for operation in operations.values()
        if "application/json" in operation.get("requestBody", {}).get("content", {})
    )


def new_game(server: Server, ruleset: str = "race35", **body: Any) -> dict[str, Any]:
    seats = [{"name": name} for name in ("A", "B", "C")]
    reply = httpx.post(f"{server.url}/games", json={"ruleset": ruleset, "seats": seats, **body})
    assert reply.status_code == 201, reply.text
    created: dict[str, Any] = reply.json()
    return created


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def games_and_versions(server: Server) -> list[tuple[str, int]]:
    games = httpx.get(f"{server.url}/games").json()["games"]
    return [(game["id"], game["version"]) for game in games]


def assert_healthy(server: Server, health_latency: Callable[[str, float], float]) -> None:
    """The server runs, answers /health quickly, and logged no 500 and no traceback."""
    assert server.alive()
    assert health_latency(server.url, HEALTHY_SECONDS) < 0.5
    logs = server.logs()
    assert "status=500" not in logs and "Traceback" not in logs, logs[-4000:]


def test_deep_bodies_are_400_on_every_json_route(
    server: Server, health_latency: Callable[[str, float], float]
) -> None:
    routes = json_routes()
    assert len(routes) >= 7, routes
    created = new_game(server)
    headers = {"content-type": "application/json", **bearer(created["tokens"]["referee"])}
    before = games_and_versions(server)
    deep_array = b"[" * 950 + b"]" * 950
    deep_object = b'{"a":' * 950 + b"1" + b"}" * 950
    with httpx.Client(base_url=server.url, timeout=10) as client:
        for route in routes:
            path = route.replace("{game_id}", created["id"]).replace("{seat}", "0")
            for body in (deep_array, deep_object, b'{"games": ' + deep_array + b"}"):
                reply = client.post(path, content=body, headers=headers)
                assert reply.status_code == 400, (route, reply.text)
                problem = reply.json()
                assert problem["type"] == PROBLEM + "malformed-request"
                assert "deeper than 64 levels" in problem["detail"]
    assert games_and_versions(server) == before
    assert_healthy(server, health_latency)


def race(
    server: Server, path: str, bodies: list[dict[str, Any]], token: str, key: str
) -> list[Any]:
    """POST each body at once from its own thread (a barrier lines them up), one
    Idempotency-Key for all; the replies in order."""
    barrier = threading.Barrier(len(bodies))
    replies: list[Any] = [None] * len(bodies)
    headers = {**bearer(token), "Idempotency-Key": key}

    def post(index: int) -> None:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            client.get("/health")  # connected before the barrier
            barrier.wait()
            replies[index] = client.post(path, json=bodies[index], headers=headers)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(reply is not None for reply in replies)
    return replies


def check_race(replies: list[Any], statuses: Counter[int]) -> list[dict[str, Any]]:
    """Every reply is 200, 409 or 422 ``idempotency-key-reused``; the 200 replies (all alike)."""
    ok = []
    for reply in replies:
        statuses[reply.status_code] += 1
        assert reply.status_code in (200, 409, 422), reply.text
        if reply.status_code == 422:
            assert reply.json()["type"] == PROBLEM + "idempotency-key-reused", reply.text
        if reply.status_code == 200:
            ok.append(reply.json())
    assert ok, [reply.text for reply in replies]
    assert all(body["events"] == ok[0]["events"] for body in ok)
    return ok


def test_racing_undos_with_one_key_and_different_bodies(
    server: Server, health_latency: Callable[[str, float], float]
) -> None:
    created = new_game(server, "sorry", auto_chance=True)
    game, referee = created["id"], created["tokens"]["referee"]
    statuses: Counter[int] = Counter()
    with httpx.Client(base_url=server.url, timeout=30, headers=bearer(referee)) as client:
        for _ in range(ROUNDS * 2):  # decisions to undo
            moves = client.get(f"/games/{game}/legal-moves").json()["moves"]
            assert client.post(f"/games/{game}/moves", json={"move": moves[0]["id"]}).is_success
        for round_ in range(ROUNDS):
            version = client.get(f"/games/{game}").json()["version"]
            bodies = [{"reason": f"racer {i}"} for i in range(RACERS)]
            replies = race(server, f"/games/{game}/undo", bodies, referee, f"undo-{round_}")
            ok = check_race(replies, statuses)
            assert len(ok) == 1  # every body differs: one is stored, the rest refused
            after = client.get(f"/games/{game}").json()["version"]
            assert after == version + len(ok[0]["events"])
            assert all(body["version"] == body["state"]["version"] == after for body in ok)
    print(f"\nracing undos, one key a round: {dict(statuses)}")
    assert_healthy(server, health_latency)


def test_racing_moves_with_one_key_and_different_bodies(
    server: Server, health_latency: Callable[[str, float], float]
) -> None:
    created = new_game(server)
    game, referee = created["id"], created["tokens"]["referee"]
    statuses: Counter[int] = Counter()
    with httpx.Client(base_url=server.url, timeout=30, headers=bearer(referee)) as client:
        for round_ in range(ROUNDS):
            state = client.get(f"/games/{game}").json()
            version, seat = state["version"], state["to_act"][0]["seat"]
            variants: list[dict[str, Any]] = [
                {"move": "roll"},
                {"move": "roll", "seat": seat},
                {"move": "roll", "expected_version": version},
                {"move": "roll", "seat": seat, "expected_version": version},
            ]
            bodies = [variants[i % len(variants)] for i in range(RACERS)]
            replies = race(server, f"/games/{game}/moves", bodies, referee, f"move-{round_}")
            ok = check_race(replies, statuses)
            after = client.get(f"/games/{game}").json()["version"]
            assert after == version + len(ok[0]["events"])  # one write
            assert all(body["version"] == body["state"]["version"] == after for body in ok)
    print(f"\nracing moves, one key a round: {dict(statuses)}")
    assert_healthy(server, health_latency)


def raw_request(server: Server, request: bytes) -> bytes:
    """Send ``request`` as it is over a new connection; the reply until the server closes."""
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(request)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return reply


@pytest.mark.parametrize("last_event_id", [b"1\xb2", b"\xd9\xa3", b"\xff", b"+1"])
def test_a_last_event_id_of_other_than_ascii_digits_is_400(
    server: Server, last_event_id: bytes
) -> None:
    created = new_game(server)
    request = (
        f"GET /games/{created['id']}/events/stream HTTP/1.1\r\nHost: x\r\n".encode()
        + b"Last-Event-ID: "
        + last_event_id
        + b"\r\nConnection: close\r\n\r\n"
    )
    reply = raw_request(server, request)
    assert reply.startswith(b"HTTP/1.1 400 "), reply[:500]
    assert b"validation-failed" in reply and b"Last-Event-ID" in reply
    assert server.alive() and "status=500" not in server.logs()


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=b",
        None,
    ],
)
def test_writes_that_are_not_json_are_415(server: Server, content_type: str | None) -> None:
    created = new_game(server)
    before = games_and_versions(server)
    body = b'{"ruleset": "race35", "seats": [{"name": "A"}, {"name": "B"}]}'
    headers = {"content-type": content_type} if content_type else {}
    referee = bearer(created["tokens"]["referee"])
    for route in json_routes():
        path = route.replace("{game_id}", created["id"]).replace("{seat}", "0")
        reply = httpx.post(f"{server.url}{path}", content=body, headers=headers | referee)
        assert reply.status_code == 415, (route, reply.text)
        assert reply.headers["content-type"].startswith("application/problem+json")
        assert reply.json()["type"] == PROBLEM + "unsupported-media-type"
    assert games_and_versions(server) == before

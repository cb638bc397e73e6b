"""What one hostile client costs everybody else: for each attack, the median ``GET /health``
latency of a well-behaved client during it as a ratio to idle, the server's RSS (peak) and
CPU, and any 5xx seen (by the well-behaved client or the attacker).

The server runs as ``python -m service`` (its production uvicorn configuration,
``service.__main__.server_config``) in a subprocess over a fresh SQLite file, log level
warning. Each attack runs in background threads of this process for ``--seconds`` while one
keep-alive client (http.client) loops on ``GET /health``; the idle median is measured first,
on the same server. Target: every ratio under 5 and no 5xx, the calibration (a flood of
requests the server must serve, marked *) aside.

Run ``python bench/abuse.py [--seconds 5] [--attacks "endless header" "slow body"]``; with
``--url URL --pid PID`` it attacks a server already running there (never a deployment you do
not own).

Adding an attack: write ``def my_attack(target: Target, stop: threading.Event) -> Seen``
that keeps attacking until ``stop`` is set, recording in ``Seen`` what the attacker got back,
and append ``Attack("name", my_attack)`` to ``ATTACKS`` (the list at the end of the attacks).
An attack that needs several service processes (``Attack.workers``) runs on a server of its
own started with that many ``--workers``; given ``--url``, the server there must have them.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import multiprocessing  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import struct  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from datetime import datetime  # noqa: E402
from typing import Any  # noqa: E402
from urllib.parse import urlsplit  # noqa: E402

from bench.harness import (  # noqa: E402
    JSON_PINGS,
    PING_FRAMES,
    WebSocketClient,
    children,
    cpu_seconds,
    percentile,
    raw_websocket,
    rss_kib,
    service_process,
)

HEALTH_TIMEOUT = 10.0
LOCK = threading.Lock()  # an attack's threads record what they saw under it
CHUNK = b"a" * 65536


@dataclass
class Target:
    """The server under attack."""

    url: str
    pid: int

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or "127.0.0.1"

    @property
    def port(self) -> int:
        return urlsplit(self.url).port or 80


@dataclass
class Seen:
    """What an attacker got back: per connection, the outcome (``431``, ``408``, ``closed``
    by the server, ``still open`` when the attack stopped ...), the bytes it sent and the
    seconds it lasted."""

    connections: list[tuple[str, int, float]] = field(default_factory=list)

    def add(self, outcome: str, sent: int = 0, seconds: float = 0.0) -> None:
        with LOCK:
            self.connections.append((outcome, sent, seconds))

    def outcomes(self) -> Counter[str]:
        return Counter(outcome for outcome, _, _ in self.connections)

    def refused(self) -> list[tuple[str, int, float]]:
        """The connections the server ended (with a reply or by closing)."""
        return [one for one in self.connections if one[0] != "still open"]

    def fivexx(self) -> int:
        return sum(n for outcome, n in self.outcomes().items() if outcome.startswith("5"))

    def summary(self) -> str:
        if not self.connections:
            return "nothing"
        parts = ", ".join(f"{outcome} x{n}" for outcome, n in self.outcomes().most_common())
        ended = self.refused()
        if not ended:
            return parts
        return (
            f"{parts}; ended after at most {max(sent for _, sent, _ in ended) / 1024:,.0f} KiB "
            f"sent and {max(seconds for _, _, seconds in ended):.2f} s"
        )


Attacker = Callable[[Target, Any], Seen]  # the Event to stop at: threading's or multiprocessing's


@dataclass
class Attack:
    """One attack: ``run`` attacks until told to stop, for ``seconds`` or ``min_seconds`` if
    longer (a slow attack needs longer than the server's timeouts to see them at work)."""

    name: str
    run: Attacker
    min_seconds: float = 0.0
    calibration: bool = False  # printed for comparison, outside the target
    workers: int = 1  # the service processes it needs (python -m service --workers)


def status_of(sock: socket.socket, timeout: float = 2.0) -> str:
    """The status code of the reply on ``sock`` ("431"), or "closed" when the server closed
    (or reset) without one, or "no reply" when nothing came within ``timeout``."""
    sock.settimeout(timeout)
    try:
        head = sock.recv(64)
    except TimeoutError:
        return "no reply"
    except OSError:
        return "closed"
    if head.startswith(b"HTTP/1.") and len(head) >= 12:
        return head[9:12].decode("ascii", "replace")
    return "closed" if not head else "garbage"


def flood(target: Target, stop: threading.Event, head: bytes, chunk: bytes = CHUNK) -> Seen:
    """Connect, send ``head``, then ``chunk`` after ``chunk`` as fast as the server reads
    them, until the server answers or closes; then again, until ``stop``."""
    seen = Seen()
    while not stop.is_set():
        began, sent = time.monotonic(), 0
        with socket.create_connection((target.host, target.port), timeout=5) as sock:
            try:
                sock.sendall(head)
                sent = len(head)
                while not stop.is_set():
                    sock.sendall(chunk)
                    sent += len(chunk)
            except TimeoutError:
                seen.add("stalled", sent, time.monotonic() - began)
                continue
            except OSError:
                pass
            if stop.is_set():
                seen.add("still open", sent, time.monotonic() - began)
                break
            seen.add(status_of(sock), sent, time.monotonic() - began)
    return seen


def endless_header(target: Target, stop: threading.Event) -> Seen:
    """``GET /health`` with a header whose value never ends."""
    return flood(target, stop, b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ")


def endless_request_line(target: Target, stop: threading.Event) -> Seen:
    """A request line whose target never ends."""
    return flood(target, stop, b"GET /")


def many_headers(target: Target, stop: threading.Event) -> Seen:
    """``GET /health`` with header after short header, never ending the head."""
    lines = b"".join(b"X-H%d: v\r\n" % i for i in range(6000))
    return flood(target, stop, b"GET /health HTTP/1.1\r\nHost: x\r\n", lines)


def slow(target: Target, stop: threading.Event, head: bytes, trickle: bytes) -> Seen:
    """Connections (32 at once) that send ``head`` and then ``trickle`` one byte every
    0.5 s, never finishing: how long the server lets each live, and what it answers."""
    seen = Seen()

    def one() -> None:
        while not stop.is_set():
            began, sent = time.monotonic(), 0
            with socket.create_connection((target.host, target.port), timeout=5) as sock:
                outcome = "still open"
                try:
                    sock.sendall(head)
                    sent = len(head)
                    for byte in trickle:
                        if stop.wait(0.5):
                            break
                        sock.sendall(bytes([byte]))
                        sent += 1
                        sock.setblocking(False)
                        try:
                            if sock.recv(1, socket.MSG_PEEK) == b"":
                                outcome = "closed"
                                break
                            outcome = status_of(sock)
                            break
                        except BlockingIOError:
                            pass
                        finally:
                            sock.setblocking(True)
                    else:
                        outcome = status_of(sock)
                except OSError:
                    outcome = "closed"
                seen.add(outcome, sent, time.monotonic() - began)

    threads = [threading.Thread(target=one, daemon=True) for _ in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return seen


def slow_body(target: Target, stop: threading.Event) -> Seen:
    """``POST /games`` announcing a 60,000-byte body, then sending it a byte every 0.5 s."""
    head = (
        b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 60000\r\n\r\n"
    )
    return slow(target, stop, head, b"{" + b" " * 59_999)


def slow_head(target: Target, stop: threading.Event) -> Seen:
    """``GET /health`` whose head comes a byte every 0.5 s (slowloris)."""
    return slow(target, stop, b"GET /health HTTP/1.1\r\n", b"X-Slow: " + b"a" * 8000)


def burn(target: Target, stop: threading.Event) -> Seen:
    """No attack at all: the attacker's process only keeps one core busy (a calibration: how
    much of a ratio this machine's CPU alone makes)."""
    while not stop.is_set():
        sum(range(100_000))
    return Seen()


STREAM_PATH = "/games/{}/events/stream"
IDLE_STREAMS = 1_000  # the server's default cap in all (max_streams)
PER_ADDRESS = 32  # the default cap per client address (max_streams_per_client)


def quiet_game(target: Target) -> str:
    """A new race35 game's id (a quiet one: nobody plays in it)."""
    conn = http.client.HTTPConnection(target.host, target.port, timeout=60)
    try:
        body = b'{"ruleset": "race35", "seats": [{}, {}]}'
        conn.request("POST", "/games", body=body, headers={"Content-Type": "application/json"})
        return str(json.loads(conn.getresponse().read())["id"])
    finally:
        conn.close()


def open_stream(target: Target, game: str, source: str = "127.0.0.1") -> socket.socket:
    """A connection from ``source`` that has asked for the game's event stream."""
    sock = socket.create_connection(
        (target.host, target.port), timeout=10, source_address=(source, 0)
    )
    sock.sendall(f"GET {STREAM_PATH.format(game)} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return sock


def stream_slot_leak(target: Target, stop: threading.Event) -> Seen:
    """Rounds of 32 streams closed before the first byte, 32 reset (``SO_LINGER`` 0) after
    it and 32 half-closed (``SHUT_WR``), then a well-behaved stream from the same address,
    whose status is the round's outcome (a leaking server answers 429 for good)."""
    seen, game = Seen(), quiet_game(target)
    reset = struct.pack("ii", 1, 0)
    while not stop.is_set():
        began = time.monotonic()
        for _ in range(PER_ADDRESS):
            open_stream(target, game).close()
        for _ in range(PER_ADDRESS):
            with open_stream(target, game) as sock:
                sock.recv(1)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, reset)
        half = [open_stream(target, game) for _ in range(PER_ADDRESS)]
        for sock in half:
            sock.shutdown(socket.SHUT_WR)
        outcome = "429"
        for _ in range(20):  # the server sees the closes a moment later
            with open_stream(target, game) as probe:
                outcome = status_of(probe)
            if outcome != "429" or stop.wait(0.25):
                break
        for sock in half:
            sock.close()
        seen.add(outcome, 0, time.monotonic() - began)
    return seen


def idle_streams(target: Target, stop: threading.Event) -> Seen:
    """1,000 streams on one quiet game that read nothing (32 per loopback address, from
    127.0.0.1 up) and 32 more beyond the server's cap; each outcome is a stream's status
    (200, then 429), and the streams stay open until the attack ends."""
    seen, game = Seen(), quiet_game(target)
    streams: list[socket.socket] = []
    try:
        for n in range(IDLE_STREAMS + PER_ADDRESS):
            if stop.is_set():
                break
            address = n // PER_ADDRESS
            sock = open_stream(target, game, f"127.0.{address // 250}.{address % 250 + 1}")
            streams.append(sock)
            seen.add(status_of(sock, timeout=10))
        stop.wait()
    finally:
        for sock in streams:
            sock.close()
    return seen


RECORD_EVENTS = 19_000  # a record just under the default max_record_events (about 6.4 MB)


def requests_in_threads(
    target: Target,
    threads: int,
    stop: threading.Event,
    one: Callable[[http.client.HTTPConnection], str],
) -> Seen:
    """``threads`` keep-alive clients each calling ``one`` (a request; its outcome) until
    ``stop``; each outcome with the seconds it took."""
    seen = Seen()

    def client() -> None:
        conn: http.client.HTTPConnection | None = None
        while not stop.is_set():
            conn = conn or http.client.HTTPConnection(target.host, target.port, timeout=60)
            began = time.monotonic()
            try:
                outcome = one(conn)
            except (OSError, http.client.HTTPException):
                outcome = "closed"
                conn.close()
                conn = None
            seen.add(outcome, 0, time.monotonic() - began)
        if conn is not None:
            conn.close()

    workers = [threading.Thread(target=client, daemon=True) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return seen


def call(
    conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None = None
) -> tuple[int, bytes]:
    """One request on ``conn``: its status and body."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    conn.request(method, path, body=body, headers=headers)
    reply = conn.getresponse()
    return reply.status, reply.read()


def big_record() -> bytes:
    """A valid record of a finished game of RECORD_EVENTS events."""
    from tests.big_record import big_record_bytes

    return big_record_bytes(RECORD_EVENTS)


def import_flood(target: Target, stop: threading.Event) -> Seen:
    """Eight clients importing the largest record the defaults accept, over and over."""
    record = big_record()
    return requests_in_threads(
        target, 8, stop, lambda c: str(call(c, "POST", "/games/import", record)[0])
    )


def audit_loop(target: Target, stop: threading.Event) -> Seen:
    """Four clients reading the audit of one long finished game (imported first), over and
    over."""
    record, game = big_record(), None
    conn = http.client.HTTPConnection(target.host, target.port, timeout=60)
    while game is None and not stop.is_set():
        status, body = call(conn, "POST", "/games/import", record)
        if status == 201:
            game = json.loads(body)["id"]
        else:
            stop.wait(1)
    conn.close()
    path = f"/games/{game}/audit"
    return requests_in_threads(target, 4, stop, lambda c: str(call(c, "GET", path)[0]))


def request_flood(target: Target, stop: threading.Event) -> Seen:
    """Sixteen clients sending ``GET /health`` as fast as they are answered: what a flood of
    the cheapest request costs (a calibration for the floods below, which the app can answer
    with a cheap 429 but not make cheaper than this)."""
    return requests_in_threads(target, 16, stop, lambda c: str(call(c, "GET", "/health")[0]))


def creation_flood(target: Target, stop: threading.Event) -> Seen:
    """Sixteen clients creating games as fast as they are answered."""
    body = b'{"ruleset": "race35", "seats": [{}, {}]}'
    return requests_in_threads(target, 16, stop, lambda c: str(call(c, "POST", "/games", body)[0]))


def bogus_tokens(target: Target, stop: threading.Event) -> Seen:
    """Eight clients writing to one game, each request with a new made-up token."""
    conn = http.client.HTTPConnection(target.host, target.port, timeout=60)
    status, body = call(conn, "POST", "/games", b'{"ruleset": "race35", "seats": [{}, {}]}')
    while status == 429 and not stop.wait(1):  # an attack before spent the address's budget
        status, body = call(conn, "POST", "/games", b'{"ruleset": "race35", "seats": [{}, {}]}')
    conn.close()
    if status != 201:
        return Seen()
    path, serial = f"/games/{json.loads(body)['id']}/moves", iter(range(10**9))

    def one(c: http.client.HTTPConnection) -> str:
        token = f"junk{next(serial)}"
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
        c.request("POST", path, body=b'{"move": "roll"}', headers=headers)
        reply = c.getresponse()
        reply.read()
        return str(reply.status)

    return requests_in_threads(target, 8, stop, one)


RATED_GAMES = 40
"""Rated games finished before the undo attack, so that its rule set has ratings to fold."""
RATED_PLAYERS = 12
"""The registered players those games seat, two at a time."""
FORFEIT_CLOCK = {"per_decision": 1.0, "on_timeout": "forfeit"}
"""The clock of those games: once both players have acted, whoever is to act runs out of
time and forfeits (the server's decision, which the rule of ratings counts)."""
UNDO_RULESET = "sorry"
"""The rule set of the undo attack's games: a race35 game has no decision to undo (every
move follows from the throw), a Sorry! game's moves are mostly the player's choice."""
MOVES_AT_MOST = 5_000
"""Actions played at most to finish a game of the undo attack (a Sorry! game of two takes
about 400)."""
UNDO_ADDRESS = "127.0.0.4"
"""The undo attack's client address: a creation budget of its own (registrations and games
count against it), which the floods before it leave spent on 127.0.0.1."""
UNDO_TRIES = 5
"""Games played to their end at most until one ends with a decision its player may undo
(the last move of a game may be the only one the card allows, which nobody decided)."""


def as_referee(
    conn: http.client.HTTPConnection, method: str, path: str, token: str, body: Any = None
) -> tuple[int, Any]:
    """One JSON request with the referee's token (or another bearer: a player's key): its
    status and decoded body."""
    headers = {"Authorization": f"Bearer {token}"}
    data = None if body is None else json.dumps(body).encode()
    if data is not None:
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    reply = conn.getresponse()
    raw = reply.read()
    return reply.status, json.loads(raw) if raw else None


def budgeted(conn: http.client.HTTPConnection, path: str, body: Any, stop: Any) -> Any:
    """The reply of a creating ``POST`` (a game, a registration), waiting out the address's
    creation budget (an attack before spent it); None when refused or once ``stop`` is set."""
    data = json.dumps(body).encode()
    status, created = call(conn, "POST", path, data)
    while status == 429 and not stop.wait(1):
        status, created = call(conn, "POST", path, data)
    return json.loads(created) if status == 201 else None


def rated_game(
    conn: http.client.HTTPConnection, keys: dict[str, str], stop: Any, **body: Any
) -> dict[str, Any]:
    """A new rated ``UNDO_RULESET`` game whose seats belong to the registered players
    ``keys`` (handle: key), in that order; its creation reply with each player's key at her
    seat in ``tokens.seats`` (where the service gives none), or {}."""
    seats = [{"player": handle} for handle in keys]
    created = budgeted(conn, "/games", {"ruleset": UNDO_RULESET, "seats": seats, **body}, stop)
    if not created:
        return {}
    created["tokens"]["seats"] = list(keys.values())
    return dict(created)


def play_first(conn: http.client.HTTPConnection, created: dict[str, Any]) -> int | None:
    """Whoever is to act plays its first legal move (a draw, a move) with its own key; the
    seat that acted, None when the game is over."""
    game, keys = f"/games/{created['id']}", created["tokens"]["seats"]
    state = as_referee(conn, "GET", game, keys[0])[1]
    if state["status"] != "active":
        return None
    seat = state["to_act"][0]["seat"]
    legal = as_referee(conn, "GET", f"{game}/legal-moves", keys[seat])[1]
    as_referee(conn, "POST", f"{game}/moves", keys[seat], {"move": legal["moves"][0]["id"]})
    return int(seat)


def finished_by(conn: http.client.HTTPConnection, created: dict[str, Any], stop: Any) -> int | None:
    """Play the game to its end, each seat with its own key; the seat that acted last (None
    if it would not end, or once ``stop`` is set)."""
    last = None
    for _ in range(MOVES_AT_MOST):
        if stop.is_set():
            return None
        acted = play_first(conn, created)
        if acted is None:
            return last
        last = acted
    return None


def rated_players(conn: http.client.HTTPConnection, stop: Any) -> list[tuple[str, str]]:
    """``RATED_PLAYERS`` and two more new registered players (handle, key), each
    registered by herself; [] once ``stop`` is set. The handles are new to the server (one
    given with ``--url`` may have met the attack before)."""
    suffix = os.urandom(3).hex()
    players = []
    for n in range(RATED_PLAYERS + 2):
        registered = budgeted(conn, "/players", {"handle": f"p{n}-{suffix}"}, stop)
        if not registered:
            return []
        players.append((str(registered["handle"]), str(registered["key"])))
    return players


def season(conn: http.client.HTTPConnection, players: list[tuple[str, str]], stop: Any) -> bool:
    """``RATED_GAMES`` rated games of two registered players each: both act (a roll, a move,
    with their own keys), then the clock forfeits whoever is to act; whether they were all
    started before ``stop``."""
    for n in range(RATED_GAMES):
        pair = dict([players[n % len(players)], players[(n + 5) % len(players)]])
        created = rated_game(conn, pair, stop, clock=FORFEIT_CLOCK)
        if not created or stop.is_set():
            return False
        acted: set[int] = set()
        while len(acted) < 2 and (seat := play_first(conn, created)) is not None:
            acted.add(seat)
    return True


def undoable_finish(
    conn: http.client.HTTPConnection, two: dict[str, str], stop: Any, seen: Seen
) -> tuple[str, str] | None:
    """A rated game of the two registered players ``two`` (handle: key), undo allowed,
    played to its end whose finishing decision its player undid and made again (so that it
    is finished, and may be undone again); its path and the finisher's key. At most
    ``UNDO_TRIES`` games, each refusal of the undo recorded in ``seen``; None when every
    game's end was no decision to undo, or once ``stop`` is set."""
    for _ in range(UNDO_TRIES):
        created = rated_game(conn, two, stop, allow_undo=True)
        finisher = finished_by(conn, created, stop) if created else None
        if finisher is None:
            return None
        game, key = f"/games/{created['id']}", created["tokens"]["seats"][finisher]
        status, undone = as_referee(conn, "POST", f"{game}/undo", key, {"reason": "bench"})
        if status == 200:
            finished_by(conn, created, stop)
            return game, key
        seen.add(f"{status} {undone.get('type', '').rsplit('/', 1)[-1]}")
    return None


def undo_the_finish(target: Target, stop: threading.Event) -> Seen:
    """Two registered players finish a rated Sorry! game (undo allowed) with their own keys;
    the one whose decision finished it undoes it with her key (which reopens the game) and
    makes it again, over and over, reading the rule set's ratings after each round. First
    40 rated games of twelve registered players are finished (each player acts, then the
    clock forfeits whoever is to act), so that the rule set has ratings to fold. It all
    comes from an address of its own (``UNDO_ADDRESS``).

    The referee takes no part: it ends no game whose seats belong to players and undoes none
    of their decisions. A player undoes her own latest decision where the game allows it,
    the one that finished the game too. Each finish and each reopening changes the ratings
    (refolded from that game on): the first finish rates the game; undone after its end
    (its seed revealed) it never counts again, so each later finish is folded and left out."""
    seen = Seen()
    conn = from_address(target, UNDO_ADDRESS)
    players = rated_players(conn, stop)
    if not players or not season(conn, players[:RATED_PLAYERS], stop):
        return seen
    finished = undoable_finish(conn, dict(players[RATED_PLAYERS:]), stop, seen)
    if finished is None:
        return seen
    game, key = finished
    while not stop.is_set():
        began = time.monotonic()
        try:
            steps = [as_referee(conn, "POST", f"{game}/undo", key, {"reason": "bench"})]
            _, legal = as_referee(conn, "GET", f"{game}/legal-moves", key)
            move = {"move": legal["moves"][0]["id"]}
            steps.append(as_referee(conn, "POST", f"{game}/moves", key, move))
            steps.append(as_referee(conn, "GET", f"/ratings?ruleset={UNDO_RULESET}", key))
            outcome = str(max(status for status, _ in steps))  # the worst of the round
        except (OSError, http.client.HTTPException, KeyError, IndexError, TypeError):
            outcome = "failed"
            conn.close()
            conn = from_address(target, UNDO_ADDRESS)
        seen.add(outcome, 0, time.monotonic() - began)
    conn.close()
    return seen


def json_flood(target: Target, stop: threading.Event, body: bytes) -> Seen:
    """Eight clients posting ``body`` as a new game, as fast as they are answered."""
    return requests_in_threads(target, 8, stop, lambda c: str(call(c, "POST", "/games", body)[0]))


def deep_json(target: Target, stop: threading.Event) -> Seen:
    """Bodies nested 950 levels deep (a RecursionError, a 500, before the body checks)."""
    deep = b"[" * 950 + b"]" * 950
    return json_flood(target, stop, b'{"ruleset": "race35", "seats": ' + deep + b"}")


def heavy_json(target: Target, stop: threading.Event) -> Seen:
    """The dearest body found for the body checks (service/api/bodies.py): just under 64 KiB
    of chains 10 levels deep, which leave thousands of runs of brackets to add up."""
    chains = b",".join([b"[" * 10 + b"]" * 10] * 3100)
    return json_flood(target, stop, b'{"ruleset": "race35", "seats": [' + chains + b"]}")


def huge_deck(target: Target, stop: threading.Event) -> Seen:
    """Eight clients creating partners games with a deck of 100 million 2s (it was built, a
    gigabyte and more a game; the option's maximum refuses it)."""
    seats = [{"name": f"P{i}"} for i in range(4)]
    game = {"ruleset": "partners", "seats": seats, "options": {"deck_counts": {"N2": 10**8}}}
    return json_flood(target, stop, json.dumps(game).encode())


def unending_game(target: Target, stop: threading.Event) -> Seen:
    """Eight clients creating race35 games that play themselves and could never end (every
    special square red: 200,000 automatic steps and a 500 each, before race35 refused them)."""
    special = {str(square): "red" for square in range(2, 35)}
    game = {
        "ruleset": "race35",
        "seats": [{}, {}, {}],
        "auto_chance": True,
        "options": {"special_squares": special},
    }
    return json_flood(target, stop, json.dumps(game).encode())


def refused_flood(target: Target, stop: threading.Event) -> Seen:
    """128 connections asking for games that do not exist as fast as they are answered: the
    tarpit holds 64 refusals a second late and answers the rest at once, closing."""
    paths = (f"/games/nothing{i}" for i in range(10**9))
    return requests_in_threads(target, 128, stop, lambda c: str(call(c, "GET", next(paths))[0]))


def tournament_rounds(target: Target, stop: threading.Event) -> Seen:
    """Eight clients each creating a tournament of 256 players and pairing its first round
    (128 games) over and over: every game a round makes counts against the creation budget
    like any other, so the rounds soon meet 429s."""
    players = [{"name": f"P{i}"} for i in range(256)]
    body = json.dumps(
        {"name": "flood", "ruleset": "race35", "seats_per_table": 2, "players": players}
    ).encode()

    def one(c: http.client.HTTPConnection) -> str:
        status, reply = call(c, "POST", "/tournaments", body)
        if status != 201:
            return f"create {status}"
        created = json.loads(reply)
        headers = {
            "Content-Type": "application/json",
            "Authorization": f"Bearer {created['tokens']['director']}",
        }
        c.request("POST", f"/tournaments/{created['id']}/rounds", body=b"{}", headers=headers)
        answer = c.getresponse()
        answer.read()
        return f"pair {answer.status}"

    return requests_in_threads(target, 8, stop, one)


def unknown_tournaments(target: Target, stop: threading.Event) -> Seen:
    """Thirty-two clients asking for the standings of tournaments that do not exist, each
    id 8,000 characters and new (a lock per unknown id would grow memory for good)."""
    serial = iter(range(10**9))

    def one(c: http.client.HTTPConnection) -> str:
        path = f"/tournaments/{next(serial):08x}{'x' * 7992}/standings"
        return str(call(c, "GET", path)[0])

    return requests_in_threads(target, 32, stop, one)


HOG_MOVES = 120
"""Moves the referee plays in its parchis-2dice game before asking for its analysis (about
250 versions, a game being about 470 long): its first analysis costs a few CPU-seconds."""


def played(conn: http.client.HTTPConnection, created: dict[str, Any], moves: int) -> bool:
    """Play the first legal move of whoever is to act ``moves`` times (or until the game
    ends); whether the game still runs."""
    game, seats = created["id"], created["tokens"]["seats"]
    referee = created["tokens"]["referee"]
    for _ in range(moves + 1):
        state = as_referee(conn, "GET", f"/games/{game}", referee)[1]
        if state["status"] != "active" or moves == 0:
            return bool(state["status"] == "active")
        moves -= 1
        seat = seats[state["to_act"][0]["seat"]]
        legal = as_referee(conn, "GET", f"/games/{game}/legal-moves", seat)[1]["moves"]
        as_referee(conn, "POST", f"/games/{game}/moves", seat, {"move": legal[0]["id"]})
    return False


def created_game(conn: http.client.HTTPConnection, body: dict[str, Any], stop: Any) -> Any:
    """A new game (waiting out the address's creation budget), or None once ``stop`` is set."""
    while not stop.is_set():
        status, created = as_referee(conn, "POST", "/games", "", body)
        if status == 201:
            return created
        stop.wait(1)
    return None


def analysis_hog(target: Target, stop: threading.Event) -> Seen:
    """A referee (127.0.0.1) asking for the analysis of its running parchis-2dice game
    (``HOG_MOVES`` moves played first; a new one when it ends) after every move it plays,
    twice a second, while another address (127.0.0.2) asks for the analysis of a short game
    of its own, just finished (ten moves, then an agreement), every 0.1 s until it gets it,
    game after game. Outcomes: the other's 429s, its analyses (seconds: from its first ask
    to the 200) and their median, and the referee's answers."""
    seen, ready = Seen(), threading.Event()

    def referee() -> None:
        conn = http.client.HTTPConnection(target.host, target.port, timeout=60)
        body = {"ruleset": "parchis-2dice", "seats": [{}, {}, {}, {}], "auto_chance": True}
        while (created := created_game(conn, body, stop)) is not None:
            played(conn, created, HOG_MOVES)
            ready.set()
            path, token = f"/games/{created['id']}/analysis", created["tokens"]["referee"]
            while not stop.wait(0.5) and played(conn, created, 1):
                seen.add(f"referee {as_referee(conn, 'GET', path, token)[0]}")
        conn.close()

    def other() -> None:
        conn = http.client.HTTPConnection(
            target.host, target.port, timeout=60, source_address=("127.0.0.2", 0)
        )
        waits: list[float] = []
        ending = {"kind": "agreement", "reason": "bench", "winners": [0]}
        while not ready.wait(0.1) and not stop.is_set():
            pass
        while not stop.is_set():
            created = created_game(conn, {"ruleset": "race35", "seats": [{}, {}]}, stop)
            if created is None:
                break
            played(conn, created, 10)
            game, token = created["id"], created["tokens"]["referee"]
            as_referee(conn, "POST", f"/games/{game}/adjudicate", token, ending)
            began = time.monotonic()
            while not stop.is_set():
                status = call(conn, "GET", f"/games/{game}/analysis")[0]
                if status == 429:
                    seen.add("other 429")
                elif status != 202:
                    waits.append(time.monotonic() - began)
                    seen.add(f"other {status}", 0, waits[-1])
                    break
                stop.wait(0.1)
        conn.close()
        if waits:
            seen.add(f"other's median wait {statistics.median(waits):.2f} s")

    threads = [threading.Thread(target=one, daemon=True) for one in (referee, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return seen


BURST_ADDRESS, PERSON_ADDRESS = "127.0.0.2", "127.0.0.3"  # two owners of games with bots
BURST_RULESETS = ("partners", "parchis-2dice")
ALONE_SECONDS = 6.0  # the person plays alone first, for the figures to compare with


def from_address(target: Target, source: str) -> http.client.HTTPConnection:
    """A keep-alive connection from the loopback address ``source``."""
    return http.client.HTTPConnection(
        target.host, target.port, timeout=60, source_address=(source, 0)
    )


def bot_answers(conn: http.client.HTTPConnection, game: str) -> list[float]:
    """The seconds each bot decision of ``game`` took, from its log's timestamps: from the
    event that made the seat pending to the bot's own (as ``bench/bot_service.py`` reads)."""
    events: list[dict[str, Any]] = []
    while True:
        status, body = call(conn, "GET", f"/games/{game}/events?after={len(events)}&limit=1000")
        page = json.loads(body) if status == 200 else {"events": []}
        events += page["events"]
        if not page["events"] or len(events) >= page["version"]:
            break
    at = [datetime.fromisoformat(event["at"]).timestamp() for event in events]
    return [at[n] - at[n - 1] for n in range(1, len(events)) if events[n]["by"] == "bot"]


def person_plays(target: Target, until: Callable[[], bool]) -> list[float]:
    """A person at PERSON_ADDRESS plays parchis-2dice against an expert bot (random legal
    moves as soon as it is their turn), game after game, until ``until()``; the bot's
    answers' seconds."""
    conn, answers = from_address(target, PERSON_ADDRESS), []
    seats = [{"name": "Ann"}, {"name": "Robin", "bot": "expert"}]
    body = json.dumps({"ruleset": "parchis-2dice", "seats": seats, "auto_chance": True}).encode()
    while not until():
        status, created = call(conn, "POST", "/games", body)
        if status != 201:
            time.sleep(1)
            continue
        game, token = json.loads(created)["id"], json.loads(created)["tokens"]["seats"][0]
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        while not until():
            conn.request("GET", f"/games/{game}/legal-moves", headers=headers)
            legal = json.loads(conn.getresponse().read())
            if not legal["moves"]:  # the bot's turn, or the end
                if json.loads(call(conn, "GET", f"/games/{game}")[1])["status"] == "finished":
                    break
                time.sleep(0.005)
                continue
            move = random.choice(legal["moves"])
            play = {"move": move["id"], "seat": 0, "expected_version": legal["version"]}
            conn.request("POST", f"/games/{game}/moves", body=json.dumps(play), headers=headers)
            conn.getresponse().read()
        answers += bot_answers(conn, game)
    conn.close()
    return answers


def bot_owner_burst(target: Target, stop: threading.Event) -> Seen:
    """One address (BURST_ADDRESS) creating games of four expert bots (partners and
    parchis-2dice, in turn) as fast as it is let, while a person at another address plays
    one game after another against an expert bot; printed: the bot's answers to the person,
    p50 and p95, alone (the first ALONE_SECONDS, before the burst) and during the burst. Each
    outcome is a creation's status."""
    seen, began = Seen(), time.monotonic()
    alone = person_plays(target, lambda: time.monotonic() - began > ALONE_SECONDS)

    def burst() -> None:
        conn, serial = from_address(target, BURST_ADDRESS), 0
        seats = [{"name": f"Bot {n}", "bot": "expert"} for n in range(4)]
        while not stop.is_set():
            ruleset = BURST_RULESETS[serial % len(BURST_RULESETS)]
            body = json.dumps({"ruleset": ruleset, "seats": seats}).encode()
            status, _ = call(conn, "POST", "/games", body)
            seen.add(str(status))
            serial += status == 201
            if status == 429:
                stop.wait(1)
        conn.close()

    burster = threading.Thread(target=burst, daemon=True)
    burster.start()
    during = person_plays(target, stop.is_set)
    burster.join()

    def figures(answers: list[float]) -> str:
        p50, p95 = (percentile(answers, f) * 1000 for f in (0.5, 0.95))
        return f"p50 {p50:,.0f} / p95 {p95:,.0f} ms ({len(answers)} answers)"

    ratio = percentile(during, 0.95) / percentile(alone, 0.95)
    print(
        f"bot owner burst: the person's bot answered alone in {figures(alone)}, during the "
        f"burst in {figures(during)}: p95 {ratio:.1f} times alone's",
        flush=True,
    )
    return seen


# Each attack, in the order printed.
def kill_a_worker(target: Target, stop: threading.Event) -> Seen:
    """``kill -9`` one of the server's workers, then ``GET /health`` every 0.2 s for 5 s,
    each on a connection of its own (answered or not), and once more 10 s after the kill:
    whether the service is still up."""
    seen = Seen()
    workers = children(target.pid)
    if not workers:
        seen.add("no worker to kill")
        stop.wait()
        return seen
    killed = time.monotonic()
    os.kill(workers[0], signal.SIGKILL)
    for probe in range(25):
        time.sleep(max(0.0, killed + probe * 0.2 - time.monotonic()))
        began = time.monotonic()
        answered = health_answered(target)
        seen.add(
            "/health answered" if answered else "/health unanswered", 0, time.monotonic() - began
        )
    time.sleep(max(0.0, killed + 10 - time.monotonic()))
    seen.add("up after 10 s" if health_answered(target) else "down after 10 s")
    stop.wait()
    return seen


def health_answered(target: Target) -> bool:
    """Whether ``GET /health`` on a new connection is answered 200 within a second."""
    conn = http.client.HTTPConnection(target.host, target.port, timeout=1)
    try:
        conn.request("GET", "/health")
        return conn.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()


SOCKET_PATH = "/games/{}/socket"


def open_socket(target: Target, game: str, receive_buffer: int = 0) -> socket.socket:
    """A game socket over a plain connection, said hello to as a spectator (what the server
    sends left unread), with a 0.2 s timeout."""
    sock, _ = raw_websocket(target.host, target.port, game, receive_buffer)
    sock.settimeout(0.2)
    return sock


def send_until(sock: socket.socket, data: bytes, stop: Any, ended: Any = None) -> tuple[int, bool]:
    """Send ``data`` over and over (frames stay whole across timeouts) until ``stop`` or
    ``ended`` is set or the server ends the connection: the bytes sent, and whether it did."""
    view, at, sent = memoryview(data), 0, 0
    while not stop.is_set() and not (ended is not None and ended.is_set()):
        try:
            count = sock.send(view[at:])
        except TimeoutError:
            continue
        except OSError:
            return sent, True
        at, sent = (at + count) % len(data), sent + count
    return sent, ended is not None and ended.is_set()


def close_code(tail: bytes) -> int | None:
    """The code of the close frame that ends ``tail`` (the last bytes the server sent)."""
    for at in range(len(tail) - 4, -1, -1):
        if tail[at] == 0x88 and tail[at + 1] == len(tail) - at - 2:
            return int.from_bytes(tail[at + 2 : at + 4], "big")
    return None


def socket_flood(target: Target, stop: threading.Event, frames: bytes) -> Seen:
    """One socket at a time sending ``frames`` as fast as it can while reading everything the
    server sends; one the server ends (a close frame, or the connection closed) is replaced.
    Each socket's outcome is how it ended (``closed 4429``, ``reset``, ``still open`` when the
    attack ended)."""
    seen, game = Seen(), quiet_game(target)
    while not stop.is_set():
        began, sock = time.monotonic(), open_socket(target, game)
        tail, ended = bytearray(), threading.Event()

        def read(sock: socket.socket = sock, tail: bytearray = tail, ended: Any = ended) -> None:
            while not ended.is_set():
                try:
                    chunk = sock.recv(1 << 16)
                except TimeoutError:
                    continue
                except OSError:
                    chunk = b""
                tail[:] = (tail + chunk)[-200:]
                if not chunk or close_code(bytes(tail)) is not None:
                    ended.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        sent, gone = send_until(sock, frames, stop, ended)
        if gone:
            ended.wait(5)
        code = close_code(bytes(tail)) if ended.is_set() else None
        outcome = f"closed {code}" if code else "reset" if ended.is_set() else "still open"
        ended.set()
        reader.join(timeout=5)
        sock.close()
        seen.add(outcome, sent, time.monotonic() - began)
    return seen


def socket_message_flood(target: Target, stop: threading.Event) -> Seen:
    """JSON ``ping`` messages as fast as one socket sends them, every pong read."""
    return socket_flood(target, stop, JSON_PINGS)


def socket_ping_frames_flood(target: Target, stop: threading.Event) -> Seen:
    """Protocol PING frames as fast as one socket sends them, every pong read."""
    return socket_flood(target, stop, PING_FRAMES)


def free_slots(target: Target, game: str) -> int:
    """How many sockets this address opens now, of its ``PER_ADDRESS``."""
    opened: list[WebSocketClient] = []
    try:
        for _ in range(PER_ADDRESS):
            client = WebSocketClient(target.url, SOCKET_PATH.format(game))
            opened.append(client)
            client.send({"type": "hello", "token": None})
            client.recv()  # the welcome, or the close (4429) when no slot is free
    except (ConnectionError, OSError):
        return len(opened) - 1
    finally:
        for client in opened:
            client.close()
    return len(opened)


def pings_never_read(target: Target, stop: threading.Event) -> Seen:
    """Rounds of one socket with a small receive buffer sending PING frames and never
    reading, until the server lets it go or the attack ends; then, the socket still open, how
    many of the address's slots are free (a server that kept the socket leaves 31 of 32)."""
    seen, game = Seen(), quiet_game(target)
    while not stop.is_set():
        began, sock = time.monotonic(), open_socket(target, game, receive_buffer=4096)
        sent, gone = send_until(sock, PING_FRAMES, stop)
        seconds, free = time.monotonic() - began, free_slots(target, game)
        outcome = "let go" if gone else "still open"
        seen.add(f"{outcome}, slots free {free}/{PER_ADDRESS}", sent, seconds)
        sock.close()
    return seen


ATTACKS: list[Attack] = [
    Attack("busy attacker CPU", burn),
    Attack("endless header", endless_header),
    Attack("endless request line", endless_request_line),
    Attack("many headers", many_headers),
    Attack("slow body", slow_body, min_seconds=12.0),
    Attack("slow head", slow_head, min_seconds=12.0),
    Attack("stream slot leak", stream_slot_leak),
    Attack("idle streams", idle_streams, min_seconds=10.0),
    Attack("deep JSON", deep_json),
    Attack("heavy JSON", heavy_json),
    Attack("audit loop", audit_loop, min_seconds=15.0),
    Attack("import flood", import_flood),
    Attack("request flood", request_flood, calibration=True),
    Attack("creation flood", creation_flood),
    Attack("bogus tokens", bogus_tokens),
    Attack("huge deck count", huge_deck),
    Attack("unending game", unending_game),
    Attack("refused flood", refused_flood),
    Attack("undo the finish", undo_the_finish, min_seconds=10.0),
    Attack("tournament rounds", tournament_rounds),
    Attack("unknown tournaments", unknown_tournaments),
    Attack("bot owner burst", bot_owner_burst, min_seconds=30.0),
    Attack("kill a worker", kill_a_worker, min_seconds=12.0, workers=2),
    Attack("analysis hog", analysis_hog, min_seconds=30.0),
    Attack("socket message flood", socket_message_flood),
    Attack("socket ping frames flood", socket_ping_frames_flood),
    Attack("ping frames never read", pings_never_read, min_seconds=12.0),
]


@dataclass
class Figures:
    """One row of the table."""

    median: float
    health_5xx: int
    rss_peak_kib: int
    cpu_share: float


def health_median(target: Target, seconds: float) -> tuple[float, int]:
    """The median seconds of ``GET /health`` from one keep-alive client looping for
    ``seconds`` (a failure counts as HEALTH_TIMEOUT), and how many answers were 5xx."""
    samples: list[float] = []
    fivexx = 0
    conn = http.client.HTTPConnection(target.host, target.port, timeout=HEALTH_TIMEOUT)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline or len(samples) < 5:
        began = time.perf_counter()
        try:
            conn.request("GET", "/health")
            reply = conn.getresponse()
            reply.read()
            fivexx += reply.status >= 500
            samples.append(time.perf_counter() - began)
        except (OSError, http.client.HTTPException):
            samples.append(HEALTH_TIMEOUT)
            conn.close()
            conn = http.client.HTTPConnection(target.host, target.port, timeout=HEALTH_TIMEOUT)
    conn.close()
    return statistics.median(samples), fivexx


@contextmanager
def watching(pid: int) -> Iterator[Callable[[], tuple[int, float]]]:
    """Sample the server's RSS every 50 ms while the block runs; yields a function giving
    the peak RSS (KiB) and the CPU share (of one core) so far."""
    peak = [rss_kib(pid)]
    stop = threading.Event()
    cpu0, wall0 = cpu_seconds(pid), time.monotonic()

    def sample() -> None:
        while not stop.wait(0.05):
            try:
                peak[0] = max(peak[0], rss_kib(pid))
            except (OSError, RuntimeError):
                return

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()

    def figures() -> tuple[int, float]:
        wall = time.monotonic() - wall0
        return peak[0], (cpu_seconds(pid) - cpu0) / wall if wall else 0.0

    try:
        yield figures
    finally:
        stop.set()
        sampler.join()


def attacking(
    run: Attacker, target: Target, started: Any, stop: Any, results: Any
) -> None:  # pragma: no cover - runs in the attacker's process
    """The attacker's process: run the attack until ``stop``, then send back what it saw."""
    started.set()
    results.put(run(target, stop).connections)


def measure(target: Target, attack: Attack | None, seconds: float) -> tuple[Figures, Seen]:
    """Run ``attack`` (None: nothing, the idle figures) for ``seconds`` while measuring.

    The attack runs in a process of its own, so that its threads never hold this process's
    GIL while the well-behaved client waits for its reply."""
    context = multiprocessing.get_context("spawn")
    stop, started, results = context.Event(), context.Event(), context.Queue()
    seen = Seen()
    with watching(target.pid) as figures:
        attacker = None
        if attack is not None:
            attacker = context.Process(
                target=attacking, args=(attack.run, target, started, stop, results), daemon=True
            )
            attacker.start()
            if not started.wait(60):
                raise RuntimeError(f"the attacker of {attack.name!r} did not start")
            time.sleep(min(0.5, seconds / 4))  # let it get going
        median, fivexx = health_median(target, seconds)
        stop.set()
        if attacker is not None:
            seen = Seen(results.get(timeout=60))
            attacker.join(timeout=10)
            if attacker.is_alive():
                attacker.terminate()
        rss, cpu = figures()
    return Figures(median, fivexx, rss, cpu), seen


@dataclass
class Served:
    """The server under attack and where its log goes (None: a server run by someone else)."""

    target: Target
    log: Path | None

    def errors(self) -> int:
        """Lines the server has logged at level error so far (tracebacks included)."""
        if self.log is None:
            return 0
        text = self.log.read_text(errors="replace")
        return text.count("level='error'") + text.count('"level": "error"')


@contextmanager
def serving(folder: Path, workers: int = 1) -> Iterator[Served]:
    """``python -m service`` on a free port over a fresh SQLite file in ``folder``, log level
    warning, its output in ``folder/server.log``, in ``workers`` processes."""
    log = folder / "server.log"
    env = {"TABULA_LOG_LEVEL": "warning", "TABULA_DATABASE_URL": ""}
    env["TABULA_WORKERS"] = str(workers)
    with service_process(folder / "abuse.db", env, log=log) as (url, process):
        yield Served(Target(url, process.pid), log)


def run(served: Served, attacks: list[Attack], seconds: float, quick: bool = False) -> bool:
    """Print the table; whether every ratio is under 5 and no 5xx was seen."""
    target = served.target
    measure(target, None, min(seconds, 1.0))  # warm up
    idle, _ = measure(target, None, seconds)
    print(
        f"idle: /health median {idle.median * 1000:.2f} ms, RSS {idle.rss_peak_kib / 1024:.0f} "
        f"MiB, CPU {idle.cpu_share:.0%} of a core"
    )
    print(
        f"{'attack':<22} {'ratio':>7} {'RSS MiB':>8} {'CPU':>5} {'5xx':>4} {'errors':>6}  "
        "attacker saw"
    )
    good = True
    for attack in attacks:
        errors = served.errors()
        during, seen = measure(
            target, attack, seconds if quick else max(seconds, attack.min_seconds)
        )
        ratio = during.median / idle.median
        fivexx = during.health_5xx + seen.fivexx()
        logged = served.errors() - errors
        good = good and (attack.calibration or ratio < 5) and fivexx == 0
        name = attack.name + (" *" if attack.calibration else "")
        print(
            f"{name:<22} {ratio:>7.2f} {during.rss_peak_kib / 1024:>8.0f} "
            f"{during.cpu_share:>5.0%} {fivexx:>4} {logged:>6}  {seen.summary()}"
        )
    if any(attack.calibration for attack in attacks):
        print("* a calibration: requests the server must serve, outside the target")
    print("target: every ratio under 5 and no 5xx:", "met" if good else "NOT MET")
    return good


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=5.0, help="per attack (5)")
    names = [attack.name for attack in ATTACKS]
    parser.add_argument("--attacks", nargs="+", choices=names, default=names, metavar="NAME")
    parser.add_argument(
        "--quick", action="store_true", help="every attack for --seconds, slow ones too"
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when the target is not met")
    parser.add_argument("--url", help="attack the server already running there")
    parser.add_argument("--pid", type=int, help="that server's process id (for RSS and CPU)")
    args = parser.parse_args(argv)
    attacks = [attack for attack in ATTACKS if attack.name in args.attacks]
    if args.url is not None:
        if args.pid is None:
            parser.error("--url needs --pid")
        good = run(Served(Target(args.url, args.pid), None), attacks, args.seconds, args.quick)
    else:
        good = True
        for workers in sorted({attack.workers for attack in attacks}):  # a server for each
            some = [attack for attack in attacks if attack.workers == workers]
            with tempfile.TemporaryDirectory() as folder, serving(Path(folder), workers) as served:
                good = run(served, some, args.seconds, args.quick) and good
    return 0 if good or not args.check else 1


if __name__ == "__main__":
    raise SystemExit(main())

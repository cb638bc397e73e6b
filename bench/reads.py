"""Reads with a season of games: how listings, tag filters, standings and opening a game grow
with the number of games in the database.

The database is filled directly through the event store (no HTTP, ``synchronous=OFF``, many
threads so that the group commit batches them): first the players, 600 and ``regular``, each
registered as by ``POST /players``; then for each size, finished games and one running game in
a hundred, interleaved. Each game is a copy of one of a few template games played through the
use cases, rated, every seat a registered player's (``{"player": handle}``), with the server's
chance and a clock (Sorry!, Ludo, Parchís, Sorry! with a hand, Partners: each player plays
random moves as herself, a ``Player(handle)`` caller, until every seat has acted, then a few
more; then the clock runs out for whoever is to act, who forfeits: the server's decision. Or
left running). A copy has a new id, its seats given to players of the pool (``GameCreated``'s
players and seat names, the summary's) and its own tags (``league`` of 1,000 games in
creation order, ``round``), and is appended with the summary the service writes for it. So
every finished game counts for ratings as the service's rule says (the ratings' ``rule.py``):
its players are on the leaderboard and it is in their histories (the script stops before
timing when the Ludo leaderboard is empty or ``regular`` has no rating). Then the real server
(``python -m service`` over the file) is started and timed over HTTP, each read ``--reads``
times, median in milliseconds:

- page of 100: ``GET /games?limit=100&cursor=...`` in the middle of the listing;
- tag filter: ``GET /games?tag=league:L0&limit=100`` (a tag of 1,000 games at every size);
- standings: ``GET /standings?tag=league:L0`` (1,000 finished games);
- open a game: ``GET /games/{id}`` of a random finished game (most not in memory yet);
- ratings: ``GET /ratings?ruleset=ludo&limit=100`` (the first page of the leaderboard);
- a player: ``GET /players/regular?limit=100``, the ratings and history of a player of one
  game in twenty among the first 1,000 and of none after (the same history at every size);
- all standings: ``GET /standings`` without a tag (every finished game, 600 names).

Ratings and the standings without a tag are derived data the server keeps in the store and
brings up to date at a read: the first read after a fill (which folds every game added) is
timed on its own, in seconds ("catch-up s"), and left out of the medians.

Target: each at the largest size within 2x of its time at the smallest.

Run ``python bench/reads.py [--sizes 1000 100000] [--reads 30]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import sqlite3  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections.abc import Callable  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from datetime import UTC, datetime, timedelta  # noqa: E402
from typing import Any, NamedTuple  # noqa: E402

import httpx  # noqa: E402

from bench.harness import percentile, server  # noqa: E402
from eventstore import Appending, EventStore, NewEvent, SqliteEventStore, Summary  # noqa: E402
from service.app import UseCases, bootstrap  # noqa: E402
from service.core.actor import Player  # noqa: E402
from service.core.clocks import Clock  # noqa: E402
from service.core.commands import CreateGame, PlayMove, SeatSpec  # noqa: E402
from service.usecases.cursors import Cursors  # noqa: E402
from service.usecases.games.summaries import summary_of  # noqa: E402
from service.usecases.players.book import PlayerBook  # noqa: E402
from service.usecases.writer import Writer  # noqa: E402

PLAYERS = [f"player-{n:03}" for n in range(600)]
REGULAR = "regular"
"""A player of one game in twenty among the first ``LEAGUE`` games, and of none after."""
LEAGUE = 1_000
"""Games per league tag (the tag filter's and the standings' selection)."""
RULESETS = [("sorry", 2), ("ludo", 4), ("parchis", 3), ("sorry-hand", 2), ("partners", 4)]
RUNNING_EVERY = 100
CLOCK = Clock(per_decision=86_400, on_timeout="forfeit")
"""The templates' clock: a day a decision (no copy left running runs out while the server is
timed), and whoever runs out forfeits: every other seat wins."""


class Template(NamedTuple):
    """A game played for real, to copy: its events, secrets, stream meta and summary (with
    seats that belong to the registered players T0, T1, ...)."""

    events: list[NewEvent]
    private: dict[str, Any]
    meta: dict[str, Any]
    summary: Summary


def template_handle(seat: int) -> str:
    """The registered player a template seats at ``seat``."""
    return f"T{seat}"


def play_one(cases: UseCases, game_id: str, rng: random.Random) -> int:
    """Whoever is to act plays a random legal move (a draw, a roll, a move) as the
    registered player the seat belongs to; that seat."""
    with cases.games.game(game_id) as game:
        state, rules = game.replay.state, game.rules
        seat = rules.to_act(state)[0].seat
        move = rng.choice(rules.legal_moves(state, seat)).id
    cases.commands.play(game_id, Player(template_handle(seat)), PlayMove(move=move), None)
    return seat


def played(cases: UseCases, n: int, rng: random.Random) -> Template:
    """Template ``n``: a rated game of registered players, each seat's moves played by its
    player (random ones); unless it is left running (one in four), every seat acts, a few
    more moves are played, then the clock runs out for whoever is to act, who forfeits."""
    ruleset, players = RULESETS[n % len(RULESETS)]
    seats = [SeatSpec(player=template_handle(seat)) for seat in range(players)]
    game_id = cases.commands.create(CreateGame(ruleset, seats, clock=CLOCK)).id
    acted: set[int] = set()
    while n % 4 != 3 and len(acted) < players:
        acted.add(play_one(cases, game_id, rng))
    for _ in range(rng.randrange(0, 8)):
        play_one(cases, game_id, rng)
    if n % 4 != 3:
        later = datetime.now(UTC) + timedelta(seconds=2 * (CLOCK.per_decision or 0))
        cases.commands.enforce_clock(game_id, later)
    with cases.games.game(game_id) as game:
        summary = summary_of(game.replay)
    stored, stream = cases.store.read(game_id), cases.store.stream(game_id)
    private = cases.store.private(game_id) or {}
    events = [NewEvent(e.type, dict(e.data), e.by) for e in stored]
    return Template(events, private, dict(stream.meta) if stream else {}, summary)


def templates(rng: random.Random) -> tuple[list[Template], list[Template]]:
    """Finished and running template games, played through the use cases in memory."""
    cases = bootstrap(SqliteEventStore(":memory:"))
    for seat in range(max(players for _, players in RULESETS)):
        cases.players.register(template_handle(seat))
    finished: list[Template] = []
    running: list[Template] = []
    for n in range(20):
        template = played(cases, n, rng)
        (finished if template.summary.status == "finished" else running).append(template)
    return finished, running


def renamed(summary: Summary, names: list[str], tags: dict[str, str]) -> Summary:
    """A template's summary with its seats (and the players they belong to: the names are
    handles) and tags replaced."""
    by = {template_handle(seat): name for seat, name in enumerate(names)}
    document = summary.document
    return Summary(
        summary.kind,
        summary.status,
        tags,
        {
            **document,
            "seats": names,
            "players": names,
            "winners": [by[w] for w in document["winners"]],
            "pieces_home": {by[k]: v for k, v in document["pieces_home"].items()},
        },
    )


def copy(store: EventStore, template: Template, index: int, rng: random.Random) -> None:
    """Append game number ``index`` as a copy of ``template`` with new players and tags."""
    players = len(template.summary.document["seats"])
    names = rng.sample(PLAYERS, players)
    if index < LEAGUE and index % 20 == 0:
        names[0] = REGULAR
    tags = {"league": f"L{index // LEAGUE}", "round": str(index % 40)}
    first = template.events[0]
    seated = [{"seat": seat, "handle": name} for seat, name in enumerate(names)]
    data = {**first.data, "seats": names, "players": seated, "tags": tags}
    meta = {**template.meta, "seats": names, "tags": tags}
    store.append(
        Appending(
            uuid.uuid4().hex,
            [NewEvent(first.type, data, first.by), *template.events[1:]],
            0,
            meta=meta,
            private=template.private,
            summary=renamed(template.summary, names, tags),
        ),
    )


def register(path: Path) -> None:
    """Register every player the copies seat (``PLAYERS`` and ``REGULAR``), each by herself
    (the keys are not kept: the reads timed need none)."""
    store = SqliteEventStore(path, synchronous="OFF")
    try:
        book = PlayerBook(Writer(store))
        for handle in [*PLAYERS, REGULAR]:
            book.register(handle)
    finally:
        store.close()


def fill(
    path: Path,
    start: int,
    finished_games: int,
    kinds: tuple[list[Template], list[Template]],
    rng: random.Random,
) -> int:
    """Add games until ``finished_games`` finished ones (and one running in a hundred) are
    in the database; return the running games added."""
    finished, running = kinds
    plan: list[tuple[Template, int]] = []
    index = start
    for n in range(start, finished_games):
        plan.append((finished[n % len(finished)], index))
        index += 1
        if n % RUNNING_EVERY == RUNNING_EVERY - 1:
            plan.append((running[n % len(running)], index))
            index += 1
    store = SqliteEventStore(path, synchronous="OFF")
    seeds = [rng.random() for _ in plan]
    try:
        with ThreadPoolExecutor(16) as pool:
            list(
                pool.map(
                    lambda item: copy(store, item[0][0], item[0][1], random.Random(item[1])),
                    zip(plan, seeds, strict=True),
                )
            )
    finally:
        store.close()
    return len(plan) - (finished_games - start)


CURSOR_KEY = "bench/reads.py"
"""The key the benchmark's server seals its cursors with (``TABULA_CURSOR_KEY``), so that the
cursor made here is one it takes."""


def middle_cursor(path: Path) -> str:
    """The cursor of the page that starts in the middle of the listing (sealed as the
    benchmark's server seals them)."""
    conn = sqlite3.connect(path)
    try:
        (count,) = conn.execute("SELECT count(*) FROM summaries").fetchone()
        created_at, game_id = conn.execute(
            "SELECT created_at, stream_id FROM summaries ORDER BY created_at, stream_id"
            " LIMIT 1 OFFSET ?",
            [count // 2],
        ).fetchone()
    finally:
        conn.close()
    return Cursors(CURSOR_KEY).make(created_at, game_id)


def finished_ids(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT stream_id FROM summaries WHERE status = 'finished'")
        return [row[0] for row in rows]
    finally:
        conn.close()


def timed_ms(action: Callable[[], httpx.Response], times: int) -> float:
    """The median milliseconds of ``times`` calls (each must answer 200)."""
    spent = []
    for _ in range(times):
        began = time.perf_counter()
        reply = action()
        spent.append(time.perf_counter() - began)
        if reply.status_code != 200:
            raise RuntimeError(f"{reply.request.url}: {reply.status_code} {reply.text[:200]}")
    return 1000 * percentile(spent, 0.5)


def rated(client: httpx.Client, ratings: dict[str, str | int]) -> None:
    """Fail unless the leaderboard timed lists players and the player timed has rated games:
    the fill's games must count for ratings, or the reads would time an empty board and a
    404."""
    board = client.get("/ratings", params=ratings).json()["ratings"]
    player = client.get(f"/players/{REGULAR}")
    if not board or player.status_code != 200:
        raise RuntimeError(
            f"the filled games are not rated: {len(board)} on the board,"
            f" {player.status_code} for {REGULAR}"
        )


def measure(path: Path, reads: int, rng: random.Random) -> tuple[float, list[float]]:
    """The seconds the first derived reads take to catch up, and the seven reads against a
    server over the database, in milliseconds."""
    cursor, games = middle_cursor(path), finished_ids(path)
    os.environ["TABULA_CURSOR_KEY"] = CURSOR_KEY  # the server the harness starts takes it
    with server(path) as (url, _), httpx.Client(base_url=url, timeout=3600) as client:
        league = {"tag": "league:L0"}
        ratings: dict[str, str | int] = {"ruleset": "ludo", "limit": 100}
        client.get("/games", params={"limit": 1})  # the first request warms the server up
        began = time.perf_counter()
        for ruleset, _ in RULESETS:
            client.get("/ratings", params={"ruleset": ruleset, "limit": 1})
        client.get("/standings")
        caught_up = time.perf_counter() - began
        rated(client, ratings)
        return caught_up, [
            timed_ms(lambda: client.get("/games", params={"limit": 100, "cursor": cursor}), reads),
            timed_ms(lambda: client.get("/games", params={"limit": 100, **league}), reads),
            timed_ms(lambda: client.get("/standings", params=league), reads),
            timed_ms(lambda: client.get(f"/games/{rng.choice(games)}"), reads),
            timed_ms(lambda: client.get("/ratings", params=ratings), reads),
            timed_ms(lambda: client.get(f"/players/{REGULAR}", params={"limit": 100}), reads),
            timed_ms(lambda: client.get("/standings"), reads),
        ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 100_000])
    parser.add_argument("--reads", type=int, default=30, help="timed reads of each kind")
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    kinds = templates(rng)
    head = ["finished", "running", "fill s", "catch-up s", "page ms", "tag page ms"]
    head += ["standings ms", "open ms", "ratings ms", "player ms", "all stand. ms"]
    print("  ".join(f"{h:>12}" for h in head))
    rows: list[list[float]] = []
    with tempfile.TemporaryDirectory() as folder:
        path, done, running = Path(folder) / "season.db", 0, 0
        register(path)
        for size in sorted(args.sizes):
            began = time.perf_counter()
            running += fill(path, done, size, kinds, rng)
            filled, done = time.perf_counter() - began, size
            caught_up, timed = measure(path, args.reads, rng)
            rows.append(timed)
            cells = [f"{size:,}", f"{running:,}", f"{filled:.1f}", f"{caught_up:.1f}"]
            print("  ".join(f"{c:>12}" for c in cells + [f"{ms:.2f}" for ms in rows[-1]]))
    ratios = [f"{last / first:.2f}" for first, last in zip(rows[0], rows[-1], strict=True)]
    print("  ".join(f"{c:>12}" for c in ["ratio", "", "", "", *ratios]))
    print(
        f"median of {args.reads} reads over HTTP, ms; ratio = largest size / smallest"
        f" (target <= 2); tag and standings: league:L0, {LEAGUE:,} games at most"
    )


if __name__ == "__main__":
    main()

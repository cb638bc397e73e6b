"""Faults of a cluster under load, Jepsen-style: the cluster of ``deploy/cluster.sh`` (three
application hosts, each ``python -m service --workers 2``, over PostgreSQL on a database
host, HAProxy in front), ``--clients`` clients playing through HAProxy (half over HTTP, half
over game sockets; see ``bench/cluster_clients.py``; they start one after another over the
first second) and ``--watchers`` sockets watching each HTTP player's game, while one fault at
a time is done to the cluster:

- ``calm``: no fault; the pushes' latency across hosts (each watching socket's receipt of a
  version after the HTTP answer that made it; target: 99% within 50 ms) and the share of the
  machine's cores busy, once at each of ``--calm-paces`` (a client's pause between moves:
  the load).
- ``kill``: every process of one application host SIGKILLed and its link down; its sockets
  reconnect through HAProxy to the other hosts and resume from their last version. The host
  is started again afterwards.
- ``cut``: one application host's packets to and from the database hosts dropped
  (iptables in its namespace) for ``--outage`` seconds: how soon a write sent to it gets its
  503, how soon its ``/ready`` says 503 and HAProxy takes it out, and how soon both come
  back after the link does.
- ``clock``: one host's clock stepped 10 minutes forward, then 10 minutes back
  (``TABULA_CLOCK_OFFSET_FILE``), ``--outage`` seconds each.
- ``primary``: the PostgreSQL primary killed for good (the database host's link down, every
  process of it SIGKILLed) and its synchronous standby (``deploy/postgres-standby.sh``)
  promoted at once, as a failover manager does: how soon the standby takes writes, and how
  soon a write through HAProxy is acknowledged again (target: within 10 s of the kill). The
  cluster stays on the promoted standby, which has no standby of its own: run it last.

- ``budget``: one address's budgets across the cluster, on a cluster of its own (``tabbudg``,
  ``10.49.8.0/24``, port 8089) brought up with the budgets at their defaults (1 creation a
  second, bursts of 60; the refusals' tarpit) and the write budget on (``WRITE_RATE`` writes a
  second, bursts of 30; off by default): one client asks for creations, then for one game's
  moves, as fast as it is answered for ``--budget-seconds`` (30: half of the minute the
  figures are scaled to), against one application host alone and through HAProxy (each
  request on a connection of its own, so that ``leastconn`` spreads them over the hosts);
  see ``bench/budget_spread.py``. Each loop starts with full buckets: the host alone counts
  the client as the bridge's address (no ``X-Forwarded-For``), HAProxy's clients as their
  own, and each moves loop plays a game of its own. It prints the accepted creations and
  moves a minute of both, their ratio (target: within 10%) and the hosts that accepted them.
  The fault runs' cluster has the budgets off, so that 32 clients from one address can play.

Each fault run prints the moves acknowledged (a 200 or a ``played``), lost (acknowledged, not
in the final log), duplicated (more moves in a game's log than keys were sent for it), forked
(two events seen at one version of a game, or one the log does not hold), the sockets'
reconnections and the versions they were sent twice or never, the games whose clock used more
time than they lasted or whose hash chain or audit fails, and the time to recover: the
longest any client went without an acknowledgement from the fault's start. Targets: 0 lost,
0 duplicated, 0 forked, 0 repeated or skipped, 0 clocks or chains broken.

Faults are a registry, ``FAULTS`` (name -> coroutine function): ``@fault("name")`` on an
``async def f(run: Run) -> None`` adds one. It is called while the clients play; it sets
``run.began`` (and ``run.ended``) to ``time.monotonic()`` when the fault begins (and is
lifted), puts its own measurements in ``run.figures`` (printed), and returns once the cluster
is whole again. ``run.cluster`` drives ``deploy/cluster.sh`` and HAProxy's view of the hosts.

Needs root, iproute2, iptables, HAProxy and PostgreSQL. Run
``python bench/cluster.py [--faults budget calm kill cut clock primary] [--clients 32]``: it
brings the cluster up (``--keep`` leaves it up; ``--no-up`` uses one that is up) and down.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import asyncio  # noqa: E402
import os  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from collections.abc import Awaitable, Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

import httpx  # noqa: E402

from bench import budget_spread  # noqa: E402
from bench.cluster_clients import Book, Client, HttpPlayer, SocketPlayer  # noqa: E402
from bench.cluster_reckoning import Reckoning, reckon  # noqa: E402
from service.settings import Settings  # noqa: E402

CLUSTER_SH = ROOT / "deploy" / "cluster.sh"
STANDBY_SH = ROOT / "deploy" / "postgres-standby.sh"
CLUSTER_ENV = {  # budgets out of the way of one address's load (they are per caller)
    "TABULA_CREATE_RATE": "0",
    "TABULA_MAX_STREAMS_PER_CLIENT": "10000",
    "TABULA_MAX_STREAMS": "10000",
    "TABULA_REFUSAL_RATE": "0",
    "TABULA_LOG_LEVEL": "warning",
}
WRITE_RATE = 2.0
"""The budget run's writes a second per caller (``write_rate`` is off by default)."""
BUDGET_ENV = {  # the budget run's cluster, apart from the fault runs' one
    "TABULA_CLUSTER_NAME": "tabbudg",
    "TABULA_CLUSTER_NET": "10.49.8",
    "TABULA_CLUSTER_PORT": "8089",
    **{  # the defaults, whatever the fault runs' environment or the caller's says
        f"TABULA_{name.upper()}": str(getattr(Settings(), name))
        for name in (
            "create_rate",
            "create_burst",
            "write_burst",
            "refusal_rate",
            "refusal_burst",
            "max_streams_per_client",
            "max_streams",
        )
    },
    "TABULA_WRITE_RATE": str(WRITE_RATE),
}
BUDGET_TARGET = 0.10
STAGGER_SECONDS = 1.0
"""The clients start one after another over this many seconds of the warm-up."""
STEP_SECONDS = 600.0
POLL = 0.02


class Cluster:
    """The cluster of ``deploy/cluster.sh``: its commands, its addresses, HAProxy's view."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.env = {**os.environ, **CLUSTER_ENV, **(env or {})}
        self.info = self.read_env()

    def sh(self, *args: str) -> str:
        done = subprocess.run(
            [str(CLUSTER_SH), *args], capture_output=True, text=True, env=self.env, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"cluster.sh {' '.join(args)}: {done.stderr or done.stdout}")
        return done.stdout

    def read_env(self) -> dict[str, str]:
        pairs = (line.split("=", 1) for line in self.sh("env").splitlines() if "=" in line)
        return {name: value.strip("'") for name, value in pairs}

    @property
    def url(self) -> str:
        return self.info["TABULA_CLUSTER_URL"]

    @property
    def apps(self) -> list[str]:
        return self.info["TABULA_CLUSTER_APPS"].split()

    def app_url(self, host: str) -> str:
        return self.info[f"TABULA_CLUSTER_{host.upper()}"]

    def servers(self) -> dict[str, str]:
        """HAProxy's state of each application host: ``UP`` or ``DOWN``."""
        with socket.socket(socket.AF_UNIX) as admin:
            admin.connect(self.info["TABULA_CLUSTER_HAPROXY_SOCKET"])
            admin.sendall(b"show servers state tabula_hosts\n")
            admin.shutdown(socket.SHUT_WR)
            text = admin.makefile().read()
        rows = [line.split() for line in text.splitlines()[1:] if line and line[0] != "#"]
        return {row[3]: "UP" if row[5] == "2" else "DOWN" for row in rows if len(row) > 5}

    async def until(self, host: str, state: str, limit: float = 60.0) -> float:
        """Seconds until HAProxy has ``host`` in ``state`` (``limit`` at most)."""
        began = time.monotonic()
        while self.servers().get(host) != state and time.monotonic() - began < limit:
            await asyncio.sleep(POLL)
        return time.monotonic() - began


@dataclass
class Run:
    """One fault's run: the cluster, the clients' book, and what the fault measured."""

    cluster: Cluster
    book: Book
    outage: float
    figures: dict[str, float] = field(default_factory=dict)
    began: float | None = None
    ended: float | None = None


Fault = Callable[[Run], Awaitable[None]]
FAULTS: dict[str, Fault] = {}


def fault(name: str) -> Callable[[Fault], Fault]:
    """Register a fault under ``name`` (see the module's text)."""

    def register(function: Fault) -> Fault:
        FAULTS[name] = function
        return function

    return register


@fault("calm")
async def calm(run: Run) -> None:
    """No fault: the clients play on; the share of the machine's cores busy meanwhile."""
    before = cpu_times()
    await asyncio.sleep(run.outage)
    after = cpu_times()
    run.figures["cores busy %"] = 100 * (1 - (after[1] - before[1]) / (after[0] - before[0]))


def cpu_times() -> tuple[int, int]:
    """The machine's CPU time so far and the idle part of it, in ticks (``/proc/stat``)."""
    with open("/proc/stat") as stat:
        ticks = [int(value) for value in stat.readline().split()[1:]]
    return sum(ticks), ticks[3] + ticks[4]  # idle, iowait


@fault("kill")
async def kill(run: Run) -> None:
    """The second application host killed (its link down, SIGKILL to all its processes),
    then started again once the clients have gone on without it."""
    host = run.cluster.apps[1]
    run.began = time.monotonic()
    run.cluster.sh("kill", host)
    run.figures["taken out s"] = await run.cluster.until(host, "DOWN")
    await asyncio.sleep(max(0.0, run.began + run.outage - time.monotonic()))
    run.ended = time.monotonic()
    await asyncio.to_thread(run.cluster.sh, "start", host)
    run.figures["back in s"] = time.monotonic() - run.ended + await run.cluster.until(host, "UP")


@fault("cut")
async def cut(run: Run) -> None:
    """The last application host cut off from the database hosts for ``outage`` seconds."""
    host = run.cluster.apps[-1]
    async with httpx.AsyncClient(base_url=run.cluster.app_url(host), timeout=30) as direct:
        run.began = time.monotonic()
        run.cluster.sh("cut", host)
        first_503, ready_503, taken_out = await asyncio.gather(
            until_write_refused(direct),
            until_ready(direct, 503),
            run.cluster.until(host, "DOWN"),
        )
        run.figures["write 503 s"], run.figures["its wait s"] = first_503
        run.figures["/ready 503 s"] = ready_503
        run.figures["taken out s"] = taken_out
        await asyncio.sleep(max(0.0, run.began + run.outage - time.monotonic()))
        run.ended = time.monotonic()
        run.cluster.sh("heal", host)
        run.figures["/ready 200 again s"] = await until_ready(direct, 200)
        run.figures["back in s"] = (
            time.monotonic() - run.ended + await run.cluster.until(host, "UP")
        )


async def until_write_refused(direct: httpx.AsyncClient) -> tuple[float, float]:
    """Seconds until a write sent straight to the host is answered 503, from the start; and
    how long that write waited for its answer."""
    began = time.monotonic()
    while True:
        game = {"ruleset": "sorry", "seats": [{}, {}]}
        sent = time.monotonic()
        reply = await direct.post("/games", json=game)
        if reply.status_code == 503:
            return time.monotonic() - began, time.monotonic() - sent
        await asyncio.sleep(0.1)


async def until_ready(direct: httpx.AsyncClient, status: int, limit: float = 60.0) -> float:
    """Seconds until the host's ``/ready`` answers ``status``."""
    began = time.monotonic()
    while time.monotonic() - began < limit:
        try:
            if (await direct.get("/ready", timeout=2)).status_code == status:
                break
        except httpx.TransportError:
            pass
        await asyncio.sleep(POLL)
    return time.monotonic() - began


@fault("clock")
async def clock(run: Run) -> None:
    """The first application host's clock 10 minutes ahead, then 10 minutes behind."""
    host = run.cluster.apps[0]
    run.began = time.monotonic()
    for offset in (STEP_SECONDS, -STEP_SECONDS):
        run.cluster.sh("clock", host, str(offset))
        await asyncio.sleep(run.outage / 2)
    run.cluster.sh("clock", host, "0")
    run.ended = time.monotonic()


@fault("primary")
async def primary(run: Run) -> None:
    """The database host killed for good, its standby promoted (see the module's text)."""
    run.began = time.monotonic()
    await asyncio.to_thread(run.cluster.sh, "kill", "db")
    await asyncio.to_thread(promote, run.cluster)
    run.ended = time.monotonic()
    run.figures["promoted s"] = run.ended - run.began
    async with httpx.AsyncClient(base_url=run.cluster.url, timeout=30) as through:
        run.figures["writes again s"] = await until_written(through) - run.began


def promote(cluster: Cluster) -> None:
    """``deploy/postgres-standby.sh promote`` on the cluster's standby (host db2)."""
    done = subprocess.run(
        [str(STANDBY_SH), "promote"],
        capture_output=True,
        text=True,
        env={**cluster.env, **cluster.info},
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"postgres-standby.sh promote: {done.stderr or done.stdout}")


async def until_written(through: httpx.AsyncClient, limit: float = 60.0) -> float:
    """When a write sent from now on (a game created) is first acknowledged (``limit``
    seconds at most): after the primary's kill, only the promoted standby can take it."""
    began = time.monotonic()
    while time.monotonic() - began < limit:
        try:
            game = {"ruleset": "sorry", "seats": [{}, {}]}
            if (await through.post("/games", json=game)).status_code == 201:
                break
        except httpx.TransportError:
            pass
        await asyncio.sleep(POLL)
    return time.monotonic()


@dataclass
class Result:
    """A run's figures."""

    fault: str
    reckoning: Reckoning
    book: Book
    figures: dict[str, float]
    recovery: float
    moves_per_second: float
    pace: float


async def measure(
    cluster: Cluster,
    name: str,
    *,
    clients: int = 32,
    watchers: int = 2,
    warm_up: float = 2.0,
    outage: float = 3.0,
    settle: float = 3.0,
    pace: float = 0.05,
) -> Result:
    """Play with ``clients`` clients; ``warm_up`` seconds in, do the fault; stop ``settle``
    seconds after it returned; read every game back."""
    book, stop = Book(), asyncio.Event()
    players: list[Client] = []
    for number in range(clients):
        args = (f"client-{number}", cluster.url, book, stop, number)
        if number % 2 == 0:
            players.append(HttpPlayer(*args, watchers=watchers, pace=pace))
        else:
            players.append(SocketPlayer(*args, pace=pace))
    spread = STAGGER_SECONDS / max(clients, 1)  # as clients come, not all in one instant
    tasks = [asyncio.create_task(p.run(number * spread)) for number, p in enumerate(players)]
    began = time.monotonic()
    await asyncio.sleep(warm_up)
    run = Run(cluster, book, outage)
    await FAULTS[name](run)
    await asyncio.sleep(settle)
    stop.set()
    await asyncio.gather(*tasks)
    await asyncio.gather(*(w for p in players if isinstance(p, HttpPlayer) for w in p.watching))
    seconds = time.monotonic() - began
    reckoning = await asyncio.to_thread(reckon, cluster.url, book)
    start = run.began if run.began is not None else began + warm_up
    return Result(
        name,
        reckoning,
        book,
        run.figures,
        recovery(book, start),
        reckoning.acknowledged / seconds,
        pace,
    )


def recovery(book: Book, start: float) -> float:
    """The longest any client went without an acknowledgement from ``start`` (those
    acknowledged before it)."""
    last_before: dict[str, float] = {}
    first_after: dict[str, float] = {}
    for at, client in sorted(book.acked_at):
        if at < start:
            last_before[client] = at
        else:
            first_after.setdefault(client, at)
    return max(
        (first_after.get(client, start + 999) - start for client in last_before), default=0.0
    )


def report(result: Result) -> str:
    """A run's lines."""
    found, book = result.reckoning, result.book
    lines = [
        f"{result.fault} (each client pausing {result.pace:g} s a move): acknowledged "
        f"{found.acknowledged} moves "
        f"({result.moves_per_second:.0f}/s), lost {found.lost}, duplicated {found.duplicated}, "
        f"forked {found.forked}; recovered in {result.recovery:.2f} s",
        f"  games {found.games}: clocks broken {found.clocks_broken} (most used beyond the "
        f"game's life {found.clock_excess:.1f} s), chains broken {found.chains_broken}, "
        f"times out of order {found.times_out_of_order}, audits failed "
        f"{found.audits_failed}, timed out {found.timed_out}",
        f"  sockets opened by host {dict(sorted(book.hosts.items()))}, reconnections "
        f"{book.reconnections}, versions repeated {book.repeated}, skipped {book.skipped}",
    ]
    for name, latencies in (("pushes", book.latencies), ("from another host", book.across)):
        if latencies:
            lines.append(f"  {name} after the answer: {latency_figures(latencies)}")
    if result.figures:
        shown = ", ".join(f"{name} {value:.2f}" for name, value in result.figures.items())
        lines.append(f"  {shown}")
    if book.errors:
        lines.append(f"  client errors (each retried): {dict(book.errors.most_common())}")
    lines += [f"  FAILURE {failure}" for failure in book.failures[:10]]
    return "\n".join(lines)


def latency_figures(latencies: list[float]) -> str:
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    within = sum(latency <= 0.05 for latency in ordered) / len(ordered)
    return (
        f"{len(ordered)}, p50 {statistics.median(ordered) * 1000:.1f} ms, "
        f"p99 {p99 * 1000:.1f} ms, within 50 ms {within:.1%}"
    )


def passed(result: Result) -> bool:
    found, book = result.reckoning, result.book
    return not (
        found.lost
        or found.duplicated
        or found.forked
        or found.clocks_broken
        or found.chains_broken
        or found.times_out_of_order
        or found.audits_failed
        or book.repeated
        or book.skipped
        or book.failures
    )


def budget(seconds: float, *, no_up: bool = False, keep: bool = False) -> bool:
    """The ``budget`` run (see the module's text): its table printed; whether both ratios are
    within ``BUDGET_TARGET`` of 1."""
    cluster = Cluster(BUDGET_ENV)
    if not no_up:
        cluster.sh("up")
    try:
        host = cluster.apps[0]
        rows = {  # games for the moves made through HAProxy from another address
            f"one host ({host})": budget_spread.measured(
                [cluster.app_url(host)], seconds, cluster.url
            ),
            "HAProxy, all hosts": budget_spread.measured([cluster.url], seconds, cluster.url),
        }
    finally:
        if not (keep or no_up):
            cluster.sh("down")
    print(budget_report(rows, seconds), flush=True)
    one, many = rows.values()
    ratios = [budget_spread.ratio(m, o) for m, o in zip(many, one, strict=True)]
    return all(abs(value - 1) <= BUDGET_TARGET for value in ratios)


def budget_report(
    rows: dict[str, tuple[budget_spread.Tally, budget_spread.Tally]], seconds: float
) -> str:
    """The budget run's lines: the budgets, the table, the hosts that accepted each loop."""
    env = {name.removeprefix("TABULA_").lower(): value for name, value in BUDGET_ENV.items()}
    create = float(env["create_rate"]), int(env["create_burst"])
    write = float(env["write_rate"]), int(env["write_burst"])
    most = (budget_spread.per_minute(*create, seconds), budget_spread.per_minute(*write, seconds))
    lines = [
        f"budget: {create[0]:g} creations/s (bursts of {create[1]}) and {write[0]:g} writes/s "
        f"(bursts of {write[1]}), {seconds:g} s a loop, scaled to a minute",
        *(f"  {line}" for line in budget_spread.table(rows, most)),
    ]
    for name, (made, moved) in rows.items():
        lines.append(
            f"  {name}: asked {made.asked} creations, {moved.asked} moves (games "
            f"{moved.games}); accepted by host {dict(sorted((made.hosts + moved.hosts).items()))}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    runs = ["budget", "calm", "kill", "cut", "clock", "primary"]
    parser.add_argument("--faults", nargs="+", default=runs, help="budget runs first")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--watchers", type=int, default=2, help="sockets per HTTP game")
    parser.add_argument("--outage", type=float, default=4.0, help="seconds a fault lasts")
    parser.add_argument("--settle", type=float, default=4.0, help="seconds played after it")
    parser.add_argument("--pace", type=float, default=0.05, help="a client's pause per move")
    parser.add_argument(
        "--calm-paces", type=float, nargs="+", default=[0.05, 0.1, 0.2], help="calm at each"
    )
    parser.add_argument("--budget-seconds", type=float, default=30.0, help="a budget loop")
    parser.add_argument("--no-up", action="store_true", help="use the cluster that is up")
    parser.add_argument("--keep", action="store_true", help="leave the cluster up")
    args = parser.parse_args(argv)
    unknown = [name for name in args.faults if name not in FAULTS and name != "budget"]
    if unknown:
        parser.error(f"no run {unknown}; the runs: budget, {', '.join(FAULTS)}")
    ok = True
    if "budget" in args.faults:  # on a cluster of its own, with the budgets on
        ok &= budget(args.budget_seconds, no_up=args.no_up, keep=args.keep)
    faults = [name for name in args.faults if name != "budget"]
    if not faults:
        return 0 if ok else 1
    cluster = Cluster()
    if not args.no_up:
        cluster.sh("up")
    try:
        for name in faults:
            for pace in args.calm_paces if name == "calm" else [args.pace]:
                result = asyncio.run(
                    measure(
                        cluster,
                        name,
                        clients=args.clients,
                        watchers=args.watchers,
                        outage=args.outage,
                        settle=args.settle,
                        pace=pace,
                    )
                )
                print(report(result), flush=True)
                ok &= passed(result)
    finally:
        if not (args.keep or args.no_up):
            cluster.sh("down")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

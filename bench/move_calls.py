"""What one move costs the server's event loop: Python calls and CPU per move, per thread.

The server runs as ``python -m service`` would (uvicorn, a fresh SQLite file, WAL,
synchronous=FULL, log level warning), in a subprocess started by this script. N clients
(``bench/api.py``'s, over ``--transport http`` or ``socket``) play race35 games for
``--seconds``, twice:

- **CPU**: the server's CPU time per move from ``/proc``, split into the event loop's thread
  (the main thread) and every other thread (the store's writer, the worker threads);
- **calls**: the same run again with ``cProfile`` on the event loop's thread only (switched on
  and off by a signal around the clients' run), the calls it made per move (deterministic,
  unlike the times: a game's creation and its one GET /legal-moves are shared out over its
  moves) and the functions that made the most calls a move.

The server is this tree's, or ``--root``'s (another checkout, for the figures before a change:
``git archive <rev> | tar -x -C /tmp/before`` then ``--root /tmp/before``).

Run ``python bench/move_calls.py [--transport socket] [--clients 8] [--seconds 8] [--top 30]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import os  # noqa: E402
import pstats  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

from bench.harness import free_port, wait_until_up  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def serve(database: str, port: int, stats: str) -> None:
    """The server process: the service on uvicorn, ``cProfile`` on its event loop's thread
    from SIGUSR1 to SIGUSR2 (then the stats go to the file ``stats``)."""
    import cProfile
    import logging

    import msgspec
    import uvicorn

    from service.__main__ import server_config, tune_gc, tune_threads
    from service.app import create_app
    from service.settings import Settings

    settings = msgspec.structs.replace(Settings.from_env(), port=port, database=database)
    profiler = cProfile.Profile()

    def stop(*_: object) -> None:
        profiler.disable()
        profiler.dump_stats(stats)

    signal.signal(signal.SIGUSR1, lambda *_: profiler.enable())
    signal.signal(signal.SIGUSR2, stop)
    app = create_app(settings)
    tune_gc()
    tune_threads()
    config = server_config(settings, app)
    logging.getLogger("uvicorn.error").setLevel(logging.WARNING)  # no line per socket
    uvicorn.Server(config).run()


def thread_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds so far of the process's main thread and of all its other threads."""
    main = others = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # a thread that ended meanwhile
            continue
        seconds = (int(fields[11]) + int(fields[12])) / TICK
        if int(task.name) == pid:
            main += seconds
        else:
            others += seconds
    return main, others


def measure(args: argparse.Namespace, loop_ms: float | None = None) -> float:
    """One run of the clients against a fresh server: prints its line and returns the loop's
    CPU per move (ms); given the loop's CPU of an unprofiled run (``loop_ms``), profiled, and
    prints the profile instead, its layers scaled to ``loop_ms``."""
    profiled = loop_ms is not None
    from bench.api import run_clients  # imports the store: not in the server's process

    with tempfile.TemporaryDirectory() as folder:
        port, stats = free_port(), str(Path(folder) / "loop.prof")
        env = os.environ | {"TABULA_LOG_LEVEL": "warning", "TABULA_CREATE_RATE": "0"}
        command = [sys.executable, __file__, "--serve", str(Path(folder) / "t.db"), str(port)]
        command += [stats, str(args.root)]
        process = subprocess.Popen(command, cwd=args.root, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(url, process)
            run_clients([url], args.clients, 1.0, "race35", args.transport)  # warm up
            if profiled:
                process.send_signal(signal.SIGUSR1)
            before = thread_cpu(process.pid)
            tally = run_clients([url], args.clients, args.seconds, "race35", args.transport)
            after = thread_cpu(process.pid)
            if profiled:
                process.send_signal(signal.SIGUSR2)
                deadline = time.monotonic() + 30
                while not Path(stats).exists() and time.monotonic() < deadline:
                    time.sleep(0.05)
                time.sleep(0.5)  # the dump is written
        finally:
            process.terminate()
            process.wait(timeout=30)
        moves = max(len(tally.latencies), 1)
        loop, others = ((a - b) * 1000 / moves for a, b in zip(after, before, strict=True))
        if not profiled:
            print(
                f"{args.transport:>9}  {args.clients:>7}  {moves:>6}  {moves / args.seconds:>7.0f}"
                f"  {loop:>12.3f}  {others:>15.3f}",
                flush=True,
            )
            return loop
        report(pstats.Stats(stats), moves, args)
        print(by_layer(pstats.Stats(stats), loop_ms or 0.0))
        if args.save:
            Path(stats).replace(args.save)
        return loop


def report(stats: pstats.Stats, moves: int, args: argparse.Namespace) -> None:
    """The calls a move on the event loop's thread, and the functions making the most."""
    rows = stats.stats  # type: ignore[attr-defined]
    calls = sum(row[1] for row in rows.values())
    print(f"\n{args.transport}, {args.clients} clients: {moves} moves (profiled)")
    print(f"Python calls on the event loop's thread per move: {calls / moves:.0f}")
    print("\ncalls/move  tottime us/move  function")
    ordered = sorted(rows.items(), key=lambda item: -item[1][1])[: args.top]
    for (file, line, name), row in ordered:
        where = file.replace(str(ROOT) + "/", "").split("site-packages/")[-1]
        print(f"{row[1] / moves:>10.1f}  {row[2] * 1e6 / moves:>15.1f}  {where}:{line} {name}")


LAYERS = (  # (layer, the start of its files' paths), the first that matches
    ("rules", ("domain/", "service/core/")),
    ("event store", ("eventstore/",)),
    ("live feed", ("service/usecases/live/",)),
    ("use cases", ("service/usecases/",)),
    ("socket and routes", ("service/",)),
)
FRAMEWORK = "server, framework and event loop"


def layer_of(file: str) -> str:
    where = file.replace(str(ROOT) + "/", "")
    return next((name for name, starts in LAYERS if where.startswith(starts)), FRAMEWORK)


def by_layer(stats: pstats.Stats, loop_ms: float) -> str:
    """The event loop's profiled time by layer: each function's own time to its file's layer,
    a built-in's (no file) shared among its callers' layers by their calls; then scaled to the
    unprofiled run's ``loop_ms`` a move (the profiler's overhead spread evenly)."""
    rows = stats.stats  # type: ignore[attr-defined]
    spent: dict[str, float] = dict.fromkeys([*(name for name, _ in LAYERS), FRAMEWORK], 0.0)
    for (file, _line, _name), (_cc, _calls, own, _cum, callers) in rows.items():
        if file != "~":
            spent[layer_of(file)] += own
            continue
        counted = sum(caller[1] for caller in callers.values()) or 1
        for (caller_file, _, _), caller in callers.items():
            spent[layer_of(caller_file)] += own * caller[1] / counted
    total = sum(spent.values()) or 1.0
    lines = [
        "\nthe loop's time by layer (own time; built-ins to their callers)",
        "  share  us/move  layer",
    ]
    for name, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        share = seconds / total
        lines.append(f"{share:>7.0%}  {share * loop_ms * 1000:>7.0f}  {name}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--transport", default="socket", choices=["http", "socket"])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--top", type=int, default=30, help="functions listed")
    parser.add_argument("--save", type=Path, help="keep the profile (pstats) in this file")
    parser.add_argument("--root", type=Path, default=ROOT, help="the tree whose server runs")
    parser.add_argument("--serve", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        sys.path[0] = args.serve[3]  # the server's own tree (``--root``)
        serve(args.serve[0], int(args.serve[1]), args.serve[2])
        return
    print("transport  clients   moves  moves/s  loop ms/move  others ms/move")
    measure(args, loop_ms=measure(args))


if __name__ == "__main__":
    main()

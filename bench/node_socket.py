"""Tabula's game socket driven by a node client of the peer's shape (``bench/node/driver.js``).

The peer benchmark (``../shared/peer-bench``, ``MODES=wire``) drives boardgame.io from one
node process, one socket.io connection a match; ``bench/api.py`` drives Tabula from Python
threads, whose client costs more a move than node's. This script starts the service as
``bench/api.py`` does (``python -m service`` over a fresh SQLite file, WAL,
synchronous=FULL, ``--workers`` processes, no game-creation budget), then runs the node
driver against it: one WebSocket per four-seat race35 game, the referee's, a random legal
move each turn. The columns are the peer driver's, so the two outputs read side by side.

With ``--seats`` every seat also listens on a socket of its own (four players in four
browsers), so each move's events are pushed to four sockets besides the referee's reply;
the service is then started with ``TABULA_MAX_STREAMS_PER_CLIENT`` raised for the driver's
one address (unless set already).

Run ``python bench/node_socket.py [--clients 8 32] [--seconds 8] [--workers 1 2] [--seats]``
(node 20 or later on the PATH; no packages to install).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if Path(sys.path[0]).resolve() == ROOT / "bench":
    sys.path[0] = str(ROOT)  # as a script, this folder would shadow the project's packages

import argparse  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

from bench.harness import server  # noqa: E402

DRIVER = ROOT / "bench" / "node" / "driver.js"


def drive(
    url: str, pid: int, clients: list[int], seconds: float, label: str, seats: bool = False
) -> None:
    """Run the node driver against the server at ``url`` (its CPU read from ``pid``);
    ``seats``: each seat listens on a socket of its own too."""
    command = ["node", "--experimental-websocket", "--no-warnings", str(DRIVER), "--url", url]
    command += ["--clients", *map(str, clients), "--seconds", f"{seconds:g}"]
    command += ["--server-pid", str(pid), "--label", label, *(["--seats"] if seats else [])]
    subprocess.run(command, check=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clients", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--url", default=None, help="drive a running server instead")
    parser.add_argument("--pid", type=int, default=0, help="the running server's pid")
    parser.add_argument(
        "--seats", action="store_true", help="each seat listens on a socket of its own too"
    )
    args = parser.parse_args(argv)
    if args.seats:  # five sockets a game, all from one address: over the default 32
        os.environ.setdefault("TABULA_MAX_STREAMS_PER_CLIENT", str(8 * max(args.clients)))
    if args.url is not None:
        drive(args.url, args.pid, args.clients, args.seconds, "given server", args.seats)
        return
    for workers in args.workers:
        with tempfile.TemporaryDirectory() as tmp:
            served = server(Path(tmp) / "tabula.db", workers=workers)
            with served as (url, pid):
                label = f"{workers} process(es)"
                drive(url, pid, args.clients, args.seconds, label, args.seats)


if __name__ == "__main__":
    main()

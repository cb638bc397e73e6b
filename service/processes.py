"""Several service processes on one port (``Settings.workers``).

The parent binds the listening socket and forks the workers; each builds its own app (its
own event loop, store connections, caches and budgets) and accepts connections from the
shared socket, so the kernel hands each new connection to one of them. They share only the
database: on SQLite its writers take turns through the file's lock and see each other's
appends within ``eventstore.sqlite_writer.WATCH_SECONDS``; on PostgreSQL through
notifications. A game is judged by whichever process a request reaches, and its version
check keeps two processes from writing over each other.

The parent stops every worker (SIGTERM; SIGINT, uvicorn's force quit, when told again) when it
is told to stop (SIGTERM or SIGINT) or when one of them ends, and exits with the first ended
worker's code (1 for a worker killed by a signal). Each worker runs in a process
group of its own, so a terminal's Ctrl-C reaches the parent alone, which stops each worker
once; a parent killed outright (SIGKILL) takes its workers with it, as each is told to stop
when its parent dies.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import sys
import traceback
from collections.abc import Callable
from contextlib import suppress

STOPS = {signal.SIGTERM, signal.SIGINT}
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies
Serve = Callable[[socket.socket], int]
"""Serve the API on the socket given (in a worker); the process's exit code."""


def serve_forked(workers: int, listener: socket.socket, serve: Serve) -> int:
    """Fork ``workers`` processes that each ``serve(listener)``; wait for them (see the
    module's text)."""
    alive: set[int] = set()
    stops = 0

    def stop(*_: object) -> None:
        """Stop every worker: SIGTERM, and SIGINT after that (uvicorn's own force quit)."""
        nonlocal stops
        stops += 1
        for pid in alive:
            _signal(pid, signal.SIGTERM if stops == 1 else signal.SIGINT)

    parent = os.getpid()
    signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)  # a stop while forking waits till after
    for _ in range(workers):
        pid = os.fork()
        if pid == 0:
            ended = 1
            try:
                ended = _worker(listener, serve, parent)
            finally:
                os._exit(ended)  # a worker never returns into the parent's code
        alive.add(pid)
    listener.close()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)
    code: int | None = None
    while alive:
        pid, status = os.wait()
        alive.discard(pid)
        ended = os.waitstatus_to_exitcode(status)  # -N: ended by signal N
        if code is None:  # uvicorn ends by the signal that stopped it, once it has shut down
            code = 0 if stops and ended == -signal.SIGTERM else ended
        if not stops:
            stop()
    return 1 if code is not None and code < 0 else code or 0


def _worker(listener: socket.socket, serve: Serve, parent: int) -> int:
    """A worker's life: its own process group, SIGTERM when the parent dies (Linux; a parent
    that died before that was set is seen at once), the default signal handlers, then
    serving."""
    os.setpgid(0, 0)
    with suppress(OSError, AttributeError):  # not Linux: a killed parent leaves it serving
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        return 1
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)
    try:
        return serve(listener)
    except KeyboardInterrupt:  # the second stop, forced: no trace of it
        return 128 + signal.SIGINT
    except BaseException:
        traceback.print_exc()
        return 1
    finally:
        with suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()


def _signal(pid: int, signum: int) -> None:
    with suppress(ProcessLookupError):  # ended meanwhile
        os.kill(pid, signum)

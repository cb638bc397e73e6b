"""Several service processes on one port (``Settings.workers``).

The parent binds the listening socket and forks the workers; each builds its own app (its
own event loop, store connections and caches) and accepts connections from the shared
socket, so the kernel hands each new connection to one of them. They share only the
database, and the per-caller budgets kept beside it (``service.usecases.budgets``): on
SQLite its writers take turns through the file's lock and see each other's appends within
``eventstore.sqlite_writer.WATCH_SECONDS``; on PostgreSQL through notifications. A game is
judged by whichever process a request reaches, and its version check keeps two processes
from writing over each other.

The parent supervises the workers. One that ends without being told to (killed by any
signal, or exiting with any code) is forked again at once in its place, with the same
settings and cursor key, accepting from the same socket, while the others go on serving;
the parent logs ``worker restarted`` (warning). A worker is given up instead when it ended
before it was ready to serve (its app was not built and started: a database that cannot be
opened, say), or when its place has seen ``DEATHS`` deaths within ``DEATH_SECONDS``: the
parent logs ``worker given up`` (error) with the reason, stops the others and exits 1.

The parent stops every worker (SIGTERM; SIGINT, uvicorn's force quit, when told again) when it
is told to stop (SIGTERM or SIGINT), and then exits 0 (else the code of the first worker to
end otherwise, 1 for one ended by a signal). Each worker runs in a process group of its own,
so a terminal's Ctrl-C reaches the parent alone, which stops each worker once; a parent
killed outright (SIGKILL) takes its workers with it, as each is told to stop when its parent
dies.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field

import structlog

STOPS = {signal.SIGTERM, signal.SIGINT}
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies
DEATHS = 5  # a worker whose place sees this many deaths within DEATH_SECONDS is given up
DEATH_SECONDS = 60.0
Ready = Callable[[], None]
Serve = Callable[[socket.socket, Ready], int]
"""Serve the API on the socket given (in a worker), calling ``ready`` once the app has
started; the process's exit code."""


@dataclass
class Place:
    """One of the workers: its process now, the pipe on which that process says it is ready
    (the reading end), and when its processes died unasked."""

    number: int
    pid: int = 0
    ready: int = -1
    deaths: deque[float] = field(default_factory=deque)

    def was_ready(self) -> bool:
        """Whether the process that ended had said it was ready (read once: the pipe is
        closed)."""
        try:
            return bool(os.read(self.ready, 1))
        except BlockingIOError:  # nothing said, though something still holds the pipe
            return False
        finally:
            os.close(self.ready)
            self.ready = -1

    def given_up(self, ready: bool, now: float) -> str:
        """Why a death (at ``now``) gives this worker up: the empty string if it does not."""
        if not ready:
            return "it ended before it was ready to serve"
        self.deaths.append(now)
        while self.deaths[0] <= now - DEATH_SECONDS:
            self.deaths.popleft()
        if len(self.deaths) >= DEATHS:
            return f"it died {DEATHS} times within {DEATH_SECONDS:g} s"
        return ""


def serve_forked(workers: int, listener: socket.socket, serve: Serve) -> int:
    """Fork ``workers`` processes that each ``serve(listener)``; supervise them until told to
    stop or one is given up (see the module's text)."""
    log = structlog.get_logger()
    alive: dict[int, Place] = {}
    stops = 0

    def stop(*_: object) -> None:
        """Stop every worker: SIGTERM, and SIGINT after that (uvicorn's own force quit)."""
        nonlocal stops
        stops += 1
        for pid in alive:
            _signal(pid, signal.SIGTERM if stops == 1 else signal.SIGINT)

    parent = os.getpid()
    signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)  # a stop while forking waits till after
    for number in range(1, workers + 1):
        place = Place(number)
        alive[_fork(place, listener, serve, parent)] = place
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)
    code: int | None = None
    while alive:
        pid, status = os.wait()
        place = alive.pop(pid)
        ended = os.waitstatus_to_exitcode(status)  # -N: ended by signal N
        why = place.given_up(place.was_ready(), time.monotonic())
        signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)  # a stop from now on sees the new one
        if stops:  # uvicorn ends by the signal that stopped it, once it has shut down
            code = (0 if ended == -signal.SIGTERM else ended) if code is None else code
        elif why:
            log.error("worker given up", worker=place.number, pid=pid, ended=_how(ended), why=why)
            code = 1
            stop()
        else:
            alive[_fork(place, listener, serve, parent)] = place
            log.warning(
                "worker restarted",
                worker=place.number,
                pid=pid,
                ended=_how(ended),
                new_pid=place.pid,
            )
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)
    listener.close()
    return 1 if code is not None and code < 0 else code or 0


def _fork(place: Place, listener: socket.socket, serve: Serve, parent: int) -> int:
    """Fork a process to serve in ``place`` (stop signals blocked meanwhile); its pid."""
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:
        ended = 1
        try:
            os.close(readable)
            ended = _worker(listener, serve, parent, writable)
        finally:
            os._exit(ended)  # a worker never returns into the parent's code
    os.close(writable)  # the worker holds the only writing end: its death closes the pipe
    os.set_blocking(readable, False)
    place.pid, place.ready = pid, readable
    return pid


def _worker(listener: socket.socket, serve: Serve, parent: int, writable: int) -> int:
    """A worker's life: its own process group, SIGTERM when the parent dies (Linux; a parent
    that died before that was set is seen at once), the default signal handlers, then
    serving, saying on ``writable`` once it is ready."""
    os.setpgid(0, 0)
    with suppress(OSError, AttributeError):  # not Linux: a killed parent leaves it serving
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        return 1
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)

    def ready() -> None:
        with suppress(OSError):  # the parent is gone: this worker is told to stop anyway
            os.write(writable, b"+")
            os.close(writable)

    try:
        return serve(listener, ready)
    except KeyboardInterrupt:  # the second stop, forced: no trace of it
        return 128 + signal.SIGINT
    except BaseException:
        traceback.print_exc()
        return 1
    finally:
        with suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()


def _how(code: int) -> str:
    """How a process ended, from its exit code (-N: killed by signal N)."""
    if code >= 0:
        return f"exit code {code}"
    with suppress(ValueError):  # a real-time signal has no name
        return f"signal {signal.Signals(-code).name}"
    return f"signal {-code}"


def _signal(pid: int, signum: int) -> None:
    with suppress(ProcessLookupError):  # ended meanwhile
        os.kill(pid, signum)

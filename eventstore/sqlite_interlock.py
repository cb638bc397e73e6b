"""The writers of one SQLite file take turns through a file lock, whatever process they are in.

SQLite lets one connection write at a time. One that begins while another writes is told the
file is busy, and its busy handler sleeps (1, 2, 5, 10 ms and longer) before it tries again,
so two processes writing one file wait far longer than the commits they wait for. Each
writer therefore takes an exclusive ``flock`` on ``<file>-writer`` around its transaction. A
writer that waits for it blocks in the kernel (the GIL released) and wakes as soon as the
other has committed; the kernel lets go of a lock whose process ended, however it ended.
(Trying again after short sleeps instead, as a bound on the wait, starved the waiting process:
the busy one took the lock again before the sleeper woke, p99 near 60 ms at 32 clients.) A
process stopped while it holds the lock (SIGSTOP, a debugger) holds up the others' writes
until it goes on or ends (with SQLite's lock alone they would get ``busy`` after its
timeout). The lock only hands the file over sooner; SQLite's own locking keeps the writes
apart, so a lock file deleted under running writers makes them wait in the busy handler
again, never write at once.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

SUFFIX = "-writer"


class Interlock:
    """The exclusive file lock beside a database, held by ``with``."""

    def __init__(self, database: Path) -> None:
        path = database.with_name(database.name + SUFFIX)
        try:  # made as SQLite makes the database's own files: 0644 under the umask
            self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except PermissionError:  # another user's file: reading it is enough to lock it
            self._fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)

    def __enter__(self) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def __exit__(self, *_: object) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        """Let go of the lock file (the writer's last act; again, nothing)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

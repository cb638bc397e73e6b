"""The SQLite store's files as it opened them.

At each batch, before it begins and after it commits, the writer compares the database file
and its ``-wal`` and ``-shm`` with the files it opened (device and inode of the path). A file
deleted or replaced under the store is ``file-gone``: every write is refused from then on
until the store is opened again. A new database gets a marker beside it (``<file>.marker``);
opening a path whose marker is there but whose database is not refuses (``StoreError``)
instead of making a new, empty one. The free space of the file system says whether the disk
is full.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

from .errors import StoreError

MARKER_SUFFIX = ".marker"
MARKER_TEXT = """This file marks that {name} beside it holds a Tabula event store.
While this file is here, Tabula refuses to start on a missing {name} instead of
making a new, empty database: restore {name} from a backup, or delete this file to
start afresh with no games.
"""
LOW_DISK_BYTES = 64 * 1024
"""Free space below which the store is not ready for writes."""
FREED_BYTES = 1024 * 1024
"""Space that must come free after a full disk before the store says it is ready again."""


class Files:
    """The database's files as the store opened them: their identities (device, inode), to
    notice one deleted or replaced, the marker that says a database was made here, and the
    free space of their file system."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.marker = path.with_name(path.name + MARKER_SUFFIX)
        self._opened: dict[str, tuple[int, int]] = {}
        self._free_when_full: int | None = None

    def check_not_lost(self) -> None:
        """Refuse to open a path whose marker says it held a database that is not there."""
        missing = not self.path.exists() or self.path.stat().st_size == 0
        if missing and self.marker.exists():
            raise StoreError(
                f"{self.path} held a Tabula event store (see {self.marker.name}) and is gone or"
                " empty: restore it from a backup, or delete the marker to start afresh"
            )

    def opened(self) -> None:
        """Remember the files as opened, and leave the marker if there is none."""
        for name in ("", "-wal", "-shm"):
            with suppress(OSError):
                found = os.stat(f"{self.path}{name}")
                self._opened[name] = (found.st_dev, found.st_ino)
        if not self.marker.exists():
            with suppress(OSError):  # a read-only directory: no marker, the store still opens
                self.marker.write_text(MARKER_TEXT.format(name=self.path.name), encoding="utf-8")

    def gone(self) -> str | None:
        """The name of a file deleted or replaced since it was opened, or None."""
        for name, identity in self._opened.items():
            try:
                found = os.stat(f"{self.path}{name}")
            except OSError:
                return self.path.name + name
            if (found.st_dev, found.st_ino) != identity:
                return self.path.name + name
        return None

    def free(self) -> int:
        """Bytes free for the store on the file system of the database."""
        try:
            found = os.statvfs(self.path.parent)
        except OSError:
            return 0
        return found.f_bavail * found.f_frsize

    def filled(self) -> None:
        """A write found the disk full: remember how much was free then."""
        self._free_when_full = self.free()

    def full(self, recent_fault: str | None) -> bool:
        """Whether the disk is too full to write: almost no space, or a write recently found
        it full and not enough has come free since."""
        free = self.free()
        if free < LOW_DISK_BYTES:
            return True
        when_full = self._free_when_full
        return (
            recent_fault == "disk-full" and when_full is not None and free < when_full + FREED_BYTES
        )

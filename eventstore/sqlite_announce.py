"""The SQLite store's subscribers, woken after the commits that appended to their streams.

``subscribe(stream_id, wake)`` calls ``wake`` from the writer thread after each committed
batch that appended to the stream (never for a failed or replayed append), so a reader woken
reads what was committed, and is told the version its stream reached. Other processes writing
the same file are seen by ``Others``: the writer looks at ``PRAGMA data_version`` between
batches and at least every ``WATCH_SECONDS`` (sqlite_writer.py); when another connection has
committed, the events added since the last look (by ``rowid``, which only grows in an
append-only table) name the streams they moved and how far, and those streams' subscribers are
woken with their versions. ``wake`` must be quick and must not block; an exception from it is
swallowed, so a broken subscriber cannot stop the writer or the other subscribers.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Mapping
from contextlib import suppress

Wake = Callable[[int | None], None]
"""Told the version a stream reached (None: unknown)."""

NEWS = "SELECT rowid, stream_id, version FROM events WHERE rowid > ? ORDER BY rowid"
"""The events since the last look, by the rowid's range (grouped in SQL, the planner would
rather scan the whole primary key's index in stream order)."""


class Announcer:
    """Each stream's subscribers, and the version each subscribed stream was last announced
    at (so what another process's look finds that this one announced is not told twice)."""

    def __init__(self) -> None:
        self._subscribers: dict[str, dict[object, Wake]] = {}  # per stream, by subscription
        self._reached: dict[str, int] = {}  # per subscribed stream, the version announced
        self._subscribing = threading.Lock()

    def subscribe(self, stream_id: str, wake: Wake) -> Callable[[], None]:
        """Add a subscriber to a stream; return the function that ends the subscription."""
        token = object()
        with self._subscribing:
            self._subscribers.setdefault(stream_id, {})[token] = wake

        def unsubscribe() -> None:
            with self._subscribing:
                waiting = self._subscribers.get(stream_id, {})
                waiting.pop(token, None)
                if not waiting:
                    self._subscribers.pop(stream_id, None)
                    self._reached.pop(stream_id, None)

        return unsubscribe

    def announce(self, appended: Mapping[str, int], others: bool = False) -> None:
        """Wake the subscribers of the streams a committed batch appended to (``others``: that
        the look for other processes' commits found moved), telling each the version its
        stream reached."""
        if not appended or not self._subscribers:
            return
        with self._subscribing:
            waiting = []
            for stream, version in appended.items():
                subscribers = self._subscribers.get(stream)
                if not subscribers or (others and version <= self._reached.get(stream, 0)):
                    continue
                self._reached[stream] = version
                waiting += [(wake, version) for wake in subscribers.values()]
        for wake, version in waiting:
            with suppress(Exception):  # one broken subscriber must not stop the writer
                wake(version)


class Others:
    """What other connections committed to the file since the last look: the write
    connection's ``data_version`` (it changes only for other connections' commits) and the
    last event's ``rowid`` then."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._data_version = _data_version(conn)
        self._rowid = int(conn.execute("SELECT coalesce(max(rowid), 0) FROM events").fetchone()[0])

    def news(self, conn: sqlite3.Connection) -> dict[str, int]:
        """The streams moved since the last look, with the versions they reached (this
        process's own among them when another process also committed); {} when nobody else
        committed."""
        now = _data_version(conn)
        if now == self._data_version:
            return {}
        moved: dict[str, int] = {}
        last = self._rowid
        for last, stream, version in conn.execute(NEWS, (self._rowid,)):  # noqa: B007
            moved[stream] = version
        self._data_version, self._rowid = now, last  # only once all of it was read
        return moved

    def own(self, conn: sqlite3.Connection) -> int | None:
        """In a write transaction, before its commit: the last event's rowid if nobody else has
        committed since the last look (every row past it is then this connection's), else
        None."""
        if _data_version(conn) != self._data_version:
            return None
        return int(conn.execute("SELECT coalesce(max(rowid), 0) FROM events").fetchone()[0])

    def committed(self, own: int | None) -> None:
        """The transaction ``own`` was read in committed: the next look starts past its rows,
        so it never reads back what this process wrote alone."""
        if own is not None:
            self._rowid = max(self._rowid, own)


def _data_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA data_version").fetchone()[0])

"""The SQLite store's subscribers, woken after the commits that appended to their streams.

``subscribe(stream_id, wake)`` calls ``wake`` from the writer thread after each committed
batch that appended to the stream (never for a failed or replayed append), so a reader woken
reads what was committed. Other processes writing the same file cannot tell this one which
streams they appended to: the writer looks at ``PRAGMA data_version`` now and then, and when
another connection has committed (or checkpointed) every subscriber is woken, to read its
stream again. ``wake`` must be quick and must not block; an exception from it is swallowed,
so a broken subscriber cannot stop the writer or the other subscribers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from contextlib import suppress

Wake = Callable[[int | None], None]
"""Told the version a stream reached (None: unknown, another process appended)."""


class Announcer:
    """Each stream's subscribers, and the write connection's ``data_version`` when last
    looked at (it changes only for other connections' commits)."""

    def __init__(self) -> None:
        self._subscribers: dict[str, dict[object, Wake]] = {}  # per stream, by subscription
        self._subscribing = threading.Lock()
        self._data_version: int | None = None

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

        return unsubscribe

    def looked(self, data_version: int) -> None:
        """Wake every subscriber if ``data_version`` (just read on the write connection)
        changed since the last look: another connection committed."""
        seen, self._data_version = self._data_version, data_version
        if seen is not None and seen != data_version and self._subscribers:
            with self._subscribing:
                streams: dict[str, int | None] = dict.fromkeys(self._subscribers)
            self.announce(streams)

    def announce(self, appended: Mapping[str, int | None]) -> None:
        """Wake the subscribers of the streams a committed batch appended to, telling each the
        version its stream reached (None when another process committed)."""
        if not appended or not self._subscribers:
            return
        with self._subscribing:
            waiting = [
                (wake, version)
                for stream, version in appended.items()
                for wake in self._subscribers.get(stream, {}).values()
            ]
        for wake, version in waiting:
            with suppress(Exception):  # one broken subscriber must not stop the writer
                wake(version)

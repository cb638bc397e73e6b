"""The clock sweeper: a daemon thread that enforces every timed game's clock."""

from __future__ import annotations

import threading
from collections.abc import Callable

import structlog

from eventstore import StoreUnavailable


class Sweeper:
    """A daemon thread that enforces clocks every ``interval`` seconds."""

    def __init__(self, enforce: Callable[[], object], interval: float = 0.25) -> None:
        self.enforce, self.interval = enforce, interval
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, name="clock-sweeper", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()

    def run(self) -> None:
        """Enforce until stopped; an error is logged, never fatal (a fault of the store once
        when it begins, not at every sweep while it lasts)."""
        fault: str | None = None
        while not self.stopping.wait(self.interval):
            try:
                self.enforce()
            except StoreUnavailable as error:
                if error.kind != fault:
                    structlog.get_logger().error("clock sweep: store fault", fault=error.kind)
                fault = error.kind
                continue
            except Exception:
                structlog.get_logger().exception("clock sweep failed")
            fault = None

"""The sweepers: daemon threads that enforce every timed game's clock, and that let the
tournaments' results follower catch up."""

from __future__ import annotations

import threading
from collections.abc import Callable

import structlog

from eventstore import StoreUnavailable


class Sweeper:
    """A daemon thread that calls ``enforce`` every ``interval`` seconds."""

    def __init__(
        self, enforce: Callable[[], object], interval: float = 0.25, name: str = "clock-sweeper"
    ) -> None:
        self.enforce, self.interval, self.name = enforce, interval, name
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, name=name, daemon=True)

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
                    structlog.get_logger().error(
                        "sweep: store fault", sweeper=self.name, fault=error.kind
                    )
                fault = error.kind
                continue
            except Exception:
                structlog.get_logger().exception("sweep failed", sweeper=self.name)
            fault = None

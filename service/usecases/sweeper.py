"""The sweepers: daemon threads that enforce every timed game's clock, and that let the
tournaments' results follower catch up."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime

import structlog

from eventstore import StoreUnavailable
from service.clock import Clock


class Sweeper:
    """A daemon thread that calls ``enforce`` every ``interval`` seconds. ``swept`` is the
    time on ``clock`` (the service's one clock) at which the last sweep that ended began
    (None before the first): whatever was due by then has been enforced."""

    def __init__(
        self,
        enforce: Callable[[], object],
        clock: Clock,
        interval: float = 0.25,
        name: str = "clock-sweeper",
    ) -> None:
        self.enforce, self.clock, self.interval, self.name = enforce, clock, interval, name
        self.swept: datetime | None = None
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
            began = self.clock()
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
            else:
                self.swept = began
            fault = None

"""Structured logs: JSON in production, key-value in development; one line per request."""

from __future__ import annotations

import itertools
import logging
import os
import re
import time
import uuid
from collections.abc import Callable, Mapping, MutableMapping
from contextvars import ContextVar
from typing import Any

import structlog
from litestar.enums import ScopeType
from litestar.types import ASGIApp, HTTPScope, Message, Receive, Scope, Send

GAME_PATH = re.compile(r"^/games/([^/]+)")
PROCESS = uuid.uuid4().hex[:16]  # request ids: this process's random prefix and a serial number
SERIAL = itertools.count(1)
REQUEST: ContextVar[dict[str, Any]] = ContextVar("request", default={})  # noqa: B039
Observer = Callable[[HTTPScope, int, float], None]
"""Told each HTTP request's scope, status and seconds as it ends (``Metrics.observe``)."""


def renumber() -> None:
    """Request ids under a new prefix, from 1: a forked process (a worker) must not repeat
    another's."""
    global PROCESS, SERIAL
    PROCESS, SERIAL = uuid.uuid4().hex[:16], itertools.count(1)


os.register_at_fork(after_in_child=renumber)


def merge_request(_: Any, __: str, event: MutableMapping[str, Any]) -> Mapping[str, Any]:
    """structlog processor: add the current request's id and game to every line."""
    return {**REQUEST.get(), **event}


def renderer(log_format: str) -> Any:
    """The last processor: JSON (``json``) or key-value lines."""
    if log_format == "json":
        return structlog.processors.JSONRenderer()
    return structlog.processors.KeyValueRenderer(key_order=["event", "request_id"])


def configure(log_format: str, level: str) -> None:
    """Set up structlog for the whole process."""
    structlog.configure(
        processors=[
            merge_request,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer(log_format),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        cache_logger_on_first_use=True,
    )


SOCKET_CHATTER = frozenset(
    {'%s - "WebSocket %s" [accepted]', "connection open", "connection closed"}
)
"""uvicorn's lines for each WebSocket opened and closed: the socket logs its own end, with its
game and outcome ("socket closed")."""


class Chatter(logging.Filter):
    """Leaves out ``SOCKET_CHATTER``."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.msg not in SOCKET_CHATTER


def server_logging(log_format: str, level: str) -> dict[str, Any]:
    """uvicorn's logging (``logging.config.dictConfig``): its own lines (its start, a
    connection's error) rendered as the app's are, JSON in production, at ``level`` and above,
    on standard output; its line for each socket opened and closed left out."""
    pre_chain = [structlog.stdlib.add_log_level, structlog.processors.TimeStamper("iso", utc=True)]
    formatter = {
        "()": structlog.stdlib.ProcessorFormatter,
        "processors": [
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            renderer(log_format),
        ],
        "foreign_pre_chain": pre_chain,
    }
    handler = {"class": "logging.StreamHandler", "stream": "ext://sys.stdout"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"chatter": {"()": Chatter}},
        "formatters": {"structlog": formatter},
        "handlers": {"default": handler | {"formatter": "structlog", "filters": ["chatter"]}},
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": level.upper(), "propagate": False}
        },
    }


def outcome(status: int) -> str:
    """A word for how a request ended."""
    if status < 400:
        return "ok"
    return "rejected" if status < 500 else "failed"


def log_requests(app: ASGIApp, observe: Observer | None = None) -> ASGIApp:
    """ASGI middleware around the whole app (``create_app`` wraps its handler, so requests to
    unknown paths and refused methods pass here too): bind a request id (the caller's
    ``X-Request-ID``, at most 64 characters, or a new one), answer it in ``X-Request-ID``, then
    log method, path, game, status, outcome and time in one line, and tell ``observe``."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        given = next((v for k, v in scope["headers"] if k == b"x-request-id"), b"")
        request_id = given.decode(errors="replace")[:64] or f"{PROCESS}{next(SERIAL):x}"
        path = scope["path"]
        match = GAME_PATH.match(path)
        REQUEST.set({"request_id": request_id, "game_id": match.group(1) if match else None})
        status = 500
        started = time.perf_counter()

        async def send_with_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode()),
                ]
            await send(message)

        try:
            await app(scope, receive, send_with_status)
        finally:
            seconds = time.perf_counter() - started
            structlog.get_logger().info(
                "request",
                method=scope.get("method", ""),
                path=path,
                status=status,
                outcome=outcome(status),
                ms=round(seconds * 1000, 2),
            )
            if observe is not None:
                observe(scope, status, seconds)

    return middleware

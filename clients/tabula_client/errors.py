"""Errors raised for problem responses, one class per HTTP status.

::

    TabulaError          (any error response; carries .problem and .status)
     +-- BadRequest       400 malformed-request, validation-failed, unknown-ruleset
     +-- Unauthorized     401
     +-- Forbidden        403
     +-- NotFound         404 game-not-found, ruleset-not-found, player-not-found
     +-- Conflict         409 version-conflict, not-your-turn, game-over
     +-- PayloadTooLarge  413
     +-- Unprocessable    422 illegal-move, bad-setup
     +-- RateLimited      429 (.retry_after in seconds, when the server says)
     +-- ServerError      5xx

Transport failures (connection refused, timeouts) are httpx's own exceptions.
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec

from tabula_client.models import Problem

PROBLEM_MEMBERS = frozenset({"type", "title", "status", "detail", "instance"})


class TabulaError(Exception):
    """An error response from the server, described by its problem."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.detail or problem.title)
        self.problem = problem

    @property
    def status(self) -> int:
        """The HTTP status."""
        return self.problem.status

    @property
    def type(self) -> str:
        """The problem type URI."""
        return self.problem.type

    @property
    def detail(self) -> str:
        """What went wrong, in the server's words."""
        return self.problem.detail

    def __str__(self) -> str:
        return f"{self.status} {self.problem.slug}: {self.problem.detail or self.problem.title}"


class BadRequest(TabulaError):
    """400: the request is malformed or fails validation."""


class Unauthorized(TabulaError):
    """401: no token, or an unknown one."""


class Forbidden(TabulaError):
    """403: the token may not do this."""


class NotFound(TabulaError):
    """404: no such game or route."""


class Conflict(TabulaError):
    """409: a version conflict (``problem.extra["current_version"]``), not this seat's turn,
    or the game is over."""


class PayloadTooLarge(TabulaError):
    """413: the body is too large."""


class Unprocessable(TabulaError):
    """422: an illegal move or a bad setup."""


class RateLimited(TabulaError):
    """429: too many requests; ``retry_after`` says how long to wait, when known."""

    def __init__(self, problem: Problem, retry_after: float | None = None) -> None:
        super().__init__(problem)
        self.retry_after = retry_after


class ServerError(TabulaError):
    """5xx: the server failed."""


ERRORS_BY_STATUS: dict[int, type[TabulaError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    422: Unprocessable,
    429: RateLimited,
}


def parse_problem(response: httpx.Response) -> Problem:
    """The response's problem; a problem made from the status line when the body is none."""
    try:
        body = msgspec.json.decode(response.content)
    except msgspec.DecodeError:
        body = None
    if not isinstance(body, dict):
        text = response.text.strip()[:500]
        return Problem(title=response.reason_phrase, status=response.status_code, detail=text)
    extra = {k: v for k, v in body.items() if k not in PROBLEM_MEMBERS}
    known = {k: v for k, v in body.items() if k in PROBLEM_MEMBERS}
    known.setdefault("status", response.status_code)
    try:
        problem = msgspec.convert(known, Problem)
    except msgspec.ValidationError:
        problem = Problem(title=response.reason_phrase, detail=str(known.get("detail", "")))
    return msgspec.structs.replace(problem, status=response.status_code, extra=extra)


def error_for(response: httpx.Response) -> TabulaError:
    """The exception for an error response, chosen by its status."""
    problem = parse_problem(response)
    status = response.status_code
    if status == 429:
        return RateLimited(problem, retry_after(response, problem))
    if status >= 500:
        return ServerError(problem)
    return ERRORS_BY_STATUS.get(status, TabulaError)(problem)


def error_from_problem(body: dict[str, Any]) -> TabulaError:
    """The exception for a problem received as a value (a refused socket message)."""
    extra = {k: v for k, v in body.items() if k not in PROBLEM_MEMBERS}
    known = {k: v for k, v in body.items() if k in PROBLEM_MEMBERS}
    problem = msgspec.structs.replace(msgspec.convert(known, Problem), extra=extra)
    if problem.status == 429:
        after = extra.get("retry_after")
        return RateLimited(problem, float(after) if isinstance(after, int | float) else None)
    if problem.status >= 500:
        return ServerError(problem)
    return ERRORS_BY_STATUS.get(problem.status, TabulaError)(problem)


def retry_after(response: httpx.Response, problem: Problem) -> float | None:
    """Seconds to wait, from the ``Retry-After`` header or a ``retry_after`` member."""
    candidates: list[Any] = [response.headers.get("retry-after"), problem.extra.get("retry_after")]
    for value in candidates:
        try:
            return float(value)
        except (TypeError, ValueError):
            continue
    return None

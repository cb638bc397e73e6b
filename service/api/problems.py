"""RFC 9457 problems: one table from exceptions to stable problem types.

Errors::

    ServiceError            (carries status, slug, detail)
     +-- one per row of PROBLEMS, raised by name: problem("game-not-found", ...)
"""

from __future__ import annotations

from typing import Any

import msgspec
import structlog
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from domain.model import BadSetup, GameError, GameOver, IllegalMove, NotYourTurn
from eventstore import VersionConflict

PROBLEM_BASE = "https://tabula.dev/problems/"
MEDIA_TYPE = "application/problem+json"

PROBLEMS: dict[str, tuple[int, str]] = {
    "malformed-request": (400, "Malformed request"),
    "validation-failed": (400, "Request failed validation"),
    "out-of-range": (400, "Value out of range"),
    "unknown-ruleset": (400, "Unknown rule set"),
    "unauthorized": (401, "Missing or wrong token"),
    "forbidden": (403, "Not allowed for this token"),
    "game-not-found": (404, "No such game"),
    "not-found": (404, "Not found"),
    "method-not-allowed": (405, "Method not allowed"),
    "version-conflict": (409, "Version conflict"),
    "not-your-turn": (409, "Not your turn"),
    "game-over": (409, "Game over"),
    "waiting-for-chance": (409, "Waiting for a chance outcome"),
    "nothing-to-undo": (409, "Nothing to undo"),
    "invalid-record": (422, "Invalid game record"),
    "payload-too-large": (413, "Request body too large"),
    "bad-setup": (422, "Bad game setup"),
    "illegal-move": (422, "Illegal move"),
    "rate-limited": (429, "Too many requests"),
    "internal-error": (500, "Internal error"),
}

DOMAIN_SLUGS: tuple[tuple[type[Exception], str], ...] = (
    (BadSetup, "bad-setup"),
    (NotYourTurn, "not-your-turn"),
    (GameOver, "game-over"),
    (IllegalMove, "illegal-move"),
    (GameError, "illegal-move"),
    (VersionConflict, "version-conflict"),
)


class ServiceError(Exception):
    """An error with a stable problem type."""

    def __init__(self, slug: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.slug, self.detail, self.extra = slug, detail, extra
        self.status = PROBLEMS[slug][0]


def problem(slug: str, detail: str, **extra: Any) -> ServiceError:
    """The error for a row of PROBLEMS."""
    return ServiceError(slug, detail, **extra)


def problem_response(request: Request[Any, Any, Any], error: ServiceError) -> Response[Any]:
    """The problem+json response for an error."""
    status, title = PROBLEMS[error.slug]
    body = {
        "type": PROBLEM_BASE + error.slug,
        "title": title,
        "status": status,
        "detail": error.detail,
        "instance": request.url.path,
        **error.extra,
    }
    headers = (
        {"Retry-After": str(error.extra["retry_after"])} if "retry_after" in error.extra else {}
    )
    return Response(body, status_code=status, media_type=MEDIA_TYPE, headers=headers)


def translate(error: Exception) -> ServiceError:
    """Any exception as a ServiceError (domain, store and framework errors by table)."""
    if isinstance(error, ServiceError):
        return error
    for cls, slug in DOMAIN_SLUGS:
        if isinstance(error, cls):
            return problem(slug, str(error))
    if isinstance(error, ValidationException):
        return _validation(error)
    if isinstance(error, HTTPException):
        return _body_error(error) or _http(error)
    raise error


def _validation(error: ValidationException) -> ServiceError:
    detail = str(error.detail)
    messages = [
        str(item.get("message", "")) for item in error.extra or [] if isinstance(item, dict)
    ]
    if messages:
        detail = "; ".join(m for m in messages if m) or detail
    if "malformed" in detail.lower() or "json" in detail.lower():
        return problem("malformed-request", detail)
    return problem("validation-failed", detail)


def _body_error(error: HTTPException) -> ServiceError | None:
    """A body field that fails validation, which Litestar calls a 500 when the field shares
    its name with a dependency (``{"games": null}`` on ``POST /games/batch``)."""
    cause = error.__cause__
    if error.status_code == 500 and isinstance(cause, msgspec.ValidationError):
        message = str(cause)
        if "`$.data." in message:
            return problem("validation-failed", message.replace("`$.data.", "`$."))
    return None


def _http(error: HTTPException) -> ServiceError:
    by_status = {
        400: "malformed-request",
        401: "unauthorized",
        403: "forbidden",
        404: "not-found",
        405: "method-not-allowed",
        413: "payload-too-large",
        429: "rate-limited",
    }
    slug = by_status.get(error.status_code)
    if slug is None:
        raise error
    return problem(slug, str(error.detail))


def handle(request: Request[Any, Any, Any], error: Exception) -> Response[Any]:
    """The one exception handler of the app; anything unforeseen is logged as a 500."""
    try:
        known = translate(error)
    except Exception:
        structlog.get_logger().exception("unhandled error")
        known = problem("internal-error", "the server failed; the error is logged")
    return problem_response(request, known)

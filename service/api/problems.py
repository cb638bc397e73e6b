"""RFC 9457 problems: one table from refusals and errors to stable problem types.

The core and the use cases raise ``Refusal`` with a slug (a row of PROBLEMS); the rule sets
raise ``GameError``s; the framework raises its own HTTP errors. ``handle`` answers each with
its problem; a fault of the event store is a logged 503 (``service.usecases.faults``);
anything else is a logged 500.
"""

from __future__ import annotations

import re
from typing import Any

import structlog
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from domain.model import BadSetup, GameError, GameOver, IllegalMove, NotYourTurn
from service.core.fields import allowed_values, explained
from service.core.refusal import Refusal, refuse
from service.usecases.faults import store_fault

PROBLEM_BASE = "https://tabula.dev/problems/"
ECHO_CHARS, DETAIL_CHARS = 100, 4000  # see ``shortened``
LONG_RUN = re.compile(r"\S{" + str(ECHO_CHARS + 1) + ",}")
MEDIA_TYPE = "application/problem+json"
MISSING = re.compile(r"Missing required (\w+) parameter '([^']+)'")
"""Litestar's detail for a required parameter not given (it names the parameter only there)."""

PROBLEMS: dict[str, tuple[int, str]] = {
    "malformed-request": (400, "Malformed request"),
    "validation-failed": (400, "Request failed validation"),
    "out-of-range": (400, "Value out of range"),
    "unknown-ruleset": (400, "Unknown rule set"),
    "unknown-bot": (400, "Unknown bot level"),
    "unauthorized": (401, "Missing or wrong token"),
    "key-refused": (401, "Key refused"),
    "forbidden": (403, "Not allowed for this token"),
    "game-not-found": (404, "No such game"),
    "tournament-not-found": (404, "No such tournament"),
    "seek-not-found": (404, "No such seek"),
    "ruleset-not-found": (404, "No such rule set"),
    "player-not-found": (404, "No such rated player"),
    "not-found": (404, "Not found"),
    "method-not-allowed": (405, "Method not allowed"),
    "version-conflict": (409, "Version conflict"),
    "handle-taken": (409, "Handle taken"),
    "not-your-turn": (409, "Not your turn"),
    "game-over": (409, "Game over"),
    "game-not-finished": (409, "The game is not finished"),
    "waiting-for-chance": (409, "Waiting for a chance outcome"),
    "nothing-to-undo": (409, "Nothing to undo"),
    "round-in-progress": (409, "A round is still being played"),
    "result-final": (409, "A tournament table's result is final"),
    "hints-not-allowed": (403, "Hints are not allowed in this game"),
    "tournament-finished": (409, "Tournament finished"),
    "table-gathering": (409, "The table is still gathering"),
    "table-not-gathering": (409, "The table is not gathering"),
    "seat-taken": (409, "Seat taken"),
    "table-full": (409, "No open seat"),
    "already-seated": (409, "Already seated at this table"),
    "invitations-pending": (409, "Invitations still wait"),
    "already-seeking": (409, "A seek of this shape waits already"),
    "seek-not-waiting": (409, "The seek waits no more"),
    "idempotency-secrets-lost": (409, "The first reply's secrets cannot be given again"),
    "payload-too-large": (413, "Request body too large"),
    "unsupported-media-type": (415, "Writes take application/json"),
    "bad-setup": (422, "Bad game setup"),
    "unknown-player": (422, "No such registered player"),
    "bad-handle": (422, "Handle not allowed"),
    "illegal-move": (422, "Illegal move"),
    "invalid-record": (422, "Invalid game record"),
    "idempotency-key-reused": (422, "Idempotency-Key reused with another request"),
    "rate-limited": (429, "Too many requests"),
    "internal-error": (500, "Internal error"),
    "store-unavailable": (503, "Event store unavailable"),
    "insufficient-storage": (503, "Event store out of space"),
}
STORE_FAULTS = frozenset({"store-unavailable", "insufficient-storage"})

DOMAIN_SLUGS: tuple[tuple[type[Exception], str], ...] = (
    (BadSetup, "bad-setup"),
    (NotYourTurn, "not-your-turn"),
    (GameOver, "game-over"),
    (IllegalMove, "illegal-move"),
    (GameError, "illegal-move"),
)


def problem_response(request: Request[Any, Any, Any], error: Refusal) -> Response[Any]:
    """The problem+json response for an error."""
    body = problem_body(error, request.url.path)
    headers = (
        {"Retry-After": str(error.extra["retry_after"])} if "retry_after" in error.extra else {}
    )
    return Response(body, status_code=body["status"], media_type=MEDIA_TYPE, headers=headers)


def problem_body(error: Refusal, instance: str) -> dict[str, Any]:
    """The RFC 9457 problem of an error, at ``instance`` (the path it answers)."""
    status, title = PROBLEMS[error.slug]
    return {
        "type": PROBLEM_BASE + error.slug,
        "title": title,
        "status": status,
        "detail": shortened(error.detail),
        "instance": instance,
        **error.extra,
    }


def shortened(detail: str) -> str:
    """A detail whose echoes of the caller's input are cut short: every run of more than
    ``ECHO_CHARS`` non-blank characters (a 60,000-character move id, twice) and the whole
    beyond ``DETAIL_CHARS``, each to its start and an ellipsis."""
    if len(detail) <= ECHO_CHARS:
        return detail
    detail = LONG_RUN.sub(lambda run: run[0][:ECHO_CHARS] + "\u2026", detail)
    return detail if len(detail) <= DETAIL_CHARS else detail[:DETAIL_CHARS] + "\u2026"


def translate(error: Exception, request: Request[Any, Any, Any] | None = None) -> Refusal:
    """Any exception as a Refusal (domain and framework errors by table)."""
    if isinstance(error, Refusal):
        return error
    for cls, slug in DOMAIN_SLUGS:
        if isinstance(error, cls):
            return refuse(slug, str(error))
    if isinstance(error, ValidationException):
        return _validation(error, request)
    if isinstance(error, HTTPException):
        return _http(error)
    if (fault := store_fault(error)) is not None:
        return fault
    raise error


def _validation(error: ValidationException, request: Request[Any, Any, Any] | None) -> Refusal:
    """Litestar's refusal of a parameter (a query, path or header parameter: bodies are decoded
    by ``bodies.check_bodies``), naming the first one it found."""
    detail = str(error.detail)
    items = [item for item in error.extra or [] if isinstance(item, dict) and item.get("key")]
    if items:
        return parameter(items[0], request)
    if missing := MISSING.match(detail):
        kind, key = missing.groups()
        member = "header" if kind == "header" else "parameter"
        return refuse("validation-failed", f"`{key}`: required", **{member: key})
    if "malformed" in detail.lower() or "json" in detail.lower():
        return refuse("malformed-request", detail)
    return refuse("validation-failed", detail)


def parameter(item: dict[str, Any], request: Request[Any, Any, Any] | None) -> Refusal:
    """A parameter's refusal: the detail starts with its name (`` `at`: expected ... ``), which
    is also the ``parameter`` member (``header`` for a header), with its ``allowed`` values if
    it takes a fixed set."""
    key, source = str(item["key"]), str(item.get("source") or "query")
    signature = request.route_handler.parsed_fn_signature.parameters if request else {}
    allowed = allowed_values(signature[key].annotation, ()) if key in signature else None
    if source.lower().endswith("query") and key in signature:  # its name in the query
        key = getattr(signature[key].kwarg_definition, "name", None) or key
    extra: dict[str, Any] = {"header" if source == "header" else "parameter": key}
    if allowed is not None:
        extra["allowed"] = allowed
    why = explained(str(item.get("message", "")), allowed)
    return refuse("validation-failed", f"`{key}`: {why}", **extra)


def _http(error: HTTPException) -> Refusal:
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
    return refuse(slug, str(error.detail))


def handle(request: Request[Any, Any, Any], error: Exception) -> Response[Any]:
    """The one exception handler of the app; anything unforeseen is logged as a 500."""
    try:
        known = translate(error, request)
    except Exception:
        structlog.get_logger().exception("unhandled error")
        known = refuse("internal-error", "the server failed; the error is logged")
    if known.slug in STORE_FAULTS:
        structlog.get_logger().error("store fault", fault=known.extra["fault"], error=str(error))
    return problem_response(request, known)

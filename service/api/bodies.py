"""Request bodies: a write takes JSON only, nested at most ``MAX_DEPTH`` deep and without a key
repeated in one object, all checked before the route decodes it.

``check_bodies`` is an ASGI middleware on every route (it runs after routing, so an unknown
path is still a 404 and a GET-only path a 405). On a POST (PUT, PATCH) it answers

- 415 ``unsupported-media-type`` unless the Content-Type is ``application/json`` or
  ``application/<something>+json`` (parameters such as ``charset`` are fine): a browser page
  of another origin may POST ``text/plain`` or a form without a CORS preflight. A write with
  no Content-Type and no body to a route whose body type takes ``{}`` (every field has a
  default: pairing a round, an undo) is read as ``{}``;
- 413 ``payload-too-large`` over the route's body limit (Litestar's limit, enforced here as it
  does: by the announced Content-Length, then by the bytes that come); the route then reads
  the body from here, in one message;
- 400 ``malformed-request`` for a body nested deeper than ``MAX_DEPTH`` arrays and objects
  (the decoder recurses once a level: about 950 levels were a ``RecursionError``, a 500) or
  whose brackets do not balance, and for an object that repeats a key (the decoder would keep
  the last value silently, so two readers of one body could disagree on what it says);
- 400 ``validation-failed`` for a body that is not the route's ``data`` type, decoded here
  strictly (``"1"`` is not a number, as Litestar's lax decoding would take it), the detail
  and ``pointer`` naming the field (``service.core.fields``); the decoded value is handed to
  the route (``decode``), so a body is decoded once.

Both body checks work on the bytes in C (``bytes.count``, ``replace``, ``translate``, two
regular expressions), never a Python step per byte: ``skeleton`` cuts a JSON text down to its
brackets and the colons of its keys. Depth: rounds of deleting the innermost bracket pairs
(the usual few levels are gone after as many rounds), then for what is left of long chains
the runs of brackets added up (``check_depth``). Repeated keys: the skeleton's colons
count the keys; decoding the body to plain dicts (where a repeated key collapses) and encoding
it again counts the keys kept; only when they differ is the body decoded once more, to name
the repeated key (``check_keys``). Small bodies (at most ``MAX_DEPTH`` brackets and one colon)
skip it all; bodies over ``INLINE`` (4 KiB: no move's or new game's, a large batch's, every
import) are checked on a worker thread, so the event loop goes on serving meanwhile. Costs
(docs/design/reliability.md, Request bodies): a move's body a few microseconds, the dearest
64 KiB body found a few milliseconds, a 30 MB record about as long as decoding it.
"""

from __future__ import annotations

import itertools
import json
import math
import operator
import re
from typing import Any, cast

import anyio.to_thread
import msgspec
from litestar import Request
from litestar.enums import ScopeType
from litestar.exceptions import ClientException
from litestar.handlers import HTTPRouteHandler
from litestar.types import ASGIApp, HTTPRequestEvent, Receive, ReceiveMessage, Scope, Send
from litestar.utils.scope.state import ScopeState

from service.api.problems import handle
from service.core.fields import invalid
from service.core.refusal import Refusal, refuse

MAX_DEPTH = 64
INLINE = 4096  # bodies up to this (a move's, a new game's) are checked on the event loop
LARGE = 64 * 1024  # bodies over this (imports) have their keys checked by ``json``
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
SHAPE = b'"[]{}:'  # what ``skeleton`` keeps of a JSON text
NOT_SHAPE = bytes(byte for byte in range(256) if byte not in SHAPE)
QUOTED = re.compile(rb'"[^"]*"')
SQUARE = bytes.maketrans(b"{}", b"[]")
RUNS = re.compile(rb"\[+|\]+")
BODY_SETTING = "TABULA_MAX_BODY_BYTES"


def check_bodies(app: ASGIApp) -> ASGIApp:
    """ASGI middleware: refuse a write whose body is not JSON, too large, too deep or repeats a
    key, before the route decodes it; the route then reads the body from here."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope["method"] not in BODY_METHODS:
            await app(scope, receive, send)
            return
        try:
            content_type = next((v for k, v in scope["headers"] if k == b"content-type"), b"")
            if content_type and not is_json(content_type):
                raise unsupported(content_type)
            body = await read_body(scope, receive)
            target = body_type(scope)
            if not content_type:
                if body or not optional(target):
                    raise unsupported(content_type)
                body = b"{}"  # a bodiless write to a route whose every field has a default
            if len(body) > INLINE:  # checked off the event loop, which goes on serving
                value = await anyio.to_thread.run_sync(checked, body, target)
            else:
                value = checked(body, target)
            # Litestar's Request.body() and .json() take what is read and decoded already:
            # its data extractor asks for the body first, which would stream it again.
            state = ScopeState.from_scope(scope)
            state.body = body
            if target is not None:
                state.json = value
        except Exception as error:  # answered here, so the middleware around sees it
            request = Request[Any, Any, Any](scope, receive)
            refused = handle(request, error).to_asgi_response(app=None, request=request)
            await refused(scope, receive, send)
            return
        await app(scope, replaying(body, receive), send)

    return middleware


async def read_body(scope: Scope, receive: Receive) -> bytes:
    """The whole body, within the route's limit as Litestar keeps it (413 when the announced
    Content-Length or the bytes that come are over it)."""
    handler = cast(HTTPRouteHandler, scope["route_handler"])
    largest = handler.resolve_request_max_body_size() or math.inf
    length = next((v for k, v in scope["headers"] if k == b"content-length"), b"")
    if length.isdigit() and int(length) > largest:
        raise too_large(int(largest))
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise ClientException("the client went away before its body came")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > largest:
            raise too_large(int(largest))
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def too_large(largest: int) -> Refusal:
    """The 413 of a body over the route's limit: the limit and the setting that changes it
    (every route with a limit has the app's, ``max_body_bytes``)."""
    return refuse(
        "payload-too-large",
        f"the body is over {largest:,} bytes, the largest this route takes "
        f"(the setting {BODY_SETTING} changes it)",
        limit=largest,
        setting=BODY_SETTING,
    )


def body_type(scope: Scope) -> Any:
    """The type the route decodes its body as (its ``data`` parameter), or None."""
    handler = cast(HTTPRouteHandler, scope["route_handler"])
    data = handler.parsed_fn_signature.parameters.get("data")
    return None if data is None else data.annotation


def optional(target: Any) -> bool:
    """Whether a route's body may be left out: its type takes ``{}`` (every field defaults)."""
    try:
        msgspec.json.decode(b"{}", type=target)
    except (msgspec.ValidationError, TypeError):
        return False
    return target is not None


def checked(body: bytes, target: Any) -> Any:
    """``check`` the body, then decode it strictly as ``target`` (None: not at all)."""
    check(body)
    return None if target is None else decode(body, target)


def decode(body: bytes, target: Any) -> Any:
    """The body as ``target``, strictly: a refusal naming the field otherwise (400)."""
    try:
        return msgspec.json.decode(body or b"null", type=target, strict=True)
    except msgspec.ValidationError as error:
        raise invalid(error, target) from None
    except msgspec.DecodeError as error:
        raise refuse("malformed-request", str(error)) from None


def replaying(body: bytes, receive: Receive) -> Receive:
    """``receive`` for the route: the body read here in one message, then the connection's."""
    given = False

    async def replay() -> ReceiveMessage:
        nonlocal given
        if given:
            return await receive()
        given = True
        whole: HTTPRequestEvent = {"type": "http.request", "body": body, "more_body": False}
        return whole

    return replay


def is_json(content_type: bytes) -> bool:
    """Whether a Content-Type header names JSON: ``application/json`` or
    ``application/<something>+json``, any parameters."""
    media = content_type.partition(b";")[0].strip().lower()
    return media == b"application/json" or (
        media.startswith(b"application/") and media.endswith(b"+json")
    )


def unsupported(content_type: bytes) -> Refusal:
    """The 415 of a write that is not JSON."""
    given = repr(content_type.decode("latin-1")) if content_type else "none"
    return refuse(
        "unsupported-media-type",
        f"writes take Content-Type: application/json; this request's is {given}",
    )


def check(body: bytes, max_depth: int = MAX_DEPTH) -> None:
    """Refuse (400 ``malformed-request``) a body nested deeper than ``max_depth`` or with a key
    repeated in one object. A body that is not JSON at all may pass: the route's decoder says
    what is wrong with it."""
    deep = body.count(b"[") + body.count(b"{") > max_depth  # may be: brackets in strings count
    keyed = body.count(b":") > 1  # may repeat a key: colons in strings count
    if deep or keyed:
        shape = skeleton(body)
        if deep:
            check_depth(shape, max_depth)
        if keyed:
            check_keys(body, shape)


def skeleton(body: bytes) -> bytes:
    """The brackets and the key colons of a JSON text, in order: its strings and everything
    else cut out, by byte operations in C only (no Python step per byte or per string).

    Escaped backslashes, then escaped quotes go first, so every quote left delimits a string;
    then all but quotes, brackets and colons; then the now empty strings; then the few strings
    that held a bracket or a colon (one regular expression). Exact for JSON; for anything
    else, exact on its longest prefix that is JSON, which is as far as a decoder nests."""
    if b"\\" in body:
        body = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    kept = body.translate(None, NOT_SHAPE).replace(b'""', b"")
    return QUOTED.sub(b"", kept) if b'"' in kept else kept


def check_depth(shape: bytes, max_depth: int) -> None:
    """Refuse brackets nested deeper than ``max_depth`` (or closed before they are opened).

    A round deletes every innermost pair: a body of depth d is empty after d rounds, and one
    of the usual few levels after as many cheap rounds. Once a round deletes less than a fifth
    of what is left (long chains: few runs of brackets, each long), the depth of the rest is
    added up run by run instead (``deepest``), which costs per run what a round costs per
    byte: so no body costs more than a few rounds."""
    brackets = shape.translate(SQUARE, b":")
    if brackets.count(b"[") <= max_depth:
        return
    if b"[" * (max_depth + 1) in brackets:
        raise too_deep(max_depth)
    rounds = 0
    while rounds < max_depth:
        left = brackets.replace(b"[]", b"")
        rounds += 1
        if not left:
            return
        if len(left) == len(brackets):
            raise refuse("malformed-request", "the body's brackets do not balance")
        slow = len(left) * 5 > len(brackets) * 4
        brackets = left
        if slow:
            break
    if deepest(brackets) > max_depth - rounds:
        raise too_deep(max_depth)


def deepest(brackets: bytes) -> int:
    """The most brackets open at once in ``brackets`` (only ``[`` and ``]``), by runs: the
    opening runs count up, the closing runs down (``itertools`` in C, no Python step)."""
    runs = RUNS.findall(brackets)
    if runs[0].startswith(b"]"):
        raise refuse("malformed-request", "the body's brackets do not balance")
    signed = map(operator.mul, map(len, runs), itertools.cycle((1, -1)))
    return int(max(itertools.accumulate(signed)))


def too_deep(max_depth: int) -> Refusal:
    """The 400 of a body nested too deep."""
    return refuse(
        "malformed-request", f"the body nests arrays and objects deeper than {max_depth} levels"
    )


def check_keys(body: bytes, shape: bytes) -> None:
    """Refuse a body (JSON) with a key repeated in one object.

    A body up to ``LARGE`` bytes has more key colons than the dicts it decodes to keep (msgspec
    decodes and encodes it again, in C; a body that is one object only, as a move's, has its
    keys counted with the values left undecoded); a larger one (an import) goes through the
    standard library's decoder once, each object's pairs checked as they come and then
    dropped, which is twice as fast there as building the whole document."""
    keys = shape.count(b":")
    if keys <= 1:
        return
    if len(body) > LARGE:
        repeated = repeated_key(body)
    else:
        try:
            if shape.startswith(b"{") and shape.count(b"{") == 1:
                # one object, the whole body (a move's): its keys, the values left undecoded
                kept = len(msgspec.json.decode(body, type=dict[str, msgspec.Raw]))
            else:
                kept = skeleton(msgspec.json.encode(msgspec.json.decode(body))).count(b":")
        except msgspec.DecodeError:
            return  # not JSON: the route's decoder refuses it with its own message
        repeated = (repeated_key(body) or "?") if kept < keys else None
    if repeated is not None:
        raise refuse("malformed-request", f"the body repeats the key {repeated!r} in one object")


def repeated_key(body: bytes) -> str | None:
    """The first key repeated in one object of ``body``, if any (and if it is JSON)."""

    def pairs(items: list[tuple[str, Any]]) -> None:
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                raise Repeated(key)
            seen.add(key)

    try:
        json.loads(body, object_pairs_hook=pairs)
    except Repeated as found:
        return found.key
    except ValueError:  # not JSON, or JSON this decoder refuses (an integer of 4,301 digits)
        pass
    return None


class Repeated(Exception):
    """A key met twice in one object."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key

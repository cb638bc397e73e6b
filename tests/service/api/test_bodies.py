"""The body checks of service/api/bodies.py against what a decoder sees: random JSON texts,
with strings full of quotes, brackets, colons and backslashes, escaped keys and repeated ones,
at random depths, are refused exactly when they nest too deep or repeat a key in one object;
nothing that is not JSON makes the checks fail with anything but a refusal."""

from __future__ import annotations

import json
from typing import Any

import hypothesis
import hypothesis.strategies as st
import pytest

from service.api import bodies
from service.core.refusal import Refusal

TRICKY = st.text(alphabet='ab"\\[]{}:,é\u2028 \n\t', max_size=6)
LIMIT = 2  # small, so random texts are often too deep


def text_of(value: Any, ascii_only: bool) -> str:
    """JSON for ``value``, whose objects are ``("obj", [(key, value), ...])`` (keys may repeat)."""
    if isinstance(value, tuple):
        pairs = [
            f"{json.dumps(k, ensure_ascii=ascii_only)}: {text_of(v, ascii_only)}"
            for k, v in value[1]
        ]
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, list):
        return "[" + ",".join(text_of(item, ascii_only) for item in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


def depth(value: Any) -> int:
    if isinstance(value, tuple):
        return 1 + max((depth(v) for _, v in value[1]), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


def repeats(value: Any) -> bool:
    if isinstance(value, tuple):
        keys = [k for k, _ in value[1]]
        return len(set(keys)) < len(keys) or any(repeats(v) for _, v in value[1])
    if isinstance(value, list):
        return any(repeats(v) for v in value)
    return False


KEYS = st.sampled_from(["a", "b", "é", '"', "[", ":", "\\"]) | TRICKY
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TRICKY,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(st.just("obj"), st.lists(st.tuples(KEYS, inner), max_size=3))
    ),
    max_leaves=12,
)


@hypothesis.settings(max_examples=400, deadline=None, database=None)
@hypothesis.given(value=VALUES, ascii_only=st.booleans(), large=st.sampled_from([0, bodies.LARGE]))
def test_refused_exactly_when_too_deep_or_a_key_repeats(
    value: Any, ascii_only: bool, large: int
) -> None:
    """Both ways of finding repeated keys: every body counts as large with ``large`` 0."""
    body = text_of(value, ascii_only).encode()
    bad = depth(value) > LIMIT or repeats(value)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(bodies, "LARGE", large)
            bodies.check(body, LIMIT)
    except Refusal as refusal:
        assert bad, (body, refusal.detail)
        assert refusal.slug == "malformed-request"
    else:
        assert not bad, body


@hypothesis.settings(max_examples=300, deadline=None, database=None)
@hypothesis.given(body=st.binary(max_size=80) | TRICKY.map(str.encode))
def test_anything_else_passes_or_is_refused(body: bytes) -> None:
    try:
        bodies.check(body, LIMIT)
    except Refusal as refusal:
        assert refusal.slug == "malformed-request"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (b"application/json", True),
        (b"application/json;charset=utf-8", True),
        (b" APPLICATION/JSON ; charset=utf-8", True),
        (b"application/merge-patch+json", True),
        (b"", False),
        (b"text/plain", False),
        (b"application/json-seq", False),
        (b"text/json", False),
        (b"application/x-www-form-urlencoded", False),
    ],
)
def test_json_media_types(header: bytes, expected: bool) -> None:
    assert bodies.is_json(header) is expected


def test_the_repeated_key_is_named() -> None:
    with pytest.raises(Refusal, match="repeats the key 'b'"):
        bodies.check(b'{"a": [{"b": 1, "c": 2, "b": 3}], "d": 4}')


def test_a_large_body_with_a_repeated_key_deep_inside() -> None:
    event = {"version": 1, "type": "MovePlayed", "data": {"seat": 0, "move": "N3:track:1>track:4"}}
    body = json.dumps({"format": "tabula-game-record", "events": [event] * 5000}).encode()
    assert len(body) > bodies.LARGE
    bodies.check(body)
    repeated = body.replace(b'"seat": 0', b'"seat": 0, "seat": 1', 1)
    with pytest.raises(Refusal, match="repeats the key 'seat'"):
        bodies.check(repeated)


def naive_depth(text: bytes) -> int:
    """The deepest nesting of brackets, byte by byte (text without strings)."""
    level = deepest = 0
    for byte in text:
        level += {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}.get(byte, 0)
        deepest = max(deepest, level)
    return deepest


def stair(levels: int, side: int) -> bytes:
    """Nested ``levels`` deep where every level also holds a chain ``side`` deep beside the
    next (so no run of openers is longer than ``side + 1`` and rounds shrink it slowly)."""
    if levels == 0:
        return b"0"
    beside = b"[" * min(side, levels - 1) + b"]" * min(side, levels - 1)
    return b"[" + (beside + b"," if beside else b"") + stair(levels - 1, side) + b"]"


@pytest.mark.parametrize(
    "body",
    [
        (b"[" * 63 + b"]" * 63 + b",") * 500 + b"1",
        (b"[" * 65 + b"]" * 65 + b",") * 400 + b"1",
        b"[" + stair(63, 9) + b"," + stair(64, 9) + b"]",
        stair(64, 9),
        stair(65, 9),
        stair(65, 30),
        b"[" + b",".join([stair(60, 12)] * 20 + [stair(66, 12)]) + b"]",
    ],
)
def test_depth_at_the_limit_of_64_deep_chains_and_stairs(body: bytes) -> None:
    body = body if body.startswith(b"[") else b"[" + body + b"]"
    bad = naive_depth(body) > bodies.MAX_DEPTH
    try:
        bodies.check(body)
    except Refusal as refusal:
        assert bad, refusal.detail
    else:
        assert not bad

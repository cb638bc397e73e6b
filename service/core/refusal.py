"""Refusals: why a command was not played, with a stable slug the HTTP edge maps to a
problem type (``game-not-found``, ``illegal-move``, ...)."""

from __future__ import annotations

from typing import Any


class Refusal(Exception):
    """A command refused, with a stable slug, a detail for people and extra fields."""

    def __init__(self, slug: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.slug, self.detail, self.extra = slug, detail, extra


def refuse(slug: str, detail: str, **extra: Any) -> Refusal:
    """The refusal to raise: ``raise refuse("forbidden", "...")``."""
    return Refusal(slug, detail, **extra)

"""The latest few entries of a memory that threads share, by game and seat."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

KEEP = 64
"""Entries a memory keeps (the games and seats asked of most recently). The largest, a fill of
a long ``partners`` game and its search for pins, take about half a megabyte together."""


def keep(memory: OrderedDict[Any, Any], key: Any, value: Any, most: int = KEEP) -> None:
    """Put ``value`` in ``memory`` as its latest entry, forgetting the oldest past ``most``. A
    reader takes its entry out (``pop``) while it uses it, so threads never share one."""
    memory[key] = value
    while len(memory) > most:
        try:
            memory.popitem(last=False)
        except KeyError:  # emptied by another thread meanwhile
            break

"""The README and the manual describe the code as it is, not a lab notebook of how it came to
be: no commit hashes (a page names a command anyone can run from the repository, never a tree
to check out), no temporary folders or paths outside the repository, and no history ("earlier
trees", "this stop", "this tree" against another, a target "met").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# 7 to 40 hex digits with a digit and a letter among them, standing alone: a commit's short or
# full name. A hex run glued to a word, a path or a dash (a model's `1-3f09a1c2b4d5`) is no
# commit, and a 64-digit hash is longer than any.
COMMIT = re.compile(r"(?<![\w./-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w/-])")
PLACE = re.compile(r"/tmp/|\.\./shared\b")
HISTORY = re.compile(
    r"\b(earlier trees?|this stop|last stop|this tree|the tree (?:of|at|before))\b|: met\b",
    re.IGNORECASE,
)


def pages() -> list[Path]:
    """The README and every page of the manual, the design pages among them."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def notebook_lines(text: str) -> list[str]:
    """Each line of ``text`` that names a commit, a temporary or outside path, or history."""
    return [
        f"{number}: {line.strip()}"
        for number, line in enumerate(text.splitlines(), 1)
        if COMMIT.search(line) or PLACE.search(line) or HISTORY.search(line)
    ]


@pytest.mark.parametrize("path", pages(), ids=lambda path: str(path.relative_to(ROOT)))
def test_page_is_no_lab_notebook(path: Path) -> None:
    assert notebook_lines(path.read_text()) == []


@pytest.mark.parametrize(
    "line",
    [
        "the tree at `b6305a7` against this one",
        "on the tree of commit 2c14b5c:",
        "`git archive 5d21f69 | tar -x -C /tmp/base`",
        "the peer (`../shared/peer-bench`)",
        "Runs of earlier trees of this stop gave 1.00-1.02x",
        "Target: every ratio under 5: met.",
        "| this tree | 382-383 |",
    ],
)
def test_notebook_lines_are_found(line: str) -> None:
    assert notebook_lines(line) != []


@pytest.mark.parametrize(
    "line",
    [
        '{"method": "1-3f09a1c2b4d5"}',
        "the chain's `prev_hash` is 64 hex digits: " + "ab12" * 16,
        "how often they met before",
        "a seed such as 20240517 or a version of 1000000",
        "`docs/design/performance.md` and `bench/api.py --root DIR`",
    ],
)
def test_ordinary_lines_pass(line: str) -> None:
    assert notebook_lines(line) == []

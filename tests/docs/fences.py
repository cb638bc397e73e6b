"""The fenced code blocks of the README and the manual, as a reader sees them in the repository:
each with its page, its place on the page and the language its fence names."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
SHELLS = {"sh": "dash" if shutil.which("dash") else "sh", "bash": "bash"}
"""Each shell a fence may name, and the program that runs its blocks: ``sh`` blocks are POSIX
sh, run by dash (Debian's ``sh``, which knows nothing beyond POSIX) where it is installed."""


@dataclass(frozen=True)
class Block:
    """One fenced block: its page, its number among the page's blocks, its language, its code."""

    page: Path
    number: int
    language: str
    code: str

    @property
    def name(self) -> str:
        """The page (relative to the checkout) and the block's number, as a test id."""
        return f"{self.page.relative_to(ROOT)}#{self.number}"


def manual() -> list[Path]:
    """The README and every page of the manual."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def blocks(pages: list[Path], *languages: str) -> list[Block]:
    """The blocks of ``pages`` in one of ``languages``, in page order."""
    found = []
    for page in pages:
        for number, match in enumerate(FENCE.finditer(page.read_text())):
            if match[1] in languages:
                found.append(Block(page, number, match[1], match[2]))
    return found


def pointed_at(code: str, url: str) -> str:
    """The sample with ``make run``'s address replaced by ``url``."""
    code = code.replace("http://127.0.0.1:8000", url)
    return code.replace("localhost:8000", url.removeprefix("http://"))

"""The manual (``docs/``, ``mkdocs.yml``) and the README: generated pages current, reference
tables complete, and the text saying what is rather than what changed.

``make docs`` builds the manual strictly in ``make test``; these tests check what a build
cannot: that the settings page is what ``docsgen/settings_page.py`` makes of
``service/settings.py`` today, and that every problem type of ``service/api/problems.py`` has
its row.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from service.api.problems import PROBLEMS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
sys.path.insert(0, str(ROOT / "docsgen"))

import settings_page  # noqa: E402

CHANGE_LOG = re.compile(
    r"\b(as before|this round|issue \d+|no longer|used to|what changed)\b", re.IGNORECASE
)


def manual_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def test_settings_page_is_current() -> None:
    """``docs/reference/settings.md`` is the generator's output: a setting added, removed or
    given a new default in ``service/settings.py`` fails here until ``make docs-settings``."""
    committed = (DOCS / "reference" / "settings.md").read_text()
    assert committed == settings_page.page(), (
        "docs/reference/settings.md is stale: run `make docs-settings`"
    )


def test_every_setting_is_described() -> None:
    """Each field of ``Settings`` is named in a paragraph of its docstring, which the page
    links it to: a setting without a description fails."""
    assert settings_page.undescribed() == []


def test_every_setting_has_a_variable_on_the_page() -> None:
    page = (DOCS / "reference" / "settings.md").read_text()
    for field in settings_page.Settings.__struct_fields__:
        assert f"`TABULA_{field.upper()}`" in page


@pytest.mark.parametrize("slug", sorted(PROBLEMS))
def test_every_problem_type_has_a_row(slug: str) -> None:
    """The problem types page has a row for every slug the service can answer, with its
    status."""
    page = (DOCS / "reference" / "problems.md").read_text()
    status = PROBLEMS[slug][0]
    assert re.search(rf"^\| {status} \| `{re.escape(slug)}` \|", page, re.MULTILINE), slug


@pytest.mark.parametrize("path", manual_pages(), ids=lambda path: str(path.relative_to(ROOT)))
def test_page_says_what_is(path: Path) -> None:
    """No change-log wording ("as before", "no longer", "issue 21", ...): a page describes the
    code as it is."""
    found = [
        f"{number}: {line.strip()}"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if CHANGE_LOG.search(line)
    ]
    assert found == []


def test_readme_is_a_front_door() -> None:
    """The README stays short and links into the manual."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    for page in ("getting-started/browser.md", "reference/routes.md", "operations/limits.md"):
        assert f"docs/{page}" in readme
    assert (DOCS / "images" / "play.png").exists()

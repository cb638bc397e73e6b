"""Every code sample of the README and of the manual runs as written: each shell block in the
shell its fence names (``sh``: POSIX sh, dash on Debian; ``bash``: bash), the curl samples of
the README and the Getting started pages against the real app (they need ``jq``), and the
Python samples of those pages and of the live-socket guide in process. The guides whose curl
samples make one session (quick play, a physical game, ...) run against a server of their own
too, and so do the guides whose Python samples make one interpreter session (a frontend for the
meeting place, a player's feed), in page order in one namespace. Samples name
``localhost:8000`` or ``http://127.0.0.1:8000``, ``make run``'s address; the test swaps in the
address of its own server. The TypeScript samples are in ``test_typescript_samples.py``.

Without ``jq`` the curl samples are skipped with a message; ``.ci/run`` installs it and sets
``TABULA_REQUIRE_JQ=1``, which turns a missing ``jq`` into a failure.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.app import create_app
from service.settings import Settings
from tests.docs.fences import DOCS, README, ROOT, SHELLS, Block, blocks, manual, pointed_at
from tests.live import serving

STARTING = [README, *sorted((DOCS / "getting-started").glob("*.md"))]
"""The pages a newcomer follows first: their curl samples play whole games."""
GUIDES = [
    DOCS / "guides" / f"{name}.md"
    for name in (
        "quick-play",
        "physical-game",
        "identity",
        "presence",
        "bots-service",
        "frontends",
        "tables",
        "feed",
    )
]
"""The guides whose curl samples are one session from a fresh server to their end."""
MAKE_RUN = re.compile(r"(localhost|127\.0\.0\.1):8000\b")
PROBLEM = re.compile(r'"type":\s*"https://tabula\.dev/problems/([\w-]+)"')
STRICT = {"sh": "set -eu", "bash": "set -euo pipefail"}
"""What each shell is told before a page's samples: stop at the first failure."""


SEQUELS = {DOCS / "guides" / "replay-verify.md": (DOCS / "getting-started" / "curl.md", 2)}
"""The guides that read what another page's first curl samples made (their number)."""


def curl_pages() -> list[tuple[str, list[Block]]]:
    """Each page's curl samples, in page order (after those of the page it follows, if any): a
    sample may use the shell variables an earlier one set, as a reader typing them in one
    terminal would."""
    pages: dict[str, list[Block]] = {}
    for page in [*STARTING, *GUIDES, *SEQUELS]:
        before, count = SEQUELS.get(page, (page, 0))
        earlier = [block for block in blocks([before], *SHELLS) if "curl " in block.code]
        found = [block for block in blocks([page], *SHELLS) if "curl " in block.code]
        if found:
            pages[str(page.relative_to(ROOT))] = [*earlier[:count], *found]
    return list(pages.items())


SHELL_BLOCKS = blocks(manual(), *SHELLS)
CURL = curl_pages()
PYTHON = blocks(
    [*STARTING, *(DOCS / "guides" / f"{n}.md" for n in ("live-socket", "quick-play"))], "python"
)
SESSIONS = [DOCS / "guides" / f"{name}.md" for name in ("frontends", "feed")]
"""The guides whose Python samples are one interpreter session: each uses what the ones before
it set, as a reader pasting them in order into one interpreter has it."""
PARTS: dict[str, str] = {}
"""The pages whose curl or Python samples are parts of a whole told on the page, and why they
do not run by themselves: their shell blocks are read by their shell (above), their Python
blocks compile, and their TypeScript samples compile (``test_typescript_samples.py``)."""


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real app on a free port, over a fresh SQLite file."""
    folder = tmp_path_factory.mktemp("samples")
    settings = Settings(database=str(folder / "tabula.db"), log_level="warning")
    with serving(create_app(settings)) as url:
        yield url


@pytest.fixture
def fresh_url(tmp_path: Path) -> Iterator[str]:
    """The real app with nothing in it yet (no handle taken): a page's own server."""
    settings = Settings(database=str(tmp_path / "tabula.db"), log_level="warning")
    with serving(create_app(settings)) as url:
        yield url


def test_pages_have_samples() -> None:
    """The README and the pages hold what they promise: curl and Python games at least."""
    assert {name for name, _ in CURL} == {
        str(page.relative_to(ROOT))
        for page in [README, DOCS / "getting-started" / "curl.md", *GUIDES, *SEQUELS]
    }
    assert len(PYTHON) >= 5
    assert {block.page.stem for block in PYTHON} >= {"README", "python", "live-socket"}


def test_every_curl_and_python_sample_runs_or_is_named_a_part() -> None:
    """A page with samples that call ``make run``'s server (curl or Python) has them run here,
    or is named among the pages whose samples are parts of a whole (with why): a new page's
    samples are run unless it says."""
    run = {name for name, _ in CURL} | {str(block.page.relative_to(ROOT)) for block in PYTHON}
    run |= {str(page.relative_to(ROOT)) for page in SESSIONS}
    shown = {
        str(block.page.relative_to(ROOT))
        for block in [*SHELL_BLOCKS, *blocks(manual(), "python")]
        if MAKE_RUN.search(block.code) and (block.language == "python" or "curl " in block.code)
    }
    assert shown - run == set(PARTS), "run these pages' samples, or name them in PARTS"


@pytest.mark.parametrize("block", blocks(manual(), "python"), ids=lambda block: block.name)
def test_python_blocks_compile(block: Block) -> None:
    """Every Python block of the manual is Python a reader can paste: it compiles."""
    compile(block.code, block.name, "exec")


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=[block.name for block in SHELL_BLOCKS])
def test_shell_blocks_parse_in_the_shell_their_fence_names(block: Block) -> None:
    """Each ``sh`` block is POSIX sh (``sh -n`` reads it) and each ``bash`` block is bash: a
    reader who pastes it into that shell gets no syntax error."""
    shell = SHELLS[block.language]
    done = subprocess.run(
        [shell, "-n", "-c", block.code], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 0, (
        f"{block.name} ({shell}):\n{done.stderr}\nmake it {block.language}, or label it: `bash` "
        "(bash arrays, [[ ]]), `console` (a transcript), `ini` or `text` (a file, not a script)"
    )


@pytest.mark.parametrize(("name", "page"), CURL, ids=[name for name, _ in CURL])
def test_curl_samples_run_in_the_shell_their_fence_names(
    name: str, page: list[Block], fresh_url: str, tmp_path: Path
) -> None:
    """A page's curl samples, run in the shell their fences name (told to stop at the first
    failure) against a server of their own, exit 0 and print; every problem they are answered
    is one the page names, and the starting pages play their whole game to its end."""
    if shutil.which("jq") is None:
        missing = "jq is missing: apt-get install jq (.ci/run does)"
        if os.environ.get("TABULA_REQUIRE_JQ") == "1":
            pytest.fail(missing, pytrace=False)
        pytest.skip(missing)
    languages = {block.language for block in page}
    assert len(languages) == 1, f"{name}: its curl samples name several shells {languages}"
    language = languages.pop()
    script = "\n".join([STRICT[language], *(pointed_at(b.code, fresh_url) for b in page)])
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")  # a checkout's .venv, for its commands
    done = subprocess.run(
        [SHELLS[language], "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"{name} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip(), f"{name} printed nothing"
    text = page[-1].page.read_text()
    unnamed = {slug for slug in PROBLEM.findall(done.stdout) if slug not in text}
    assert not unnamed, f"{name} was refused ({unnamed}) where the page says nothing of it"
    if page[-1].page in STARTING:
        assert '{"status":"finished","winners":[' in done.stdout, done.stdout[-500:]


@pytest.mark.parametrize("block", PYTHON, ids=[block.name for block in PYTHON])
def test_python_sample_runs(block: Block, server_url: str) -> None:
    """A Python sample runs to its end and prints; a whole game prints that it finished."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = compile(pointed_at(block.code, server_url), block.name, "exec")
        exec(code, {"__name__": "sample"})
    assert out.getvalue().strip(), f"{block.name} printed nothing"
    if "while " in block.code or "play_game" in block.code:
        assert "finished" in out.getvalue() or "winner" in out.getvalue(), out.getvalue()


@pytest.mark.parametrize("page", SESSIONS, ids=[page.stem for page in SESSIONS])
def test_python_sessions_run_in_page_order(page: Path, fresh_url: str) -> None:
    """A guide's Python samples, run one after another in one namespace against a server of
    their own, run to their end, print, and play their game until it finishes."""
    out = io.StringIO()
    namespace = {"__name__": "sample"}
    with contextlib.redirect_stdout(out):
        for block in blocks([page], "python"):
            exec(compile(pointed_at(block.code, fresh_url), block.name, "exec"), namespace)
    assert "finished" in out.getvalue(), out.getvalue()

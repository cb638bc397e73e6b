"""Every code sample of the README and of the manual's Getting started pages runs as written
against the real app: the ``sh`` samples that call ``curl`` with bash (they need ``jq``), the
``python`` samples in process, and the TypeScript page's example (a file the page includes)
with node. Samples name ``localhost:8000`` or ``http://127.0.0.1:8000``, ``make run``'s
address; the test swaps in the address of its own server.

Without ``jq`` the shell samples are skipped with a message; ``.ci/run`` installs it and sets
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
from tests.clients.test_typescript import BUILD, built, node, run
from tests.live import serving

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs" / "getting-started").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)

__all__ = ["built", "node"]  # fixtures of the TypeScript client's tests, used below


def samples(language: str) -> list[tuple[str, str]]:
    """Each sample in ``language`` as (an id naming its page and place, its code)."""
    found = []
    for page in PAGES:
        for number, match in enumerate(FENCE.finditer(page.read_text())):
            if match[1] == language:
                found.append((f"{page.stem}-{number}", match[2]))
    return found


def shell_pages() -> list[tuple[str, str]]:
    """Each page's curl samples as one script, in page order: a sample may use the shell
    variables an earlier one set, as a reader typing them in one terminal would."""
    pages: dict[str, list[str]] = {}
    for name, code in samples("sh"):
        if "curl " in code:
            pages.setdefault(name.rsplit("-", 1)[0], []).append(code)
    return [(page, "\n".join(codes)) for page, codes in pages.items()]


SHELL = shell_pages()
PYTHON = samples("python")


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real app on a free port, over a fresh SQLite file."""
    folder = tmp_path_factory.mktemp("samples")
    settings = Settings(database=str(folder / "tabula.db"), log_level="warning")
    with serving(create_app(settings)) as url:
        yield url


def pointed_at(code: str, url: str) -> str:
    """The sample with ``make run``'s address replaced by ``url``."""
    code = code.replace("http://127.0.0.1:8000", url)
    return code.replace("localhost:8000", url.removeprefix("http://"))


def test_pages_have_samples() -> None:
    """The README and the pages hold what they promise: curl and Python games at least."""
    assert {name for name, _ in SHELL} == {"README", "curl"}
    assert len(PYTHON) >= 4
    assert "README" in {name.split("-")[0] for name, _ in PYTHON}


@pytest.mark.parametrize(("name", "code"), SHELL, ids=[name for name, _ in SHELL])
def test_shell_samples_run(name: str, code: str, server_url: str) -> None:
    """A page's curl samples exit 0 (bash with ``-euo pipefail``), print, and play their
    whole game to its end."""
    if shutil.which("jq") is None:
        missing = "jq is missing: apt-get install jq (.ci/run does)"
        if os.environ.get("TABULA_REQUIRE_JQ") == "1":
            pytest.fail(missing, pytrace=False)
        pytest.skip(missing)
    script = "set -euo pipefail\n" + pointed_at(code, server_url)
    done = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, f"{name} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip(), f"{name} printed nothing"
    assert '{"status":"finished","winners":[' in done.stdout, done.stdout[-500:]


@pytest.mark.parametrize(("name", "code"), PYTHON, ids=[name for name, _ in PYTHON])
def test_python_sample_runs(name: str, code: str, server_url: str) -> None:
    """A Python sample runs to its end and prints; a whole game prints that it finished."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(pointed_at(code, server_url), name, "exec"), {"__name__": "sample"})
    assert out.getvalue().strip(), f"{name} printed nothing"
    if "while " in code or "play_game" in code:
        assert "finished" in out.getvalue() or "winner" in out.getvalue(), out.getvalue()


@pytest.mark.node
@pytest.mark.usefixtures("built")
def test_typescript_page_example_plays_a_game(node: str, server_url: str) -> None:
    """The TypeScript page's example, compiled with the client, plays a game to its end."""
    page = (ROOT / "docs" / "getting-started" / "typescript.md").read_text()
    assert '--8<-- "clients/typescript/examples/first-game.ts"' in page
    out = run(node, str(BUILD / "examples" / "first-game.js"), server_url, timeout=120).stdout
    assert re.search(r"^finished at version \d+; winners: (Ann|Bob)$", out, re.MULTILINE), out

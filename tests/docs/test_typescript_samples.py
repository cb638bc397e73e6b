"""Every TypeScript sample of the manual compiles as written in a project of its own that
installs the client from ``clients/typescript`` (``npm install <folder>``, as a reader's app
would), under strict ``tsc``; the complete ones then run under node against the real app. The
Getting started page shows its examples inline (readable in the repository too), and each is
the example file it names, character for character.

Without ``node`` and ``npm`` the compiling tests are skipped as the client's own tests are
(``TABULA_REQUIRE_NODE=1`` turns that into a failure).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.app import create_app
from service.settings import Settings
from tests.clients.test_typescript import PACKAGE, built, node, tool
from tests.docs.fences import DOCS, ROOT, Block, blocks, manual, pointed_at
from tests.live import serving

__all__ = ["built", "node"]  # the client's fixtures (installed, and built), used below

PACKAGE_README = PACKAGE / "README.md"
TYPESCRIPT = blocks([*manual(), PACKAGE_README], "ts")
SHOWN = re.compile(r"This is `(clients/typescript/examples/[\w-]+\.ts)`")
FRAGMENTS = {
    "frontends": """
import type { Tabula } from "tabula-client-ts/client";
import type { GameEvent } from "tabula-client-ts/client";
declare const bob: Tabula, gus: Tabula, gameId: string, moveId: string;
declare function render(events: GameEvent[]): void;
declare function showPresence(seats: { seat: number; present: boolean }[]): void;
""",
}
"""The pages whose samples are parts of one program, read in page order as one module, and
the names each leaves to the reader (declared, not defined: they compile, they do not run).
The client's README is compiled too, not run: its first sample follows a game nobody ends."""
COMPILER = {
    "target": "ES2022",
    "lib": ["ES2022"],
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "types": ["node"],
    "strict": True,
    "noUncheckedIndexedAccess": True,
    "verbatimModuleSyntax": True,
    "skipLibCheck": True,
    "outDir": "out",
}
"""A reader's strict project for Node 20."""
BESIDE = ["ws", "@types/ws", "@types/node"]
"""What a reader's Node program installs beside the client (a WebSocket for Node 20, and the
types): linked from the client's own ``node_modules``, the versions its lock pins."""


def programs() -> list[tuple[str, str, bool]]:
    """Each program the samples make: (its module's name, its code, whether it runs)."""
    made: dict[str, list[Block]] = {}
    for block in TYPESCRIPT:
        key = block.page.stem if block.page.stem in FRAGMENTS else block.name
        made.setdefault(key, []).append(block)
    found = []
    for key, parts in made.items():
        prelude = FRAGMENTS.get(key)
        code = "\n".join([prelude or "", *(block.code for block in parts)])
        name = re.sub(r"\W+", "-", key).strip("-")
        found.append((name, code, prelude is None and parts[0].page != PACKAGE_README))
    return found


PROGRAMS = programs()


@pytest.fixture(scope="module")
def project(node: str, built: object, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A reader's project: the client (built, as ``npm run build`` does) installed from its
    folder, ``ws`` and the types beside it, and a strict tsconfig."""
    folder = tmp_path_factory.mktemp("reader")
    (folder / "package.json").write_text(json.dumps({"private": True, "type": "module"}))
    npm = tool("npm")
    install = [npm, "install", "--offline", "--no-audit", "--no-fund", str(PACKAGE)]
    done = subprocess.run(install, cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    for name in BESIDE:
        (folder / "node_modules" / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / "node_modules" / name).symlink_to(PACKAGE / "node_modules" / name)
    config = {"compilerOptions": COMPILER, "include": ["*.ts"]}
    (folder / "tsconfig.json").write_text(json.dumps(config))
    return folder


def tsc(node: str, config: Path) -> subprocess.CompletedProcess[str]:
    """Strict ``tsc`` with the project's ``config`` (the client's own compiler)."""
    compiler = str(PACKAGE / "node_modules" / "typescript" / "bin" / "tsc")
    return subprocess.run(
        [node, compiler, "-p", str(config)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real app on a free port, over a fresh SQLite file."""
    folder = tmp_path_factory.mktemp("samples")
    settings = Settings(database=str(folder / "tabula.db"), log_level="warning")
    with serving(create_app(settings)) as url:
        yield url


def test_no_page_shows_an_include_line() -> None:
    """Read in the repository, no page shows a ``--8<--`` line where its code should be."""
    for page in manual():
        languages = set(re.findall(r"^```(\w*)$", page.read_text(), re.M))
        for block in blocks([page], *languages):
            assert "--8<--" not in block.code, f"{block.name} shows an include line"


def test_the_shown_examples_are_the_example_files() -> None:
    """Each example the TypeScript page says it shows is the next block, the file as it is."""
    page = DOCS / "getting-started" / "typescript.md"
    text = page.read_text()
    shown = SHOWN.findall(text)
    assert shown, "the page names no example it shows"
    for path in shown:
        after = text.split(f"This is `{path}`", 1)[1]
        code = re.search(r"^```ts\n(.*?)^```", after, re.M | re.S)
        assert code, f"no ts block follows {path}"
        assert code[1] == (ROOT / path).read_text(), f"the page's {path} differs from the file"


@pytest.mark.node
def test_every_typescript_sample_compiles(node: str, project: Path, server_url: str) -> None:
    """Each program of the samples compiles with strict ``tsc`` against the installed client:
    its imports resolve and every call matches the client's types."""
    assert PROGRAMS
    for name, code, _ in PROGRAMS:
        (project / f"{name}.ts").write_text(pointed_at(code, server_url))
    done = tsc(node, project / "tsconfig.json")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.node
@pytest.mark.parametrize(
    ("name", "code"),
    [(name, code) for name, code, runs in PROGRAMS if runs],
    ids=[name for name, _, runs in PROGRAMS if runs],
)
def test_complete_typescript_samples_run(
    node: str, project: Path, server_url: str, name: str, code: str
) -> None:
    """A complete sample, compiled by itself in the reader's project, runs to its end under
    node against the real app and prints."""
    (project / f"{name}.ts").write_text(pointed_at(code, server_url))
    config = project / f"tsconfig.{name}.json"
    config.write_text(json.dumps({"extends": "./tsconfig.json", "include": [f"{name}.ts"]}))
    compiled = tsc(node, config)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    done = subprocess.run(
        [node, str(project / "out" / f"{name}.js")],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, f"{name} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip(), f"{name} printed nothing"

"""The TypeScript client (``clients/typescript``): installed from its lock file, type-checked,
its generated types current with ``openapi/openapi.json``, its helpers' own tests, and its
examples playing whole games against the real app and following one across a restart of the
server.

Without ``node`` and ``npm`` these tests are skipped with a message, so ``make test`` works on
a bare machine; ``.ci/run`` installs Debian's ``nodejs`` and ``npm`` and sets
``TABULA_REQUIRE_NODE=1``, which turns a missing Node into a failure. ``npm ci`` runs only
when the lock file changed since the last install (a stamp in ``node_modules`` holds its hash).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.hostile.conftest import running_server
from tests.waiting import wait_until

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "typescript"
STAMP = PACKAGE / "node_modules" / ".tabula-lock-hash"
SCHEMA = PACKAGE / "src" / "schema.d.ts"
BUILD = PACKAGE / "build"

pytestmark = pytest.mark.node


def run(*command: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in the package folder; fail with its output when it fails."""
    done = subprocess.run(
        command, cwd=PACKAGE, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        pytest.fail(
            f"{shlex.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}",
            pytrace=False,
        )
    return done


def tool(name: str) -> str:
    """The path of ``name``; skips the test without it (fails with TABULA_REQUIRE_NODE=1)."""
    found = shutil.which(name)
    if found is None:
        missing = f"{name} is missing: apt-get install nodejs npm (.ci/run does)"
        if os.environ.get("TABULA_REQUIRE_NODE") == "1":
            pytest.fail(missing, pytrace=False)
        pytest.skip(missing)
    return found


@pytest.fixture(scope="module")
def node() -> str:
    """``node``, with the package's dependencies installed as its lock file pins them."""
    npm = tool("npm")
    node = tool("node")
    lock = hashlib.sha256((PACKAGE / "package-lock.json").read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text() != lock:
        run(npm, "ci", "--no-audit", "--no-fund")
        STAMP.write_text(lock)
    return node


@pytest.fixture(scope="module")
def built(node: str) -> subprocess.CompletedProcess[str]:
    """``tsc`` over src, examples and test (strict; the check ``tsc --noEmit`` makes), writing
    JavaScript to ``build/`` as ``npm run build`` does; fails on any type error."""
    return run(node, "node_modules/typescript/bin/tsc")


def test_type_checks(built: subprocess.CompletedProcess[str]) -> None:
    """Strict ``tsc`` reports nothing: a contract change that breaks a call fails here."""
    assert built.stdout == built.stderr == ""
    assert (BUILD / "examples" / "play.js").exists()


def test_generated_types_are_current(node: str, tmp_path: Path) -> None:
    """``npm run generate`` over the committed openapi.json writes the committed schema.d.ts."""
    script = json.loads((PACKAGE / "package.json").read_text())["scripts"]["generate"]
    command = shlex.split(script)
    assert command[0] == "openapi-typescript" and command[-2:] == ["--output", "src/schema.d.ts"]
    fresh = tmp_path / "schema.d.ts"
    generator = "node_modules/openapi-typescript/bin/cli.js"
    run(node, generator, *command[1:-1], str(fresh))
    assert fresh.read_text() == SCHEMA.read_text(), (
        "clients/typescript/src/schema.d.ts is stale: run `make ts-types`"
    )


@pytest.mark.usefixtures("built")
def test_helpers(node: str) -> None:
    """The helpers' own tests (SSE parsing, resume after a drop, problems) under node:test."""
    done = run(node, "--test", str(BUILD / "test"))
    assert re.search(r"^# pass [1-9]", done.stdout, re.MULTILINE), done.stdout
    assert re.search(r"^# fail 0$", done.stdout, re.MULTILINE), done.stdout


@pytest.mark.parametrize(
    ("ruleset", "players", "extra"),
    [
        ("race35", 2, []),
        ("sorry", 3, ["--bot", "1=greedy", "--bot", "2=random"]),
        pytest.param("partners", 4, [], marks=pytest.mark.slow),
    ],
)
@pytest.mark.usefixtures("built")
def test_example_plays_a_whole_game(
    node: str, server_url: str, ruleset: str, players: int, extra: list[str]
) -> None:
    """``examples/play.ts`` plays a game to its end with random legal moves (beside the
    server's bots, with ``--bot``), following its stream; the service agrees that the game it
    names is finished at the version it says."""
    example = str(BUILD / "examples" / "play.js")
    options = ["--ruleset", ruleset, "--players", str(players), "--seed", "ts-1", *extra]
    out = run(node, example, server_url, *options, timeout=240).stdout
    game = re.search(r"^game (\w+) ", out, re.MULTILINE)
    end = re.search(r"^finished at version (\d+) after (\d+) moves; winners: (.+)$", out, re.M)
    assert game and end, out
    view = httpx.get(f"{server_url}/games/{game[1]}", timeout=10).json()
    assert view["status"] == "finished" and view["ruleset"] == ruleset
    assert view["version"] == int(end[1])
    assert end[3] == ", ".join(view["seats"][seat]["name"] for seat in view["winners"])
    assert f"followed {view['version']} events live" in out
    assert "a further move is refused: 409 game-over" in out
    bots = dict(pair.split("=") for pair in extra[1::2])
    assert {str(s["seat"]): s["bot"] for s in view["seats"] if s["bot"]} == bots


@pytest.mark.usefixtures("built")
def test_socket_example_plays_a_whole_game_over_the_socket(node: str, server_url: str) -> None:
    """``examples/socket.ts`` plays a game to its end over the referee's socket (``connect``,
    ``play``) while a spectator's socket is pushed every event once, in order."""
    example = str(BUILD / "examples" / "socket.js")
    out = run(node, example, server_url, "--ruleset", "sorry", "--players", "2", timeout=240).stdout
    game = re.search(r"^game (\w+) ", out, re.MULTILINE)
    end = re.search(r"^finished at version (\d+) after \d+ moves over the socket$", out, re.M)
    assert game and end, out
    view = httpx.get(f"{server_url}/games/{game[1]}", timeout=10).json()
    assert view["status"] == "finished" and view["version"] == int(end[1])
    assert f"the spectator's socket was pushed {end[1]} events in order" in out


def play(url: str, created: dict[str, Any], moves: int) -> int:
    """Play up to ``moves`` first legal moves, each seat with its token; the version after."""
    tokens = created["tokens"]["seats"]
    with httpx.Client(base_url=f"{url}/games/{created['id']}", timeout=10) as game:
        for _ in range(moves):
            view = game.get("").json()
            if view["status"] == "finished":
                break
            auth = {"Authorization": f"Bearer {tokens[view['to_act'][0]['seat']]}"}
            legal = game.get("/legal-moves", headers=auth).json()
            body = {"move": legal["moves"][0]["id"], "expected_version": legal["version"]}
            game.post("/moves", json=body, headers=auth).raise_for_status()
        version: int = game.get("").json()["version"]
        return version


@pytest.mark.usefixtures("built")
def test_follow_resumes_across_a_server_restart(node: str, tmp_path: Path) -> None:
    """``examples/follow.ts`` follows a game on ``python -m service serve``; the server is
    killed and started again on the same address and file; the follower reconnects with
    ``Last-Event-ID`` and prints every event once, in order, until the game has finished."""
    out, err = tmp_path / "follow.out", tmp_path / "follow.err"
    seats = [{"name": "Ann"}, {"name": "Bob"}]
    with running_server(tmp_path) as first, out.open("w") as stdout, err.open("w") as stderr:
        created = httpx.post(f"{first.url}/games", json={"ruleset": "race35", "seats": seats})
        created.raise_for_status()
        game = created.json()
        command = [node, str(BUILD / "examples" / "follow.js"), first.url, game["id"]]
        follower = subprocess.Popen(command, cwd=PACKAGE, stdout=stdout, stderr=stderr)
        before = play(first.url, game, moves=4)
        wait_until(
            lambda: f"\n{before} " in "\n" + out.read_text(),
            timeout=20,
            message=f"the follower never printed version {before}",
        )
        first.process.kill()
        first.process.wait(timeout=10)
    try:
        with running_server(tmp_path, port=first.port) as second:
            final = play(second.url, game, moves=2_000)
            assert httpx.get(f"{second.url}/games/{game['id']}").json()["status"] == "finished"
            follower.wait(timeout=60)
    finally:
        follower.kill()
    lines = out.read_text().splitlines()
    assert follower.returncode == 0, (lines[-5:], err.read_text())
    assert [int(line.split()[0]) for line in lines[:-1]] == list(range(1, final + 1))
    assert lines[-1] == f"the game has finished: {final} events"
    assert f"reconnecting after version {before} (attempt 1)" in err.read_text()

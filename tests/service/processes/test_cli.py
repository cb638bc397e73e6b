"""``python -m service``: the server's options work before and after ``serve``, and the
command a user types starts a server that answers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from service.__main__ import parse
from tests.service.conftest import free_port
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--port", "8123", "--database", "x.db"],
        ["--port", "8123", "--database", "x.db", "serve"],
        ["--port", "8123", "serve", "--database", "x.db"],
        ["--port", "8123", "--database", "x.db"],
    ],
)
def test_server_options_are_taken_before_and_after_serve(argv: list[str]) -> None:
    args = parse(argv)
    assert args.settings.port == 8123
    assert args.settings.database == "x.db"
    assert args.command == ("serve" if "serve" in argv else None)


def test_an_option_after_serve_wins_over_the_same_option_before_it() -> None:
    assert parse(["--port", "1", "serve", "--port", "8123"]).settings.port == 8123


def test_options_not_given_keep_their_defaults_whichever_the_command() -> None:
    plain, serve = parse([]).settings, parse(["serve"]).settings
    assert serve == plain
    assert parse(["--log-format", "json", "serve"]).settings.log_format == "json"
    assert parse(["serve", "--log-format", "json"]).settings.log_format == "json"


def answers_health(url: str, process: subprocess.Popen[bytes], log: Path) -> bool:
    """Whether the server answers /health with ok; fails at once if it has exited."""
    if process.poll() is not None:
        output = log.read_text(errors="replace")
        raise AssertionError(f"the server exited with {process.returncode}:\n{output}")
    try:
        reply = httpx.get(f"{url}/health", timeout=1)
    except httpx.TransportError:
        return False
    return reply.status_code == 200 and reply.json() == {"status": "ok"}


def test_serve_with_options_after_the_command_starts_a_server(tmp_path: Path) -> None:
    port, database = free_port(), tmp_path / "cli.db"
    command = [sys.executable, "-m", "service", "serve", "--port", str(port)]
    env = {**os.environ, "TABULA_LOG_LEVEL": "warning"}
    log = tmp_path / "server.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [*command, "--database", str(database)],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=output,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            wait_until(
                lambda: answers_health(url, process, log),
                timeout=30,
                message=f"python -m service serve --port {port} did not answer /health",
            )
            created = httpx.post(f"{url}/games", json={"ruleset": "race35", "seats": [{}, {}]})
            assert created.status_code == 201, created.text
        finally:
            process.terminate()
            process.wait(timeout=30)
    assert database.exists(), "the server did not use the --database given after serve"

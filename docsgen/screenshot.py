"""Take the play page's screenshot for the README and the manual (``make docs-screenshot``).

Starts ``python -m service`` on a free port over a fresh SQLite file, creates a seeded race35
game for Ann, Bob and Cat, plays a few throws through the API, then opens Ann's play page in
Debian's Chromium through Playwright (as the browser tests do: ``apt-get install chromium``)
and saves the page as a PNG.

    .venv/bin/python docsgen/screenshot.py docs/images/play.png
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
THROWS = 14  # enough for pieces spread over the board, the game still running


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(url: str) -> None:
    for _ in range(100):
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server at {url} did not start")


def set_up_game(url: str) -> tuple[str, str]:
    """A race35 game some throws in; its id and Ann's token."""
    body = {"ruleset": "race35", "seats": [{"name": n} for n in ("Ann", "Bob", "Cat")]}
    created = httpx.post(f"{url}/games", json={**body, "seed": "screenshot"}).json()
    tokens = created["tokens"]["seats"]
    game = f"{url}/games/{created['id']}"
    for _ in range(THROWS):
        seat = httpx.get(game).json()["to_act"][0]["seat"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        httpx.post(f"{game}/moves", json={"move": "roll"}, headers=auth).raise_for_status()
    return created["id"], tokens[0]


def main(out: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "TABULA_DATABASE": f"{folder}/tabula.db", "TABULA_PORT": str(port)}
        env["TABULA_LOG_LEVEL"] = "warning"
        server = subprocess.Popen([sys.executable, "-m", "service"], env=env)
        try:
            wait_for(url)
            game_id, token = set_up_game(url)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page(viewport={"width": 1100, "height": 580})
                page.goto(f"{url}/games/{game_id}/play#token={token}&seat=0")
                page.wait_for_selector("svg g.piece")
                page.wait_for_timeout(500)
                out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(out))
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/images/play.png"))

"""The TypeScript client's players and keys against the real app: ``examples/player.ts``
(the manual's TypeScript page shows it) registers a handle, by herself or as an app's player,
plays her seat with her key over the socket to the end, rotates the key (her socket closes
4401 key-revoked, the old key is refused) and reads ``GET /me`` and her record with the new
one. Skipped without Node, as tests/clients/test_typescript.py is."""

from __future__ import annotations

import re
import secrets

import httpx
import pytest

from tests.clients.test_players import Served, served
from tests.clients.test_typescript import BUILD, built, node, run

__all__ = ["built", "node", "served"]  # fixtures of the modules above, used below

pytestmark = pytest.mark.node


def play_example(node: str, url: str, *options: str) -> tuple[str, str]:
    """Run ``examples/player.js``; its output, and the id of the game it played."""
    out = run(node, str(BUILD / "examples" / "player.js"), url, *options, timeout=120).stdout
    game = re.search(r"^game (\w+): her seat's token is null$", out, re.MULTILINE)
    assert game, out
    return out, game[1]


def check_played(out: str, url: str, game_id: str, handle: str) -> None:
    """What the example says happened is what the service says: her seat, named for her
    handle, in a finished game; the old key refused, her record's keys."""
    view = httpx.get(f"{url}/games/{game_id}", timeout=10).json()
    assert view["status"] == "finished" and view["seats"][0]["name"] == handle
    assert f"finished at version {view['version']}; winners: " in out
    assert "welcome: seat 0" in out
    assert "her socket closed: 4401 key-revoked" in out
    assert "the old key is refused: 401 key-refused" in out
    assert f"me: {handle}, 1 game(s), latest {game_id}" in out


@pytest.mark.usefixtures("built")
def test_the_player_example_registers_and_plays_with_her_key(node: str, served: Served) -> None:
    handle = f"ann-{secrets.token_hex(4)}"
    out, game_id = play_example(node, served.url, "--handle", handle)
    assert f"registered {handle}" in out
    check_played(out, served.url, game_id, handle)
    assert "her record: PlayerRegistered, KeyIssued, KeyIssued" in out


@pytest.mark.usefixtures("built")
def test_the_player_example_as_an_apps_player(node: str, served: Served) -> None:
    name, key = served.app_key()
    out, game_id = play_example(node, served.url, "--handle", "8812", "--app-key", key)
    assert f"registered {name}:8812" in out and f"the app minted {name}:8812 a new key" in out
    check_played(out, served.url, game_id, f"{name}:8812")
    assert "her record: PlayerRegistered, KeyIssued, KeyIssued, KeyIssued" in out

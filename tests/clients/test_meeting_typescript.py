"""The TypeScript seeking bot (``examples/seeking-bot.ts``) against the real app: two of them,
a registered player (told each match by her feed, ``src/feed.ts``) and a guest, are matched
with each other and each plays its own seat to the end, twice; and one finds a table with the
Python seeking bot. What they print is what the
service says happened. Skipped without Node, as tests/clients/test_typescript.py is."""

from __future__ import annotations

import re
import secrets
import subprocess

import httpx
import pytest

from tests.clients.test_meeting_bots import bot, finished, games_in, output, url
from tests.clients.test_typescript import BUILD, PACKAGE, built, node

__all__ = ["built", "node", "url"]  # fixtures of the modules above, used below

pytestmark = pytest.mark.node
RACE = ["--ruleset", "race35", "--players", "2"]


def ts_bot(node: str, url: str, *options: str) -> subprocess.Popen[str]:
    """The TypeScript seeking bot, running in a process of its own."""
    command = [node, str(BUILD / "examples" / "seeking-bot.js"), url, *options]
    return subprocess.Popen(
        command, cwd=PACKAGE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def check(url: str, games: list[tuple[str, int, str]], others: list[tuple[str, int, str]]) -> None:
    """Both bots name the same games, finished at the versions they say, one won each."""
    assert [game for game, _, _ in games] == [game for game, _, _ in others]
    for (game_id, version, result), (_, _, other) in zip(games, others, strict=True):
        view = httpx.get(f"{url}/games/{game_id}", timeout=10).json()
        assert view["status"] == "finished" and view["version"] == version
        assert {result, other} == {"won", "lost"}


@pytest.mark.usefixtures("built")
def test_two_typescript_seeking_bots_find_each_other_and_finish_their_games(
    node: str, url: str
) -> None:
    handle = f"tsbot-{secrets.token_hex(4)}"
    player = ts_bot(node, url, "--handle", handle, *RACE, "--games", "2")
    guest = ts_bot(node, url, "--guest", "Tess", *RACE, "--games", "2")
    told, its = output(player), finished(guest)
    hers = games_in(told)
    assert len(hers) == 2 and hers[0][0] != hers[1][0]
    assert told.count("(told by the feed)") == 2  # her matches, from her feed
    check(url, hers, its)
    names = [s["name"] for s in httpx.get(f"{url}/games/{hers[0][0]}", timeout=10).json()["seats"]]
    assert sorted(names) == sorted([handle, "Tess"])


@pytest.mark.usefixtures("built")
def test_a_typescript_and_a_python_seeking_bot_play_each_other(node: str, url: str) -> None:
    options = ["--ruleset", "sorry", "--players", "2", "--games", "1"]
    typescript = ts_bot(node, url, "--guest", "Tess", *options)
    python = bot(url, "--guest", "Pym", *options)
    check(url, finished(typescript), finished(python))


@pytest.mark.usefixtures("built")
def test_the_table_example_goes_from_the_opening_to_the_rematch(node: str, url: str) -> None:
    """``examples/table.ts`` through every helper of src/meeting.ts and the player's feed:
    what it prints is what the service did."""
    done = subprocess.run(
        [node, str(BUILD / "examples" / "table.js"), url],
        cwd=PACKAGE,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 0, f"{out}\n{done.stderr}"
    assert "bob's feed: invitation to seat 2" in out
    assert "the lobby lists it: true" in out
    assert "gus took seat 1 and left" in out
    assert "zed sits at 1, bob at 2 (token null): active" in out
    assert re.search(r"^finished at version \d+$", out, re.MULTILINE), out
    rematch = re.search(
        r"^rematch (\S+): zed at 0 with a token: true, ann's the same: true, (\w+)$", out, re.M
    )
    assert rematch and rematch[2] == "active", out
    assert "ann's stream: rematch of the table" in out
    assert "started early: true" in out and "cancelled: true" in out

"""The seeking bot (``python -m tabula_client.examples.seeking_bot``) against the real app:
two of them, a registered player with her key (told each match by her feed) and a guest, seek
a race35 table, are matched with each other, each plays its own seat to the end, and both seek
again and play a second game; what they print is what the service says happened."""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from tests.clients.conftest import make_app
from tests.live import serving

FINISHED = re.compile(
    r"^finished game (\S+) at version (\d+): winners \[([\d, ]*)\] \((won|lost)\)$"
)


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    app = make_app(tmp_path_factory.mktemp("seeking"), create_rate=1000.0, create_burst=100_000)
    with serving(app) as served:
        yield served


def bot(url: str, *options: str) -> subprocess.Popen[str]:
    """A seeking bot running in a process of its own."""
    command = [sys.executable, "-m", "tabula_client.examples.seeking_bot", url, *options]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def output(process: subprocess.Popen[str]) -> str:
    """What a bot printed (it must exit 0)."""
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, f"{out}\n{err}"
    return out


def games_in(out: str) -> list[tuple[str, int, str]]:
    """The games a bot says it finished: id, version, won or lost."""
    return [(m[1], int(m[2]), m[4]) for line in out.splitlines() if (m := FINISHED.match(line))]


def finished(process: subprocess.Popen[str]) -> list[tuple[str, int, str]]:
    """The games a bot says it finished (it must exit 0)."""
    return games_in(output(process))


def test_two_seeking_bots_find_each_other_and_finish_their_games(url: str) -> None:
    handle = f"robo-{secrets.token_hex(4)}"
    common = ["--ruleset", "race35", "--players", "2", "--games", "2"]
    player = bot(url, "--handle", handle, "--bot", "greedy", "--seed", "1", *common)
    guest = bot(url, "--guest", "Gus", "--seed", "2", *common)
    told, its = output(player), finished(guest)
    hers = games_in(told)
    assert told.count("(told by the feed)") == 2  # her matches, from her feed
    assert [game for game, _, _ in hers] == [game for game, _, _ in its]
    assert len(hers) == 2 and hers[0][0] != hers[1][0]
    for (game_id, version, result), (_, _, other) in zip(hers, its, strict=True):
        view = httpx.get(f"{url}/games/{game_id}", timeout=10).json()
        assert view["status"] == "finished" and view["version"] == version
        assert sorted(seat["name"] for seat in view["seats"]) == sorted([handle, "Gus"])
        assert {result, other} == {"won", "lost"}

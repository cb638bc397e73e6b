"""The node driver of the peer's shape (``bench/node/driver.js``, started by
``bench/node_socket.py``) plays games over the game socket and prints the peer driver's
columns (tiny sizes; no figure is judged here)."""

from __future__ import annotations

import shutil

import pytest

from tests.bench.running import bench


@pytest.mark.node
@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_the_node_driver_plays_games_over_the_socket_and_prints_its_figures() -> None:
    argv = ["--clients", "2", "--seconds", "1", "--workers", "1"]
    printed = bench("node_socket.py", argv, timeout=300)
    header, line = printed.splitlines()[-2:]
    assert header.split()[:3] == ["clients", "moves", "moves/s"], printed
    clients, moves, *_, stalls, _wall, _label, _kind = line.split()
    assert clients == "2" and int(moves) > 0 and stalls == "0", printed


@pytest.mark.node
@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_the_socket_floor_answers_the_node_driver_on_the_services_server() -> None:
    printed = bench("socket_floor.py", ["--clients", "2", "--seconds", "1"], timeout=300)
    clients, moves, *_, stalls, _wall = printed.splitlines()[-1].split("  floor:")[0].split()
    assert clients == "2" and int(moves) > 0 and stalls == "0", printed
    assert printed.count("floor: echo") == 1, printed

"""The cluster on one machine (``deploy/cluster.sh``: three application hosts and a database
host as network namespaces, HAProxy in front) under a short load (``bench/cluster.py``'s
clients, through HAProxy): one application host killed loses no acknowledged move and forks
no game, and its sockets resume elsewhere with nothing lost or repeated; one cut off from the
database answers writes 503 within a second, says so on ``/ready``, is taken out by HAProxy
and comes back by itself; one whose clock is stepped ten minutes forward, then back, charges
no seat's clock for it and breaks no game's order.

It needs root, network namespaces, iptables, HAProxy and PostgreSQL (``.ci/run`` installs
them); elsewhere it is skipped with one line saying why.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.cluster import Cluster, Result, measure, passed, report

pytestmark = pytest.mark.slow
TEST_CLUSTER = {  # apart from a cluster of the default name an operator may have up
    "TABULA_CLUSTER_NAME": "tabtest",
    "TABULA_CLUSTER_NET": "10.49.7",
    "TABULA_CLUSTER_PORT": "8079",
}


def missing() -> str:
    """Why the cluster cannot be made here; empty when it can."""
    if os.geteuid() != 0:
        return "the cluster tests need root (network namespaces, iptables)"
    for tool in ("ip", "iptables", "haproxy", "curl"):
        if shutil.which(tool) is None:
            return f"the cluster tests need {tool} (.ci/run installs it)"
    if not list(Path("/usr/lib/postgresql").glob("*/bin/postgres")):
        return "the cluster tests need PostgreSQL (apt-get install -y postgresql)"
    probe = subprocess.run(["ip", "netns", "add", "tabtest-probe"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"no network namespaces here (ip netns add: {probe.stderr.strip()})"
    subprocess.run(["ip", "netns", "del", "tabtest-probe"], check=False)
    return ""


def brought_up(env: dict[str, str]) -> Iterator[Cluster]:
    """A cluster named by ``env``, up for the module's tests and down after them (skipped
    where ``missing`` says why)."""
    why = missing()
    if why:
        pytest.skip(why)
    made = Cluster(env)
    made.sh("down")  # what a run cut short left behind, if anything
    try:
        made.sh("up")
        yield made
    finally:
        made.sh("down")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    yield from brought_up(TEST_CLUSTER)


def run(cluster: Cluster, fault: str) -> Result:
    result = asyncio.run(
        measure(cluster, fault, clients=8, watchers=1, warm_up=1.5, outage=2.0, settle=2.0)
    )
    print(report(result))
    return result


def test_a_killed_host_loses_no_acknowledged_move_and_its_sockets_resume_elsewhere(
    cluster: Cluster,
) -> None:
    result = run(cluster, "kill")
    found = result.reckoning
    assert found.acknowledged > 0
    assert (found.lost, found.duplicated, found.forked) == (0, 0, 0), report(result)
    assert (result.book.repeated, result.book.skipped) == (0, 0), report(result)
    assert result.book.reconnections > 0, "no socket was on the killed host"
    assert passed(result), report(result)
    assert result.recovery < 10, report(result)
    assert cluster.servers() == dict.fromkeys(cluster.apps, "UP")


def test_a_host_cut_off_from_the_database_says_so_within_a_second_and_comes_back(
    cluster: Cluster,
) -> None:
    result = run(cluster, "cut")
    assert passed(result), report(result)
    assert result.figures["its wait s"] < 1.0, report(result)  # a write's wait for its 503
    assert result.figures["/ready 503 s"] < 1.0, report(result)
    assert result.figures["taken out s"] < 3.0, report(result)
    assert result.figures["back in s"] < 10.0, report(result)
    assert cluster.servers() == dict.fromkeys(cluster.apps, "UP")


def test_a_host_clock_stepped_ten_minutes_either_way_breaks_no_game_clock_or_order(
    cluster: Cluster,
) -> None:
    result = run(cluster, "clock")
    found = result.reckoning
    broken = (found.clocks_broken, found.timed_out, found.chains_broken, found.times_out_of_order)
    assert broken == (0, 0, 0, 0), report(result)
    assert passed(result), report(result)

"""The cluster's PostgreSQL primary killed for good under a short load (``bench/cluster.py``'s
``primary`` fault: the database host's link down, every process of it SIGKILLed, its
synchronous standby on ``db2`` promoted): no acknowledged move is lost, duplicated or forked,
and writes through HAProxy are acknowledged again within 10 s of the kill.

A cluster of its own (the fault leaves it on the promoted standby, which the other cluster
tests must not meet); skipped, with one line saying why, where the cluster cannot be made.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.cluster import Cluster, passed, report
from tests.cluster.test_cluster import brought_up, run

pytestmark = pytest.mark.slow
PRIMARY_CLUSTER = {
    "TABULA_CLUSTER_NAME": "tabprim",
    "TABULA_CLUSTER_NET": "10.49.8",
    "TABULA_CLUSTER_PORT": "8078",
}


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    yield from brought_up(PRIMARY_CLUSTER)


def test_the_primary_killed_for_good_loses_no_acknowledged_move_and_writes_resume_within_10_s(
    cluster: Cluster,
) -> None:
    result = run(cluster, "primary")
    found = result.reckoning
    assert found.acknowledged > 0
    assert (found.lost, found.duplicated, found.forked) == (0, 0, 0), report(result)
    assert passed(result), report(result)
    assert result.figures["writes again s"] < 10.0, report(result)

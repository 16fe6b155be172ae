"""The relations declared on the Metrics API's data points: invariants among one point's members (and the clock).
Every answer of a run is judged against them as it arrives (conformance.meaning.watch); this test reads a series of
each interval, so that each declaration sees its objects."""
from __future__ import annotations

import pytest

from conformance.checks.metrics import avg_tps_path, metric_path
from conformance.clients.rest import RestClient
from conformance.meaning import declarations
from conformance.meaning.declarations import Declaration
from conformance.suite.metrics.conftest import CHAIN

API = "metrics"
RELATIONS = [d for d in declarations.of_kind("invariant", API)]


@pytest.mark.parametrize("declaration", [pytest.param(d, marks=pytest.mark.rule(d.rule), id=d.id) for d in RELATIONS])
def test_every_answer_keeps_the_declared_relation(metrics_api: RestClient, request: pytest.FixtureRequest,
                                                  declaration: Declaration) -> None:
    """The newest points of a series of each interval (or the average TPS of the run's chain) are read: the run's
    watch judges every object of every answer against the declaration."""
    answered = 0
    if declaration.subject == "AvgTpsResponse":
        # the chain the average TPS tests ask about (an EVM chain the Metrics API serves)
        answered += metrics_api.get(avg_tps_path(request.getfixturevalue("evm_chain_id"))).status == 200
    else:
        for interval in ("hour", "day"):
            exchange = metrics_api.get(metric_path(CHAIN, "txCount"), {"timeInterval": interval, "pageSize": 24})
            answered += exchange.status == 200
    if not answered:
        pytest.skip(f"no answer holds a {declaration.subject}")

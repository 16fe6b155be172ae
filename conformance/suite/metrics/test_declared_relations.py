"""The relations declared on the Metrics API's data points: invariants among one point's members (and the clock).
Every answer of a run is judged against them as it arrives (conformance.meaning.watch); this test reads a series of
each interval, so that each declaration sees its objects."""
from __future__ import annotations

import pytest

from conformance.checks.metrics import metric_path
from conformance.clients.rest import RestClient
from conformance.meaning import declarations
from conformance.meaning.declarations import Declaration
from conformance.suite.metrics.conftest import CHAIN

API = "metrics"
RELATIONS = [d for d in declarations.of_kind("invariant", API)]


@pytest.mark.parametrize("declaration", [pytest.param(d, marks=pytest.mark.rule(d.rule), id=d.id) for d in RELATIONS])
def test_every_answer_keeps_the_declared_relation(metrics_api: RestClient, declaration: Declaration) -> None:
    """The newest points of a series of each interval are read: the run's watch judges every point of every
    answer against the declaration."""
    answered = 0
    for interval in ("hour", "day"):
        exchange = metrics_api.get(metric_path(CHAIN, "txCount"), {"timeInterval": interval, "pageSize": 24})
        answered += exchange.status == 200
    if not answered:
        pytest.skip(f"no txCount series of chain {CHAIN} is served")

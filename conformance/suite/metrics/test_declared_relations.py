"""The relations declared on the Metrics API's answers: invariants among one object's members (and the clock).
Every answer of a run is judged against them as it arrives (conformance.meaning.watch); these tests read what each
declaration is about, so that it sees its objects."""
from __future__ import annotations

import pytest

from conformance.checks.metrics import avg_tps_path, metric_path
from conformance.clients.rest import RestClient
from conformance.meaning import declarations
from conformance.meaning.declarations import Declaration
from conformance.suite.metrics.conftest import CHAIN

API = "metrics"
RELATIONS = declarations.of_kind("invariant", API)


def _cases(subject: str) -> list[object]:
    return [pytest.param(d, marks=pytest.mark.rule(d.rule), id=d.id) for d in RELATIONS if d.subject == subject]


@pytest.mark.parametrize("declaration", _cases("DataPoint"))
def test_every_data_point_keeps_the_declared_relation(metrics_api: RestClient, declaration: Declaration) -> None:
    """The newest points of a series of each interval are read: the run's watch judges every point of every
    answer against the declaration."""
    answered = 0
    for interval in ("hour", "day"):
        exchange = metrics_api.get(metric_path(CHAIN, "txCount"), {"timeInterval": interval, "pageSize": 24})
        answered += exchange.status == 200
    if not answered:
        pytest.skip(f"no txCount series of chain {CHAIN} is served")


@pytest.mark.parametrize("declaration", _cases("AvgTpsResponse"))
def test_every_average_tps_answer_keeps_the_declared_relation(metrics_api: RestClient, evm_chain_id: str,
                                                              declaration: Declaration) -> None:
    """The average TPS of the run's EVM chain is read: the run's watch judges the answer against the declaration."""
    if metrics_api.get(avg_tps_path(evm_chain_id)).status != 200:
        pytest.skip(f"the average TPS of chain {evm_chain_id} is not served")

"""Generated requests (schemathesis: examples, coverage and fuzzing phases) get documented answers."""
from __future__ import annotations

import pytest

from conformance.checks.metrics import AGGREGATE_CHAINS, API, AVG_TPS_ROUTE, METRIC_ROUTE
from conformance.clients.rest import RestClient
from conformance.generated import cases, operation_requests
from conformance.schemathesis_support import WireCase, judge

# Each generated request is judged by every check registered for the API: importing conformance.checks.metrics
# registers them.
RULES = ("MET-ENV-001", "MET-ENV-002", "MET-ENV-003", "MET-ENV-004", "MET-SHP-001", "MET-SHP-002", "MET-SHP-003",
         "MET-SHP-004", "MET-ERR-001", "MET-ERR-002", "MET-ERR-003", "MET-ERR-004", "MET-ERR-005", "MET-ERR-007",
         "MET-TPS-002", "MET-TPS-003", "MET-TPS-004", "MET-TPS-005", "MET-TPS-006", "MET-TPS-007")


@pytest.mark.rule(*RULES)
@pytest.mark.parametrize("route", [METRIC_ROUTE, AVG_TPS_ROUTE])
# The route's cases, twice the profile's examples, fuzzed on each aggregate chain.
@cases(case=lambda route, profile: operation_requests(API, f"GET {route}", limit=2 * profile.examples,
                                                      paths=[{"chainId": chain} for chain in AGGREGATE_CHAINS]))
def test_generated_requests_get_documented_answers(metrics_api: RestClient, case: WireCase) -> None:
    """Example, coverage and fuzzed requests get documented shapes, error bodies and refusals."""
    judge(metrics_api, API, case)

"""The metric response and its data points have the documented shapes; counts and cumulative series behave."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check
from conformance.checks.metrics import assert_metric_response, metric_path, value_of
from conformance.checks.rest import assert_success
from conformance.clients.rest import RestClient
from conformance.suite.metrics.conftest import CHAIN

#: The count metrics of MET-SHP-006 (counts of transactions, addresses, contracts and deployers).
COUNT_METRICS = ("txCount", "activeAddresses", "activeSenders", "contracts", "deployers", "cumulativeTxCount")
#: Cumulative metrics whose growth the document implies but does not state (MET-SHP-007).
OTHER_CUMULATIVE = ("cumulativeAddresses", "cumulativeContracts", "cumulativeDeployers")


def _by_time(points: list[dict[str, Any]]) -> list[tuple[int, float]]:
    """(timestamp, value) of the points whose timestamp and value can be read, oldest first (a point in the wrong
    form is the shape rules' deviation; these rules judge what the others say)."""
    read = [(point.get("timestamp"), value_of(point)) for point in points if isinstance(point, dict)]
    return sorted((ts, value) for ts, value in read if isinstance(ts, int) and not isinstance(ts, bool)
                  and value is not None)


@pytest.mark.rule("MET-ENV-001", "MET-ENV-002", "MET-SHP-001", "MET-SHP-002", "MET-SHP-003", "MET-SHP-004")
def test_metric_response_has_the_documented_shape(metrics_api: RestClient) -> None:
    """A metric page is a JSON object with results of numeric values and integer timestamps, and a string token."""
    exchange = metrics_api.get(metric_path(CHAIN, "txCount"), {"timeInterval": "day", "pageSize": 3})
    assert_success(exchange, rule_id="MET-SHP-001", what="a page of daily txCount")
    assert_metric_response(exchange)


@pytest.mark.rule("MET-SHP-006")
@pytest.mark.parametrize("metric", COUNT_METRICS)
def test_count_metric_is_never_negative(metrics_api: RestClient, metric: str) -> None:
    """The first page of a count metric, with the latest, still open, day, has no negative value."""
    exchange = metrics_api.get(metric_path(CHAIN, metric), {"timeInterval": "day", "pageSize": 3})
    assert_success(exchange, rule_id="MET-SHP-006", what=f"a page of daily {metric}")
    negative = [p for p in assert_metric_response(exchange) if (value_of(p) or 0) < 0]
    check(not negative, "MET-SHP-006", f"{metric} has negative values", expected="values >= 0",
          received=negative[:3], exchange=exchange)


@pytest.mark.rule("MET-SHP-005")
def test_cumulative_tx_count_never_decreases(metrics_api: RestClient) -> None:
    """Over a month of days, cumulativeTxCount never decreases as the timestamp increases."""
    exchange = metrics_api.get(metric_path(CHAIN, "cumulativeTxCount"), {"timeInterval": "day", "pageSize": 30})
    assert_success(exchange, rule_id="MET-SHP-005", what="a page of daily cumulativeTxCount")
    points = _by_time(assert_metric_response(exchange))
    drops = [(a, b) for a, b in zip(points, points[1:]) if b[1] < a[1]]
    check(not drops, "MET-SHP-005", "cumulativeTxCount decreases from one day to the next",
          expected="values that never decrease with the timestamp", received=drops[:2], exchange=exchange)


@pytest.mark.rule("MET-SHP-007")
@pytest.mark.parametrize("metric", OTHER_CUMULATIVE)
def test_other_cumulative_growth_is_recorded(metrics_api: RestClient, metric: str,
                                             observe: Callable[[str, Any], None]) -> None:
    """Whether cumulativeAddresses, cumulativeContracts and cumulativeDeployers never decrease is recorded."""
    exchange = metrics_api.get(metric_path(CHAIN, metric), {"timeInterval": "day", "pageSize": 30})
    results = exchange.json().get("results") if exchange.status == 200 and exchange.is_json() else None
    values = [value for _, value in _by_time(results if isinstance(results, list) else [])]
    observe("MET-SHP-007", {"metric": metric, "status": exchange.status, "points": len(values),
                            "never_decreases": all(a <= b for a, b in zip(values, values[1:]))})

"""Refused requests: invalid parameters get 400 with the documented error body; a mistyped URL gets 404."""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import check
from conformance.checks.metrics import API, assert_error, metric_path
from conformance.checks.rest import assert_refused, documented_phrases
from conformance.clients.rest import RestClient
from conformance.suite.metrics.conftest import CHAIN

PATH = metric_path(CHAIN, "txCount")
#: One invalid value per query parameter with a documented type, bound or value set.
INVALID_QUERIES = {"pageSize-zero": {"pageSize": 0}, "pageSize-text": {"pageSize": "abc"},
                   "startTimestamp-negative": {"startTimestamp": -1}, "endTimestamp-negative": {"endTimestamp": -1},
                   "startTimestamp-text": {"startTimestamp": "yesterday"},
                   "timeInterval-unknown": {"timeInterval": "fortnight"}}


@pytest.mark.rule("MET-ENV-003", "MET-ENV-004", "MET-ERR-001", "MET-ERR-002", "MET-ERR-003", "MET-ERR-005")
def test_bad_request_has_the_documented_error_body(metrics_api: RestClient) -> None:
    """A 400 carries a JSON error body: message an array of strings, error "Bad Request", statusCode 400."""
    exchange = metrics_api.get(PATH, {"timeInterval": "day", "pageSize": 0})
    # An answer other than 400 to an invalid value is MET-ERR-004's deviation; the body rules start from a refusal.
    assert_refused(exchange, rule_id="MET-ERR-004", api=API, statuses={400}, body=False, what="pageSize 0")
    assert_error(exchange)


@pytest.mark.rule("MET-ERR-004")
@pytest.mark.parametrize("query", list(INVALID_QUERIES.values()), ids=list(INVALID_QUERIES))
def test_invalid_query_value_gets_400(metrics_api: RestClient, query: dict[str, Any]) -> None:
    """A query parameter value outside its documented type, bounds or values is refused with status 400."""
    exchange = metrics_api.get(PATH, {"timeInterval": "day", **query})
    assert_refused(exchange, rule_id="MET-ERR-004", api=API, statuses={400}, body=False, what=f"query {query}")


@pytest.mark.rule("MET-ENUM-001")
def test_unknown_metric_is_refused(metrics_api: RestClient) -> None:
    """A metric name outside the 17 documented names is refused with a 4XX and the error body."""
    exchange = metrics_api.get(metric_path(CHAIN, "txCounts"), {"timeInterval": "day"})
    assert_refused(exchange, rule_id="MET-ENUM-001", api=API, what="metric txCounts")


@pytest.mark.rule("MET-ENUM-002")
def test_unknown_time_interval_is_refused(metrics_api: RestClient) -> None:
    """A timeInterval outside hour, day, week and month is refused with a 4XX and the error body."""
    exchange = metrics_api.get(PATH, {"timeInterval": "fortnight"})
    assert_refused(exchange, rule_id="MET-ENUM-002", api=API, what="timeInterval fortnight")


@pytest.mark.rule("MET-ERR-006", "MET-ERR-007", "MET-ERR-008")
def test_mistyped_url_gets_404(metrics_api: RestClient, observe: Callable[[str, Any], None]) -> None:
    """A mistyped URL gets 404; a JSON error body with it has error "Not Found"."""
    exchange = metrics_api.get(f"/v2/chains/{CHAIN}/metricz/txCount")
    observe("MET-ERR-008", {"status": exchange.status, "body": exchange.text(300)})
    check(exchange.status == 404, "MET-ERR-006", "a mistyped URL does not get 404", expected="status 404",
          received=f"status {exchange.status}: {exchange.text(200)}", exchange=exchange)
    body = exchange.json() if exchange.is_json() else None
    if isinstance(body, dict) and "error" in body:
        phrase = documented_phrases(API)[404]
        check(body["error"] == phrase, "MET-ERR-007", "the 404 error body has another error phrase",
              expected=f'error: "{phrase}"', received=body, exchange=exchange)

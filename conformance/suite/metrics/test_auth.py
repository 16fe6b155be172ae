"""Authentication: none is needed, and a JSON Content-Type header on a GET changes nothing."""
from __future__ import annotations

import pytest

from conformance.checks import check
from conformance.checks.metrics import assert_metric_response, metric_path
from conformance.checks.rest import assert_success
from conformance.clients.rest import RestClient
from conformance.suite.metrics.conftest import CHAIN

PARAMS = {"timeInterval": "day", "pageSize": 2}


@pytest.mark.rule("MET-AUTH-001")
def test_request_without_credentials_is_not_refused(metrics_api: RestClient) -> None:
    """A request with no API key and no authentication header gets neither 401 nor 403."""
    exchange = metrics_api.get(metric_path(CHAIN, "txCount"), PARAMS)
    check(exchange.status not in (401, 403), "MET-AUTH-001", "a request without credentials is refused",
          expected="no 401 or 403: the API needs no authentication", received=f"status {exchange.status}: "
          f"{exchange.text(200)}", exchange=exchange)


@pytest.mark.rule("MET-AUTH-002")
def test_json_content_type_header_is_accepted(metrics_api: RestClient) -> None:
    """A GET with Content-Type application/json is served like the same GET without it."""
    path = metric_path(CHAIN, "txCount")
    exchange = metrics_api.http.request("GET", metrics_api.url(path), params=PARAMS,
                                        headers={"Content-Type": "application/json"})
    assert_success(exchange, rule_id="MET-AUTH-002", what="a GET with Content-Type application/json")
    assert_metric_response(exchange)
